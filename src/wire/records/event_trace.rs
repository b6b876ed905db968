//! `EVENT_TRACE`: the struct a consumer receives for each event, in its 32-bit and 64-bit layouts.

use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::guid::Guid;
use crate::wire::headers::event_instance_guid_header::offset as instance;
use crate::wire::headers::event_instance_guid_header::EventInstanceGuidHeader;
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::layout::{Bitness, Layout};
use crate::wire::records::buffer_context::BufferContext;

/// Byte offsets of the 32-bit layout's members after the first 0x48 bytes (mingw-w64, i686).
mod offset32 {
    use super::Field;

    pub(super) const MOF_DATA: Field<4> = Field::at(0x48); //       PVOID MofData
    pub(super) const MOF_LENGTH: Field<4> = Field::at(0x4C); //     ULONG MofLength
    pub(super) const BUFFER_CONTEXT: Field<4> = Field::at(0x50); // ClientContext | ETW_BUFFER_CONTEXT
    pub(super) const TAIL_PADDING: Field<4> = Field::at(0x54); //   padding to 8-byte alignment
}

/// Byte offsets of the 64-bit layout's members after the first 0x48 bytes (mingw-w64, x86_64).
mod offset64 {
    use super::Field;

    pub(super) const MOF_DATA: Field<8> = Field::at(0x48); //       PVOID MofData
    pub(super) const MOF_LENGTH: Field<4> = Field::at(0x50); //     ULONG MofLength
    pub(super) const BUFFER_CONTEXT: Field<4> = Field::at(0x54); // ClientContext | ETW_BUFFER_CONTEXT
}

const _: () = assert!(instance::PARENT_GUID.end() == offset32::MOF_DATA.start());
const _: () = assert!(offset32::TAIL_PADDING.end() == EventTrace::LEN);
const _: () = assert!(instance::PARENT_GUID.end() == offset64::MOF_DATA.start());
const _: () = assert!(offset64::BUFFER_CONTEXT.end() == EventTrace::LEN);

/// `EVENT_TRACE` (evntrace.h) as 32-bit code lays it out: 0x58 bytes, `MofData` a 4-byte pointer.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 0x30 | `Header` | [`header`](Self::header) |
/// | 0x30 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
/// | 0x34 | 4 | `ParentInstanceId` | [`parent_instance_id`](Self::parent_instance_id) |
/// | 0x38 | 16 | `ParentGuid` | [`parent_guid`](Self::parent_guid) |
/// | 0x48 | 4 | `MofData` | [`mof_data`](Self::mof_data) |
/// | 0x4C | 4 | `MofLength` | [`mof_length`](Self::mof_length) |
/// | 0x50 | 4 | `ClientContext` \| `BufferContext` | [`buffer_context`](Self::buffer_context) |
/// | 0x54 | 4 | (tail padding) | [`tail_padding`](Self::tail_padding) |
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventTrace32 {
    /// `Header`: the event's `EVENT_TRACE_HEADER`.
    pub header: EventTraceHeader,
    /// `InstanceId`: set for events from `TraceEventInstance`, "Otherwise, the value is zero."
    pub instance_id: u32,
    /// `ParentInstanceId`: the parent event's instance id, or zero.
    pub parent_instance_id: u32,
    /// `ParentGuid`: "Class GUID of the parent event", or zero.
    pub parent_guid: Guid,
    /// `MofData`: where the event data starts, a 32-bit pointer (an offset when built by this crate).
    pub mof_data: u32,
    /// `MofLength`: "Number of bytes to which MofData points."
    pub mof_length: u32,
    /// `ClientContext` | `BufferContext`: processor and session the event came from.
    pub buffer_context: BufferContext,
    /// Bytes 0x54..0x58, padding the struct to a multiple of 8. Kept as read (real data may hold
    /// garbage there); zero in values built from fields.
    pub tail_padding: [u8; 4],
}

