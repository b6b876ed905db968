//! `EVENT_TRACE`: the struct a consumer receives for each event, in its 32-bit and 64-bit layouts.

use crate::wire::error::CodecError;
use crate::wire::field;
use crate::wire::guid::Guid;
use crate::wire::headers::event_instance_guid_header::EventInstanceGuidHeader;
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::layout::{Bitness, Layout};
use crate::wire::records::buffer_context::BufferContext;

field::pointer_width_pair! {
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
    pub enum EventTrace {
        /// `EVENT_TRACE` (evntrace.h) as 32-bit code lays it out (mingw-w64, i686): 0x58 bytes,
        /// `MofData` a 4-byte pointer, then 4 bytes of tail padding.
        #[repr(C)]
        Bits32(EventTrace32) = EventTrace32, 0x58;
        /// `EVENT_TRACE` (evntrace.h) as 64-bit code lays it out (mingw-w64, x86_64): 0x58 bytes,
        /// `MofData` an 8-byte pointer, no padding.
        #[repr(C)]
        Bits64(EventTrace64) = EventTrace64, 0x58;
    }
    members {
        /// `Header`: the event's `EVENT_TRACE_HEADER`.
        header: EventTraceHeader[0x30] @ 0x00, 0x00 => "`Header`",
        /// `InstanceId`: set for events from `TraceEventInstance`, "Otherwise, the value is zero."
        instance_id: u32[4] @ 0x30, 0x30 => "`InstanceId`",
        /// `ParentInstanceId`: the parent event's instance id, or zero.
        parent_instance_id: u32[4] @ 0x34, 0x34 => "`ParentInstanceId`",
        /// `ParentGuid`: "Class GUID of the parent event", or zero.
        parent_guid: Guid[16] @ 0x38, 0x38 => "`ParentGuid`",
        /// `MofData`: where the event data starts, a pointer of the layout's width (an offset
        /// when built by this crate).
        mof_data: pointer @ 0x48, 0x48 => "`MofData`",
        /// `MofLength`: "Number of bytes to which MofData points."
        mof_length: u32[4] @ 0x4C, 0x50 => "`MofLength`",
        /// `ClientContext` | `BufferContext`: processor and session the event came from.
        buffer_context: BufferContext[4] @ 0x50, 0x54 => "`ClientContext` \\| `BufferContext`",
        /// Bytes 0x54..0x58, padding the struct to a multiple of 8. Kept as read (real data may
        /// hold garbage there); zero in values built from fields.
        tail_padding: [u8; 4][4] @ 0x54, - => "(tail padding)",
    }
    shared {
        /// The first 0x48 bytes: `Header`, `InstanceId`, `ParentInstanceId`, `ParentGuid`, which
        /// are an `EVENT_INSTANCE_GUID_HEADER`.
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
}

impl EventTrace {
    /// Bytes in an `EVENT_TRACE`, in either layout.
    pub const LEN: usize = Layout::EventTrace64.byte_len();

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
        let wide = EventTrace64 {
            header,
            instance_id,
            parent_instance_id,
            parent_guid,
            mof_data,
            mof_length,
            buffer_context,
        };
        Self::from_wide(bitness, wide)
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
}

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
    fn both_layouts() {
        // (bitness, MofData, MofLength, ClientContext), from the ascending bytes: MofData is 4
        // or 8 bytes at 0x48, which moves the two members after it.
        let layouts: [(Bitness, u64, u32, u32); 2] = [
            (Bitness::Bits32, 0x5c5b_5a59, 0x605f_5e5d, 0x6463_6261),
            (
                Bitness::Bits64,
                0x605f_5e5d_5c5b_5a59,
                0x6463_6261,
                0x6867_6665,
            ),
        ];
        for (bitness, mof_data, mof_length, client_context) in layouts {
            let bytes = golden(bitness);
            let trace = EventTrace::from_bytes(&bytes, bitness);
            assert_eq!(trace.bitness(), bitness);
            assert_eq!(
                trace.instance_header(),
                EventInstanceGuidHeader::from_bytes(&ascending())
            );
            assert_eq!(trace.mof_data(), mof_data);
            assert_eq!(trace.mof_length(), mof_length);
            assert_eq!(trace.buffer_context().client_context(), client_context);
            assert_eq!(trace.to_bytes(), bytes);
        }
        let trace32 = EventTrace32::from_bytes(&golden(Bitness::Bits32));
        assert_eq!(trace32.tail_padding, [0; 4]);
        let trace64 = EventTrace64::from_bytes(&golden(Bitness::Bits64));
        assert_eq!(trace64.buffer_context.logger_id(), 0x6867); //      0x56
        assert_eq!(trace64.buffer_context.processor_number(), 0x65); // 0x54
    }
}
