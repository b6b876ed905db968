//! Which wire struct a value, a length or an error is about, and the pointer width a layout uses.

/// The pointer width of the code that wrote a struct: a property of the data, never of the host.
///
/// Structs that hold a pointer or a `HANDLE` (`EVENT_TRACE.MofData`, `EVENT_INSTANCE_INFO.RegHandle`,
/// `TRACE_LOGFILE_HEADER.LoggerName`)
/// have a 32-bit and a 64-bit layout; a trace says which one through its header types
/// (`FULL_HEADER32` vs `FULL_HEADER64`, ...) or its logfile header's pointer size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bitness {
    /// 4-byte pointers (i686 and other 32-bit Windows ABIs).
    Bits32,
    /// 8-byte pointers (x86_64, arm64).
    Bits64,
}

impl Bitness {
    /// Bytes in a pointer or `HANDLE` of this width: 4 or 8.
    pub const fn pointer_len(self) -> usize {
        match self {
            Self::Bits32 => 4,
            Self::Bits64 => 8,
        }
    }

    /// The largest pointer value this width can hold.
    pub const fn max_pointer(self) -> u64 {
        match self {
            Self::Bits32 => 0xFFFF_FFFF,
            Self::Bits64 => u64::MAX,
        }
    }
}

impl core::fmt::Display for Bitness {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Bits32 => "32-bit",
            Self::Bits64 => "64-bit",
        })
    }
}

/// One of the fixed-layout wire structs this crate encodes, in one of its bitnesses.
///
/// Errors name the layout they are about, and generic code (tests, fuzzers, tools) can iterate
/// over [`Layout::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Layout {
    /// `EVENT_TRACE_HEADER`, 0x30 bytes on both bitnesses.
    EventTraceHeader,
    /// `EVENT_INSTANCE_HEADER`, 0x38 bytes on both bitnesses.
    EventInstanceHeader,
    /// `EVENT_INSTANCE_GUID_HEADER`, 0x48 bytes on both bitnesses.
    EventInstanceGuidHeader,
    /// `EVENT_TRACE` as a 32-bit consumer sees it, 0x58 bytes.
    EventTrace32,
    /// `EVENT_TRACE` as a 64-bit consumer sees it, 0x58 bytes.
    EventTrace64,
    /// `EVENT_INSTANCE_INFO` with a 4-byte `RegHandle`, 8 bytes.
    EventInstanceInfo32,
    /// `EVENT_INSTANCE_INFO` with an 8-byte `RegHandle`, 16 bytes.
    EventInstanceInfo64,
    /// `MOF_FIELD`, 16 bytes on both bitnesses.
    MofField,
    /// `WMI_BUFFER_HEADER`, the 0x48-byte start of every trace buffer, on both bitnesses.
    WmiBufferHeader,
    /// `SYSTEM_TRACE_HEADER`, the 0x20-byte header of system events, on both bitnesses.
    SystemTraceHeader,
    /// `TRACE_LOGFILE_HEADER` from a 32-bit logger, 0x110 bytes.
    TraceLogfileHeader32,
    /// `TRACE_LOGFILE_HEADER` from a 64-bit logger, 0x118 bytes.
    TraceLogfileHeader64,
    /// `EVENT_HEADER` as a trace buffer stores it (`EVENT_HEADER32`/`EVENT_HEADER64` events),
    /// 0x50 bytes on both bitnesses.
    EventHeader,
    /// The 8-byte header of an extended data item as a trace buffer stores it after an
    /// `EVENT_HEADER` (`EVENT_HEADER_EXTENDED_DATA_ITEM` without its `DataPtr`: the data follows
    /// in place).
    ExtendedItemHeader,
    /// The compact `SYSTEM_TRACE_HEADER` of `COMPACT32`/`COMPACT64` events, 0x18 bytes on both
    /// bitnesses (ntwmi.h `COMPACT_HEADER_SIZE`: the system header through `SystemTime`).
    CompactTraceHeader,
    /// `PERFINFO_TRACE_HEADER`, the 0x10-byte header of `PERFINFO32`/`PERFINFO64` events, on
    /// both bitnesses.
    PerfInfoTraceHeader,
    /// `MESSAGE_TRACE_HEADER`, the 8-byte header of message (WPP `TraceMessage`) events.
    MessageTraceHeader,
}