/// `EVENT_TRACE` (evntrace.h) as 64-bit code lays it out: 0x58 bytes, `MofData` an 8-byte
/// pointer, no padding.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 0x30 | `Header` | [`header`](Self::header) |
/// | 0x30 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
/// | 0x34 | 4 | `ParentInstanceId` | [`parent_instance_id`](Self::parent_instance_id) |
/// | 0x38 | 16 | `ParentGuid` | [`parent_guid`](Self::parent_guid) |
/// | 0x48 | 8 | `MofData` | [`mof_data`](Self::mof_data) |
/// | 0x50 | 4 | `MofLength` | [`mof_length`](Self::mof_length) |
/// | 0x54 | 4 | `ClientContext` \| `BufferContext` | [`buffer_context`](Self::buffer_context) |
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventTrace64 {
    /// `Header`: the event's `EVENT_TRACE_HEADER`.
    pub header: EventTraceHeader,
    /// `InstanceId`: set for events from `TraceEventInstance`, "Otherwise, the value is zero."
    pub instance_id: u32,
    /// `ParentInstanceId`: the parent event's instance id, or zero.
    pub parent_instance_id: u32,
    /// `ParentGuid`: "Class GUID of the parent event", or zero.
    pub parent_guid: Guid,
    /// `MofData`: where the event data starts, a 64-bit pointer (an offset when built by this crate).
    pub mof_data: u64,
    /// `MofLength`: "Number of bytes to which MofData points."
    pub mof_length: u32,
    /// `ClientContext` | `BufferContext`: processor and session the event came from.
    pub buffer_context: BufferContext,
}

impl EventTrace32 {
    /// Bytes in a 32-bit `EVENT_TRACE`.
    pub const LEN: usize = 0x58;
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventTrace32;

    /// Decodes any 0x58 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        let first = EventInstanceGuidHeader::read(&read);
        Self {
            header: first.header,
            instance_id: first.instance_id,
            parent_instance_id: first.parent_instance_id,
            parent_guid: first.parent_guid,
            mof_data: read.u32(offset32::MOF_DATA),
            mof_length: read.u32(offset32::MOF_LENGTH),
            buffer_context: BufferContext(read.bytes(offset32::BUFFER_CONTEXT)),
            tail_padding: read.bytes(offset32::TAIL_PADDING),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    #[inline]
    pub(crate) fn write(&self, write: &mut Writer<'_>) {
        self.instance_header().write(write);
        write.u32(offset32::MOF_DATA, self.mof_data);
        write.u32(offset32::MOF_LENGTH, self.mof_length);
        write.bytes(offset32::BUFFER_CONTEXT, self.buffer_context.0);
        write.bytes(offset32::TAIL_PADDING, self.tail_padding);
    }

    /// The first 0x48 bytes, which are an `EVENT_INSTANCE_GUID_HEADER`.
    #[inline]
    pub fn instance_header(&self) -> EventInstanceGuidHeader {
        EventInstanceGuidHeader {
            header: self.header,
            instance_id: self.instance_id,
            parent_instance_id: self.parent_instance_id,
            parent_guid: self.parent_guid,
        }
    }
}

impl EventTrace64 {
    /// Bytes in a 64-bit `EVENT_TRACE`.
    pub const LEN: usize = 0x58;
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventTrace64;

