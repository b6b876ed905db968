//! The C unions inside the event headers, each kept as its raw bytes with one accessor and one
//! setter per view. A setter writes only the bytes of its view; the others keep what they held.

use crate::wire::codes::WnodeFlags;
use crate::wire::guid::Guid;

/// The class GUID member at offset 0x18 of `EVENT_TRACE_HEADER` and `EVENT_INSTANCE_GUID_HEADER`.
///
/// ```c
/// union { GUID Guid; ULONGLONG GuidPtr; };
/// ```
/// `GuidPtr` (bytes 0..8) is used on input to `TraceEvent` when `Flags` holds
/// `WNODE_FLAG_USE_GUID_PTR`; in trace buffers the member holds the `Guid` itself.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct GuidOrPtr(pub [u8; 16]);

impl GuidOrPtr {
    /// The union holding `guid`.
    pub fn from_guid(guid: Guid) -> Self {
        Self(guid.to_bytes_le())
    }

    /// The union holding `guid_ptr` in its first eight bytes and zeros after it.
    pub fn from_guid_ptr(guid_ptr: u64) -> Self {
        let mut union = Self::default();
        union.set_guid_ptr(guid_ptr);
        union
    }

    /// The `Guid` view.
    pub fn guid(&self) -> Guid {
        Guid::from_bytes_le(self.0)
    }

    /// Stores `guid` (all 16 bytes).
    pub fn set_guid(&mut self, guid: Guid) {
        self.0 = guid.to_bytes_le();
    }

    /// The `GuidPtr` view: bytes 0..8, little-endian.
    pub fn guid_ptr(&self) -> u64 {
        let [head @ .., _, _, _, _, _, _, _, _] = self.0;
        u64::from_le_bytes(head)
    }

    /// Stores `guid_ptr` in bytes 0..8; bytes 8..16 keep their value.
    pub fn set_guid_ptr(&mut self, guid_ptr: u64) {
        let [head @ .., _, _, _, _, _, _, _, _] = &mut self.0;
        *head = guid_ptr.to_le_bytes();
    }
}

impl From<Guid> for GuidOrPtr {
    fn from(guid: Guid) -> Self {
        Self::from_guid(guid)
    }
}

impl core::fmt::Debug for GuidOrPtr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "GuidOrPtr {{ guid: {}, guid_ptr: {:#x} }}",
            self.guid(),
            self.guid_ptr()
        )
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for GuidOrPtr {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "GuidOrPtr {{ guid: {}, guid_ptr: {=u64:#x} }}",
            self.guid(),
            self.guid_ptr()
        )
    }
}

/// The eight-byte member at offset 0x28 of every classic event header.
///
/// ```c
/// union {
///     struct { ULONG KernelTime; ULONG UserTime; };   // output: CPU ticks
///     ULONG64 ProcessorTime;                          // output, private sessions
///     struct { ULONG ClientContext; ULONG Flags; };   // EVENT_TRACE_HEADER: input
///     struct { ULONG EventId; ULONG Flags; };         // EVENT_INSTANCE_HEADER: input
/// };
/// ```
/// `KernelTime`, `ClientContext` and `EventId` are the same bytes (0..4), as are `UserTime` and
/// `Flags` (4..8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct TimesOrFlags(pub [u8; 8]);

impl TimesOrFlags {
    /// The union holding `KernelTime` and `UserTime`.
    pub fn from_times(kernel_time: u32, user_time: u32) -> Self {
        Self::from_halves(kernel_time, user_time)
    }

    /// The union holding `ProcessorTime`.
    pub fn from_processor_time(processor_time: u64) -> Self {
        Self(processor_time.to_le_bytes())
    }

    /// The union holding `ClientContext` and `Flags`.
    pub fn from_client_context(client_context: u32, flags: WnodeFlags) -> Self {
        Self::from_halves(client_context, flags.0)
    }

    /// The union holding `EventId` and `Flags`.
    pub fn from_event_id(event_id: u32, flags: WnodeFlags) -> Self {
        Self::from_halves(event_id, flags.0)
    }

    fn from_halves(low: u32, high: u32) -> Self {
        let mut union = Self::default();
        union.set_low(low);
        union.set_high(high);
        union
    }

    fn low(&self) -> u32 {
        let [head @ .., _, _, _, _] = self.0;
        u32::from_le_bytes(head)
    }

    fn high(&self) -> u32 {
        let [_, _, _, _, tail @ ..] = self.0;
        u32::from_le_bytes(tail)
    }

    fn set_low(&mut self, value: u32) {
        let [low @ .., _, _, _, _] = &mut self.0;
        *low = value.to_le_bytes();
    }

    fn set_high(&mut self, value: u32) {
        let [_, _, _, _, high @ ..] = &mut self.0;
        *high = value.to_le_bytes();
    }

    /// `KernelTime`: kernel-mode CPU time in ticks (bytes 0..4).
    pub fn kernel_time(&self) -> u32 {
        self.low()
    }

    /// Stores `KernelTime` (bytes 0..4).
    pub fn set_kernel_time(&mut self, kernel_time: u32) {
        self.set_low(kernel_time);
    }

    /// `UserTime`: user-mode CPU time in ticks (bytes 4..8).
    pub fn user_time(&self) -> u32 {
        self.high()
    }

    /// Stores `UserTime` (bytes 4..8).
    pub fn set_user_time(&mut self, user_time: u32) {
        self.set_high(user_time);
    }

    /// `ProcessorTime`: CPU time of a private session, in ticks (all 8 bytes).
    pub fn processor_time(&self) -> u64 {
        u64::from_le_bytes(self.0)
    }

    /// Stores `ProcessorTime` (all 8 bytes).
    pub fn set_processor_time(&mut self, processor_time: u64) {
        self.0 = processor_time.to_le_bytes();
    }

    /// `ClientContext` (bytes 0..4), `EVENT_TRACE_HEADER`'s input view.
    pub fn client_context(&self) -> u32 {
        self.low()
    }

    /// Stores `ClientContext` (bytes 0..4).
    pub fn set_client_context(&mut self, client_context: u32) {
        self.set_low(client_context);
    }

    /// `EventId` (bytes 0..4), `EVENT_INSTANCE_HEADER`'s input view.
    pub fn event_id(&self) -> u32 {
        self.low()
    }

    /// Stores `EventId` (bytes 0..4).
    pub fn set_event_id(&mut self, event_id: u32) {
        self.set_low(event_id);
    }

    /// `Flags` (bytes 4..8): the `WNODE_FLAG_*` bits given to `TraceEvent`/`TraceEventInstance`.
    pub fn flags(&self) -> WnodeFlags {
        WnodeFlags(self.high())
    }

    /// Stores `Flags` (bytes 4..8).
    pub fn set_flags(&mut self, flags: WnodeFlags) {
        self.set_high(flags.0);
    }
}

impl core::fmt::Debug for TimesOrFlags {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "TimesOrFlags {{ kernel_time: {}, user_time: {}, processor_time: {}, flags: {:?} }}",
            self.kernel_time(),
            self.user_time(),
            self.processor_time(),
            self.flags()
        )
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for TimesOrFlags {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "TimesOrFlags {{ kernel_time: {=u32}, user_time: {=u32}, processor_time: {=u64}, flags: {=u32:#x} }}",
            self.kernel_time(),
            self.user_time(),
            self.processor_time(),
            self.flags().0
        )
    }
}