impl Layout {
    /// Every layout, in declaration order.
    pub const ALL: [Self; 17] = [
        Self::EventTraceHeader,
        Self::EventInstanceHeader,
        Self::EventInstanceGuidHeader,
        Self::EventTrace32,
        Self::EventTrace64,
        Self::EventInstanceInfo32,
        Self::EventInstanceInfo64,
        Self::MofField,
        Self::WmiBufferHeader,
        Self::SystemTraceHeader,
        Self::TraceLogfileHeader32,
        Self::TraceLogfileHeader64,
        Self::EventHeader,
        Self::ExtendedItemHeader,
        Self::CompactTraceHeader,
        Self::PerfInfoTraceHeader,
        Self::MessageTraceHeader,
    ];

    /// The struct's name in the Windows SDK headers, with its bitness where it has two layouts.
    pub const fn sdk_name(self) -> &'static str {
        match self {
            Self::EventTraceHeader => "EVENT_TRACE_HEADER",
            Self::EventInstanceHeader => "EVENT_INSTANCE_HEADER",
            Self::EventInstanceGuidHeader => "EVENT_INSTANCE_GUID_HEADER",
            Self::EventTrace32 => "EVENT_TRACE (32-bit)",
            Self::EventTrace64 => "EVENT_TRACE (64-bit)",
            Self::EventInstanceInfo32 => "EVENT_INSTANCE_INFO (32-bit)",
            Self::EventInstanceInfo64 => "EVENT_INSTANCE_INFO (64-bit)",
            Self::MofField => "MOF_FIELD",
            Self::WmiBufferHeader => "WMI_BUFFER_HEADER",
            Self::SystemTraceHeader => "SYSTEM_TRACE_HEADER",
            Self::TraceLogfileHeader32 => "TRACE_LOGFILE_HEADER (32-bit)",
            Self::TraceLogfileHeader64 => "TRACE_LOGFILE_HEADER (64-bit)",
            Self::EventHeader => "EVENT_HEADER",
            Self::ExtendedItemHeader => "EVENT_HEADER_EXTENDED_DATA_ITEM",
            Self::CompactTraceHeader => "SYSTEM_TRACE_HEADER (compact)",
            Self::PerfInfoTraceHeader => "PERFINFO_TRACE_HEADER",
            Self::MessageTraceHeader => "MESSAGE_TRACE_HEADER",
        }
    }

    /// The struct's length in bytes.
    pub const fn byte_len(self) -> usize {
        match self {
            Self::EventTraceHeader => 0x30,
            Self::EventInstanceHeader => 0x38,
            Self::EventInstanceGuidHeader | Self::WmiBufferHeader => 0x48,
            Self::EventTrace32 | Self::EventTrace64 => 0x58,
            Self::EventInstanceInfo32 => 8,
            Self::EventInstanceInfo64 | Self::MofField => 16,
            Self::SystemTraceHeader => 0x20,
            Self::TraceLogfileHeader32 => 0x110,
            Self::TraceLogfileHeader64 => 0x118,
            Self::EventHeader => 0x50,
            Self::ExtendedItemHeader => 8,
            Self::CompactTraceHeader => 0x18,
            Self::PerfInfoTraceHeader => 0x10,
            Self::MessageTraceHeader => 0x08,
        }
    }

    /// The SDK name of the struct's pointer-sized member, which [`PointerTooWide`] is about:
    /// `MofData`, `RegHandle`, `LoggerName`; `-` for structs without one.
    ///
    /// [`PointerTooWide`]: crate::wire::CodecError::PointerTooWide
    pub const fn pointer_member(self) -> &'static str {
        match self {
            Self::EventTrace32 | Self::EventTrace64 => "MofData",
            Self::EventInstanceInfo32 | Self::EventInstanceInfo64 => "RegHandle",
            Self::TraceLogfileHeader32 | Self::TraceLogfileHeader64 => "LoggerName",
            _ => "-",
        }
    }

    /// The bitness of a layout that has two, `None` for structs that are the same on both.
    pub const fn bitness(self) -> Option<Bitness> {
        match self {
            Self::EventTrace32 | Self::EventInstanceInfo32 | Self::TraceLogfileHeader32 => {
                Some(Bitness::Bits32)
            }
            Self::EventTrace64 | Self::EventInstanceInfo64 | Self::TraceLogfileHeader64 => {
                Some(Bitness::Bits64)
            }
            _ => None,
        }
    }
}

impl core::fmt::Display for Layout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.sdk_name())
    }
}