    /// Decodes any 0x58 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        let first = EventInstanceGuidHeader::read(&read);
        Self {
            header: first.header,
            instance_id: first.instance_id,
            parent_instance_id: first.parent_instance_id,
            parent_guid: first.parent_guid,
            mof_data: read.u64(offset64::MOF_DATA),
            mof_length: read.u32(offset64::MOF_LENGTH),
            buffer_context: BufferContext(read.bytes(offset64::BUFFER_CONTEXT)),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    #[inline]
    pub(crate) fn write(&self, write: &mut Writer<'_>) {
        self.instance_header().write(write);
        write.u64(offset64::MOF_DATA, self.mof_data);
        write.u32(offset64::MOF_LENGTH, self.mof_length);
        write.bytes(offset64::BUFFER_CONTEXT, self.buffer_context.0);
    }

    /// The first 0x48 bytes, which are an `EVENT_INSTANCE_GUID_HEADER`.
    #[inline]
    pub fn instance_header(&self) -> EventInstanceGuidHeader {
        EventInstanceGuidHeader {
            header: self.header,
            instance_id: self.instance_id,
            parent_instance_id: self.parent_instance_id,
            parent_guid: self.parent_guid,
        }
    }
}

/// `EVENT_TRACE` in the layout a [`Bitness`] value chooses: the consumer's view of one event.
///
/// Both layouts are 0x58 bytes and share the first 0x48 (an [`EventInstanceGuidHeader`]); they
/// differ in the width of `MofData` and so in where `MofLength` and `BufferContext` sit. The
/// bitness comes from the trace (the logfile header's pointer size, or the event's header type),
/// never from the host.
///
/// ```
/// use etw_classic::{Bitness, EventTrace};
/// let bytes = [0u8; EventTrace::LEN];
/// let trace = EventTrace::from_bytes(&bytes, Bitness::Bits32);
/// assert_eq!(trace.bitness(), Bitness::Bits32);
/// assert_eq!(trace.to_bytes(), bytes);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EventTrace {
    /// The 32-bit layout.
    Bits32(EventTrace32),
    /// The 64-bit layout.
    Bits64(EventTrace64),
}

impl EventTrace {
    /// Bytes in an `EVENT_TRACE`, in either layout.
    pub const LEN: usize = 0x58;

    /// An `EVENT_TRACE` of the given bitness built from its parts, with zero padding.
    ///
    /// # Errors
    /// [`CodecError::PointerTooWide`] when `mof_data` does not fit a 32-bit pointer.
    pub fn new(
        bitness: Bitness,
        instance: EventInstanceGuidHeader,
        mof_data: u64,
        mof_length: u32,
        buffer_context: BufferContext,
    ) -> Result<Self, CodecError> {
        let EventInstanceGuidHeader {
            header,
            instance_id,
            parent_instance_id,
            parent_guid,
        } = instance;
        Ok(match bitness {
            Bitness::Bits32 => Self::Bits32(EventTrace32 {
                header,
                instance_id,
                parent_instance_id,
                parent_guid,
                mof_data: u32::try_from(mof_data).map_err(|_| CodecError::PointerTooWide {
                    layout: Layout::EventTrace32,
                    bitness,
                    value: mof_data,
                })?,
                mof_length,
                buffer_context,
                tail_padding: [0; 4],
            }),
            Bitness::Bits64 => Self::Bits64(EventTrace64 {
                header,
                instance_id,
                parent_instance_id,
                parent_guid,
                mof_data,
                mof_length,
                buffer_context,
            }),
        })
    }

    /// Decodes any 0x58 bytes in the layout of `bitness`; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN], bitness: Bitness) -> Self {
        match bitness {
            Bitness::Bits32 => Self::Bits32(EventTrace32::from_bytes(bytes)),
            Bitness::Bits64 => Self::Bits64(EventTrace64::from_bytes(bytes)),
        }
    }

