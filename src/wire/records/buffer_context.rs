//! `ETW_BUFFER_CONTEXT`, the four bytes that say which processor's buffer and which session an
//! event came from.

/// `ETW_BUFFER_CONTEXT` (evntrace.h), kept as its raw four bytes with one accessor per view.
///
/// | off | size | member |
/// |---|---|---|
/// | 0x00 | 1 | `ProcessorNumber` (or, with `Alignment`, the u16 `ProcessorIndex` in newer headers) |
/// | 0x01 | 1 | `Alignment` |
/// | 0x02 | 2 | `LoggerId` |
///
/// In `EVENT_TRACE` it shares its bytes with `ClientContext` ("Reserved"); the whole `u32` is
/// [`BufferContext::client_context`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct BufferContext(pub [u8; 4]);

impl BufferContext {
    /// Bytes in an `ETW_BUFFER_CONTEXT`.
    pub const LEN: usize = 4;

    /// The context with the given `ProcessorNumber`, `Alignment` and `LoggerId`.
    pub fn new(processor_number: u8, alignment: u8, logger_id: u16) -> Self {
        let [logger_low, logger_high] = logger_id.to_le_bytes();
        Self([processor_number, alignment, logger_low, logger_high])
    }

    /// The context read as the `u32` `ClientContext` of the union.
    pub fn from_client_context(client_context: u32) -> Self {
        Self(client_context.to_le_bytes())
    }

    /// `ProcessorNumber` (byte 0).
    pub fn processor_number(&self) -> u8 {
        let [processor_number, ..] = self.0;
        processor_number
    }

    /// Stores `ProcessorNumber` (byte 0).
    pub fn set_processor_number(&mut self, processor_number: u8) {
        let [slot, ..] = &mut self.0;
        *slot = processor_number;
    }

    /// `Alignment` (byte 1).
    pub fn alignment(&self) -> u8 {
        let [_, alignment, ..] = self.0;
        alignment
    }

    /// Stores `Alignment` (byte 1).
    pub fn set_alignment(&mut self, alignment: u8) {
        let [_, slot, ..] = &mut self.0;
        *slot = alignment;
    }

    /// `ProcessorIndex` (bytes 0..2), the newer headers' view of `ProcessorNumber` + `Alignment`.
    pub fn processor_index(&self) -> u16 {
        let [low, high, ..] = self.0;
        u16::from_le_bytes([low, high])
    }

    /// Stores `ProcessorIndex` (bytes 0..2).
    pub fn set_processor_index(&mut self, processor_index: u16) {
        let [low, high, ..] = &mut self.0;
        [*low, *high] = processor_index.to_le_bytes();
    }

    /// `LoggerId` (bytes 2..4): the session.
    pub fn logger_id(&self) -> u16 {
        let [_, _, low, high] = self.0;
        u16::from_le_bytes([low, high])
    }

    /// Stores `LoggerId` (bytes 2..4).
    pub fn set_logger_id(&mut self, logger_id: u16) {
        let [_, _, low, high] = &mut self.0;
        [*low, *high] = logger_id.to_le_bytes();
    }

    /// `ClientContext`, the whole four bytes as a little-endian `u32`.
    pub fn client_context(&self) -> u32 {
        u32::from_le_bytes(self.0)
    }

    /// Stores `ClientContext` (all four bytes).
    pub fn set_client_context(&mut self, client_context: u32) {
        self.0 = client_context.to_le_bytes();
    }
}

impl core::fmt::Debug for BufferContext {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BufferContext")
            .field("processor_number", &self.processor_number())
            .field("alignment", &self.alignment())
            .field("logger_id", &self.logger_id())
            .finish()
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for BufferContext {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "BufferContext {{ processor_number: {=u8}, alignment: {=u8}, logger_id: {=u16} }}",
            self.processor_number(),
            self.alignment(),
            self.logger_id()
        )
    }
}