    /// Encodes every member in the value's own layout.
    #[inline]
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        match self {
            Self::Bits32(trace) => trace.to_bytes(),
            Self::Bits64(trace) => trace.to_bytes(),
        }
    }

    /// Decodes the first 0x58 bytes of `input` in the layout of `bitness` and returns the rest.
    ///
    /// # Errors
    /// [`CodecError::Truncated`] for fewer than 0x58 bytes.
    pub fn parse(input: &[u8], bitness: Bitness) -> Result<(Self, &[u8]), CodecError> {
        let (bytes, rest) = field::split_prefix::<{ Self::LEN }>(Self::layout_of(bitness), input)?;
        Ok((Self::from_bytes(bytes, bitness), rest))
    }

    /// Writes the struct in its own layout to the start of `out` and returns the rest of `out`.
    ///
    /// # Errors
    /// [`CodecError::OutputTooSmall`] when `out` is shorter than 0x58 bytes; nothing is written then.
    pub fn emit<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
        match self {
            Self::Bits32(trace) => trace.emit(out),
            Self::Bits64(trace) => trace.emit(out),
        }
    }

    const fn layout_of(bitness: Bitness) -> Layout {
        match bitness {
            Bitness::Bits32 => Layout::EventTrace32,
            Bitness::Bits64 => Layout::EventTrace64,
        }
    }

    /// The layout of this value.
    pub const fn layout(&self) -> Layout {
        Self::layout_of(self.bitness())
    }

    /// The bitness of this value's layout.
    pub const fn bitness(&self) -> Bitness {
        match self {
            Self::Bits32(_) => Bitness::Bits32,
            Self::Bits64(_) => Bitness::Bits64,
        }
    }

    /// The first 0x48 bytes: `Header`, `InstanceId`, `ParentInstanceId`, `ParentGuid`.
    #[inline]
    pub fn instance_header(&self) -> EventInstanceGuidHeader {
        match self {
            Self::Bits32(trace) => trace.instance_header(),
            Self::Bits64(trace) => trace.instance_header(),
        }
    }

    /// `Header`.
    pub fn header(&self) -> EventTraceHeader {
        self.instance_header().header
    }

    /// `MofData`, widened to 64 bits.
    pub fn mof_data(&self) -> u64 {
        match self {
            Self::Bits32(trace) => u64::from(trace.mof_data),
            Self::Bits64(trace) => trace.mof_data,
        }
    }

    /// `MofLength`.
    pub fn mof_length(&self) -> u32 {
        match self {
            Self::Bits32(trace) => trace.mof_length,
            Self::Bits64(trace) => trace.mof_length,
        }
    }

    /// `ClientContext` | `BufferContext`.
    pub fn buffer_context(&self) -> BufferContext {
        match self {
            Self::Bits32(trace) => trace.buffer_context,
            Self::Bits64(trace) => trace.buffer_context,
        }
    }
}

impl From<EventTrace32> for EventTrace {
    fn from(trace: EventTrace32) -> Self {
        Self::Bits32(trace)
    }
}

impl From<EventTrace64> for EventTrace {
    fn from(trace: EventTrace64) -> Self {
        Self::Bits64(trace)
    }
}

field::fixed_layout_entry_points!(EventTrace32, length_only);
field::fixed_layout_entry_points!(EventTrace64, length_only);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::ascending;

    /// The C-ABI vectors "EVENT_TRACE class+guid+kernel_user+client_context": i686 has zero tail
    /// padding at 0x54..0x58, x86_64 runs on to 0x68.
    fn golden(bitness: Bitness) -> [u8; 0x58] {
        let mut bytes = ascending();
        if bitness == Bitness::Bits32 {
            bytes[0x54..].fill(0);
        }
        bytes
    }

    #[test]
    fn the_32_bit_layout() {
        let trace = EventTrace32::from_bytes(&golden(Bitness::Bits32));
        assert_eq!(
            trace.instance_header(),
            EventInstanceGuidHeader::from_bytes(&ascending())
        );
        assert_eq!(trace.mof_data, 0x5c5b_5a59); //                 0x48, 4 bytes
        assert_eq!(trace.mof_length, 0x605f_5e5d); //               0x4C
        assert_eq!(trace.buffer_context.client_context(), 0x6463_6261); // 0x50
        assert_eq!(trace.tail_padding, [0; 4]);
        assert_eq!(trace.to_bytes(), golden(Bitness::Bits32));
    }

    #[test]
    fn the_64_bit_layout() {
        let trace = EventTrace64::from_bytes(&golden(Bitness::Bits64));
        assert_eq!(
            trace.instance_header(),
            EventInstanceGuidHeader::from_bytes(&ascending())
        );
        assert_eq!(trace.mof_data, 0x605f_5e5d_5c5b_5a59); // 0x48, 8 bytes
        assert_eq!(trace.mof_length, 0x6463_6261); //               0x50
        assert_eq!(trace.buffer_context.logger_id(), 0x6867); //    0x56
        assert_eq!(trace.buffer_context.processor_number(), 0x65); // 0x54
        assert_eq!(trace.to_bytes(), golden(Bitness::Bits64));
    }
}
