//! Open newtypes over the raw integer codes of the headers.
//!
//! Each code keeps whatever value it was given, so an unknown code decodes and re-encodes
//! unchanged; the SDK constants are associated constants, and `Debug` prints their names.
//! All of them come from one macro per kind (enumerated codes and bit flags) so they behave alike.

use crate::wire::layout::Bitness;

/// Declares an open newtype for an enumerated code with its named constants.
macro_rules! open_code {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($repr:ty) {
            $( $(#[$const_meta:meta])* $constant:ident = $value:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub struct $name(pub $repr);

        impl $name {
            $( $(#[$const_meta])* pub const $constant: Self = Self($value); )*

            /// The SDK name of a known value (without its prefix), `None` for any other value.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $value => Some(stringify!($constant)), )*
                    _ => None,
                }
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "{}({:#x})", stringify!($name), self.0),
                }
            }
        }

        impl From<$repr> for $name {
            fn from(raw: $repr) -> Self {
                Self(raw)
            }
        }

        impl From<$name> for $repr {
            fn from(code: $name) -> Self {
                code.0
            }
        }
    };
}

/// Declares an open newtype for a set of bit flags with its named bits.
macro_rules! open_flags {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($repr:ty) {
            $( $(#[$const_meta:meta])* $constant:ident = $value:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub struct $name(pub $repr);

        impl $name {
            $( $(#[$const_meta])* pub const $constant: Self = Self($value); )*

            /// No flag set.
            pub const EMPTY: Self = Self(0);

            /// Every named flag with its SDK name (without its prefix).
            pub const NAMED: &'static [(Self, &'static str)] = &[ $( (Self::$constant, stringify!($constant)), )* ];

            /// Whether every bit of `other` is set in `self`.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// `self` with the bits of `other` added.
            #[must_use]
            pub const fn with(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }

            /// `self` with the bits of `other` cleared.
            #[must_use]
            pub const fn without(self, other: Self) -> Self {
                Self(self.0 & !other.0)
            }

            /// The bits that no named flag covers.
            pub const fn unnamed_bits(self) -> $repr {
                let mut named: $repr = 0;
                $( named |= $value; )*
                self.0 & !named
            }
        }

        impl core::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self {
                self.with(rhs)
            }
        }

        impl core::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self {
                Self(self.0 & rhs.0)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({:#x}", stringify!($name), self.0)?;
                let mut separator = ": ";
                for (flag, name) in Self::NAMED {
                    if flag.0 != 0 && self.contains(*flag) {
                        write!(f, "{separator}{name}")?;
                        separator = " | ";
                    }
                }
                f.write_str(")")
            }
        }

        impl From<$repr> for $name {
            fn from(raw: $repr) -> Self {
                Self(raw)
            }
        }

        impl From<$name> for $repr {
            fn from(flags: $name) -> Self {
                flags.0
            }
        }
    };
}

open_code! {
    /// `HeaderType`, byte 0x02 of every trace header: `TRACE_HEADER_TYPE_*` from ntwmi.h.
    ///
    /// The 32/64 in a name is the pointer width of the *provider* that logged the event, not of
    /// the session: 64-bit traces hold `FULL_HEADER32` events. See [`HeaderType::bitness`].
    pub struct HeaderType(u8) {
        /// Kernel system event from a 32-bit logger (version-first header, 0x20 bytes).
        SYSTEM32 = 0x01,
        /// Kernel system event from a 64-bit logger (version-first header, 0x20 bytes).
        SYSTEM64 = 0x02,
        /// Compact system event, 32-bit (version-first header, 0x18 bytes).
        COMPACT32 = 0x03,
        /// Compact system event, 64-bit (version-first header, 0x18 bytes).
        COMPACT64 = 0x04,
        /// `EVENT_TRACE_HEADER` from a 32-bit provider (`TraceEvent`).
        FULL_HEADER32 = 0x0A,
        /// `EVENT_INSTANCE_GUID_HEADER` from a 32-bit provider (`TraceEventInstance`).
        INSTANCE32 = 0x0B,
        /// Timed header (ntwmi.h: "Not used"; no public layout; framed size first).
        TIMED = 0x0C,
        /// Error header (ntwmi.h: "Error while logging event"; no public layout; size first).
        ERROR = 0x0D,
        /// `WNODE_HEADER` (ntwmi.h: "Not used"; no public layout; framed size first).
        WNODE_HEADER = 0x0E,
        /// `MESSAGE_TRACE_HEADER` (WPP `TraceMessage`), 8 bytes.
        MESSAGE = 0x0F,
        /// Performance info header, 32-bit (version-first, 0x10 bytes).
        PERFINFO32 = 0x10,
        /// Performance info header, 64-bit (version-first, 0x10 bytes).
        PERFINFO64 = 0x11,
        /// Manifest-based `EVENT_HEADER` from a 32-bit provider, 0x50 bytes.
        EVENT_HEADER32 = 0x12,
        /// Manifest-based `EVENT_HEADER` from a 64-bit provider, 0x50 bytes.
        EVENT_HEADER64 = 0x13,
        /// `EVENT_TRACE_HEADER` from a 64-bit provider (`TraceEvent`).
        FULL_HEADER64 = 0x14,
        /// `EVENT_INSTANCE_GUID_HEADER` from a 64-bit provider (`TraceEventInstance`).
        INSTANCE64 = 0x15,
    }
}

/// How a trace header's first four bytes are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum HeaderFamily {
    /// `u16 Size`, `u8 HeaderType`, `u8 MarkerFlags`: full, instance, event, message, error,
    /// timed and `WNODE_HEADER` headers.
    SizeFirst,
    /// `u16 Version`, `u8 HeaderType`, `u8 Flags`, then `u16 Size` at offset 4: system, compact
    /// and perfinfo headers.
    VersionFirst,
}

impl HeaderType {
    /// The provider's pointer width this header type implies, `None` for types without one.
    pub const fn bitness(self) -> Option<Bitness> {
        match self {
            Self::SYSTEM32
            | Self::COMPACT32
            | Self::FULL_HEADER32
            | Self::INSTANCE32
            | Self::PERFINFO32
            | Self::EVENT_HEADER32 => Some(Bitness::Bits32),
            Self::SYSTEM64
            | Self::COMPACT64
            | Self::FULL_HEADER64
            | Self::INSTANCE64
            | Self::PERFINFO64
            | Self::EVENT_HEADER64 => Some(Bitness::Bits64),
            _ => None,
        }
    }

    /// The length of the fixed header this type starts with, `None` for types that are unused
    /// or whose header length is not fixed.
    #[inline]
    pub const fn fixed_len(self) -> Option<usize> {
        match self {
            Self::SYSTEM32 | Self::SYSTEM64 => Some(0x20),
            Self::COMPACT32 | Self::COMPACT64 => Some(0x18),
            Self::FULL_HEADER32 | Self::FULL_HEADER64 => Some(0x30),
            Self::INSTANCE32 | Self::INSTANCE64 => Some(0x48),
            Self::MESSAGE => Some(0x08),
            Self::PERFINFO32 | Self::PERFINFO64 => Some(0x10),
            Self::EVENT_HEADER32 | Self::EVENT_HEADER64 => Some(0x50),
            _ => None,
        }
    }

    /// Where `Size` sits in a header of this type, `None` for types no document names.
    ///
    /// `TIMED` (0x0C), `ERROR` (0x0D) and `WNODE_HEADER` (0x0E) have no public layout: ntwmi.h
    /// comments `TIMED` and `WNODE_HEADER` "Not used" and `ERROR` "Error while logging event",
    /// and names `EVENT_HEADER_ERROR = 0xC00D`, a marker built like `EVENT_HEADER_EVENT32`/`64`
    /// (`Size` at 0, marker at 2). All three are framed size first, their `u16` at 0 read as
    /// `Size`, with no fixed header beyond the four marker bytes, so a walk can step over them
    /// and hand their bytes on undecoded.
    #[inline]
    pub const fn family(self) -> Option<HeaderFamily> {
        match self {
            Self::SYSTEM32
            | Self::SYSTEM64
            | Self::COMPACT32
            | Self::COMPACT64
            | Self::PERFINFO32
            | Self::PERFINFO64 => Some(HeaderFamily::VersionFirst),
            Self::FULL_HEADER32
            | Self::FULL_HEADER64
            | Self::INSTANCE32
            | Self::INSTANCE64
            | Self::TIMED
            | Self::ERROR
            | Self::WNODE_HEADER
            | Self::MESSAGE
            | Self::EVENT_HEADER32
            | Self::EVENT_HEADER64 => Some(HeaderFamily::SizeFirst),
            _ => None,
        }
    }

    /// The full-header type for a provider of the given bitness.
    pub const fn full_header(bitness: Bitness) -> Self {
        match bitness {
            Bitness::Bits32 => Self::FULL_HEADER32,
            Bitness::Bits64 => Self::FULL_HEADER64,
        }
    }

    /// The instance-header type for a provider of the given bitness.
    pub const fn instance(bitness: Bitness) -> Self {
        match bitness {
            Bitness::Bits32 => Self::INSTANCE32,
            Bitness::Bits64 => Self::INSTANCE64,
        }
    }
}

open_flags! {
    /// `MarkerFlags`, byte 0x03 of a trace header (the high byte of the first `u32`, ntwmi.h).
    ///
    /// "They are distinguished from the WNODE_HEADER by making its 32-bit BufferSize look
    /// implausible for having its highest bit set" (Chappell): every trace header has
    /// `TRACE_HEADER_FLAG`; classic events also have `TRACE_HEADER_EVENT_TRACE`.
    pub struct MarkerFlags(u8) {
        /// `TRACE_HEADER_FLAG` (0x80000000 in the first `u32`): a trace header, not a `WNODE_HEADER`.
        TRACE_HEADER_FLAG = 0x80,
        /// `TRACE_HEADER_EVENT_TRACE` (0x40000000): an event trace header.
        TRACE_HEADER_EVENT_TRACE = 0x40,
        /// `TRACE_MESSAGE` (0x10000000): a message (WPP) header; marker byte 0x90.
        TRACE_MESSAGE = 0x10,
    }
}

impl MarkerFlags {
    /// `TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE` (0xC0): what a classic full or instance
    /// header carries, and what `parse` of one requires.
    pub const EVENT_TRACE_HEADER: Self = Self(0xC0);

    /// Whether both bits of [`MarkerFlags::EVENT_TRACE_HEADER`] are set.
    pub const fn is_event_trace_header(self) -> bool {
        self.contains(Self::EVENT_TRACE_HEADER)
    }
}

open_code! {
    /// `Class.Type`, the event type: `EVENT_TRACE_TYPE_*` from evntrace.h.
    ///
    /// "Provider-defined types should start at 10"; the kernel's own classes reuse 10 and up
    /// with class-specific meanings (`EVENT_TRACE_TYPE_IO_READ`, ...), which are not named here.
    /// `STOP`, `RESUME` and `SUSPEND` are aliases of `END`, `DEQUEUE` and `CHECKPOINT`.
    pub struct EventType(u8) {
        /// Informational event; the default type.
        INFO = 0x00,
        /// Start of a multi-step activity.
        START = 0x01,
        /// End of a multi-step activity (alias `STOP`).
        END = 0x02,
        /// Data collection start.
        DC_START = 0x03,
        /// Data collection end.
        DC_END = 0x04,
        /// Continuation of a previous event.
        EXTENSION = 0x05,
        /// One of several replies to a request.
        REPLY = 0x06,
        /// Work on a queued item begins (alias `RESUME`).
        DEQUEUE = 0x07,
        /// A step between start and end (alias `SUSPEND`).
        CHECKPOINT = 0x08,
        /// Event-log send.
        WINEVT_SEND = 0x09,
        /// Event-log receive.
        WINEVT_RECEIVE = 0xF0,
    }
}

impl EventType {
    /// `EVENT_TRACE_TYPE_STOP`, the same value as [`EventType::END`].
    pub const STOP: Self = Self::END;
    /// `EVENT_TRACE_TYPE_RESUME`, the same value as [`EventType::DEQUEUE`].
    pub const RESUME: Self = Self::DEQUEUE;
    /// `EVENT_TRACE_TYPE_SUSPEND`, the same value as [`EventType::CHECKPOINT`].
    pub const SUSPEND: Self = Self::CHECKPOINT;
    /// The first value left to providers for their own types.
    pub const FIRST_PROVIDER_DEFINED: Self = Self(10);

    /// Whether the value is at or above 10, where provider-defined types start
    /// ([`EventType::WINEVT_RECEIVE`] is the one predefined type up there).
    pub const fn is_provider_defined(self) -> bool {
        self.0 >= Self::FIRST_PROVIDER_DEFINED.0 && self.0 != Self::WINEVT_RECEIVE.0
    }
}

open_code! {
    /// `Class.Level`, the severity: `TRACE_LEVEL_*` from evntrace.h ("The value ranges from 0 to 255").
    pub struct Level(u8) {
        /// Tracing is not on.
        NONE = 0,
        /// Abnormal exit or termination (alias `FATAL`).
        CRITICAL = 1,
        /// Severe error.
        ERROR = 2,
        /// Warning, such as an allocation failure.
        WARNING = 3,
        /// Non-error event, such as entry or exit.
        INFORMATION = 4,
        /// Detailed trace event.
        VERBOSE = 5,
        /// Reserved.
        RESERVED6 = 6,
        /// Reserved.
        RESERVED7 = 7,
        /// Reserved.
        RESERVED8 = 8,
        /// Reserved.
        RESERVED9 = 9,
    }
}

impl Level {
    /// `TRACE_LEVEL_FATAL`, the same value as [`Level::CRITICAL`].
    pub const FATAL: Self = Self::CRITICAL;

    /// Whether a session enabled at level `self` takes an event logged at `event`.
    ///
    /// The rule (EVENT_INSTANCE_HEADER, Class.Level): "Selecting a level higher than 1 will also
    /// include events for lower levels. For example, if the controller specifies
    /// TRACE_LEVEL_WARNING (3), the provider also generates TRACE_LEVEL_FATAL (1) and
    /// TRACE_LEVEL_ERROR (2) events." So enabling level N takes levels 1..=N. An event of level 0
    /// carries no severity and is taken by any enabled session; a session enabled at
    /// [`Level::NONE`] takes nothing ("Tracing is not on").
    #[inline]
    pub const fn enables(self, event: Level) -> bool {
        self.0 != Self::NONE.0 && event.0 <= self.0
    }
}

open_flags! {
    /// `WNODE_HEADER.Flags` bits (`WNODE_FLAG_*`, wmistr.h), as carried in the `Flags` member of
    /// the event headers' 0x28 union on input to `TraceEvent` and `TraceEventInstance`.
    pub struct WnodeFlags(u32) {
        /// `WNODE_FLAG_ALL_DATA`
        ALL_DATA = 0x0000_0001,
        /// `WNODE_FLAG_SINGLE_INSTANCE`
        SINGLE_INSTANCE = 0x0000_0002,
        /// `WNODE_FLAG_SINGLE_ITEM`
        SINGLE_ITEM = 0x0000_0004,
        /// `WNODE_FLAG_EVENT_ITEM`
        EVENT_ITEM = 0x0000_0008,
        /// `WNODE_FLAG_FIXED_INSTANCE_SIZE`
        FIXED_INSTANCE_SIZE = 0x0000_0010,
        /// `WNODE_FLAG_TOO_SMALL`
        TOO_SMALL = 0x0000_0020,
        /// `WNODE_FLAG_INSTANCES_SAME`
        INSTANCES_SAME = 0x0000_0040,
        /// `WNODE_FLAG_STATIC_INSTANCE_NAMES`
        STATIC_INSTANCE_NAMES = 0x0000_0080,
        /// `WNODE_FLAG_INTERNAL`
        INTERNAL = 0x0000_0100,
        /// `WNODE_FLAG_USE_TIMESTAMP`: the provider set `TimeStamp` itself.
        USE_TIMESTAMP = 0x0000_0200,
        /// `WNODE_FLAG_PERSIST_EVENT`
        PERSIST_EVENT = 0x0000_0400,
        /// `WNODE_FLAG_EVENT_REFERENCE`
        EVENT_REFERENCE = 0x0000_2000,
        /// `WNODE_FLAG_ANSI_INSTANCENAMES`
        ANSI_INSTANCENAMES = 0x0000_4000,
        /// `WNODE_FLAG_METHOD_ITEM`
        METHOD_ITEM = 0x0000_8000,
        /// `WNODE_FLAG_PDO_INSTANCE_NAMES`
        PDO_INSTANCE_NAMES = 0x0001_0000,
        /// `WNODE_FLAG_TRACED_GUID`: required on `TraceEvent` and `TraceEventInstance`.
        TRACED_GUID = 0x0002_0000,
        /// `WNODE_FLAG_LOG_WNODE`
        LOG_WNODE = 0x0004_0000,
        /// `WNODE_FLAG_USE_GUID_PTR`: `GuidPtr` holds the address of the class GUID.
        USE_GUID_PTR = 0x0008_0000,
        /// `WNODE_FLAG_USE_MOF_PTR`: the data is an array of `MOF_FIELD`s (at most `MAX_MOF_FIELDS`).
        USE_MOF_PTR = 0x0010_0000,
        /// `WNODE_FLAG_NO_HEADER`
        NO_HEADER = 0x0020_0000,
        /// `WNODE_FLAG_SEND_DATA_BLOCK`
        SEND_DATA_BLOCK = 0x0040_0000,
        /// `WNODE_FLAG_VERSIONED_PROPERTIES`
        VERSIONED_PROPERTIES = 0x0080_0000,
        /// `WNODE_FLAG_SEVERITY_MASK`: the high byte.
        SEVERITY_MASK = 0xFF00_0000,
    }
}

open_code! {
    /// `COMPRESSION_FORMAT_*` (ntifs.h, the format argument of `RtlCompressBuffer` and
    /// `RtlDecompressBufferEx`), as the low 16 bits of a compressed trace buffer's `State`
    /// (`WMI_BUFFER_HEADER` offset 0x2C) may name it (the .etl reader's
    /// `EtlBuffer::compression_format` says what is and is not known about that word).
    pub struct CompressionFormat(u16) {
        /// `COMPRESSION_FORMAT_NONE`: "Not supported by this function" (`RtlCompressBuffer`).
        NONE = 0,
        /// `COMPRESSION_FORMAT_DEFAULT`: "Not supported by this function".
        DEFAULT = 1,
        /// `COMPRESSION_FORMAT_LZNT1`: MS-XCA section 2.5.
        LZNT1 = 2,
        /// `COMPRESSION_FORMAT_XPRESS`: MS-XCA "Plain LZ77", sections 2.3 and 2.4, the format
        /// of every compressed buffer of the real traces this crate is tested with.
        XPRESS = 3,
        /// `COMPRESSION_FORMAT_XPRESS_HUFF`: MS-XCA "LZ77+Huffman", sections 2.1 and 2.2.
        XPRESS_HUFF = 4,
    }
}

/// `MAX_MOF_FIELDS` (evntrace.h): the most `MOF_FIELD`s one `WNODE_FLAG_USE_MOF_PTR` event may carry.
pub const MAX_MOF_FIELDS: usize = 16;

open_flags! {
    /// `EVENT_HEADER.Flags`: the `EVENT_HEADER_FLAG_*` bits (evntcons.h; `DECODE_GUID` and
    /// `RESERVED1` from the Windows SDK metadata of windows-rs).
    ///
    /// In the events of real trace buffers only [`EXTENDED_INFO`](Self::EXTENDED_INFO) has been
    /// seen (Flags 0 or 1 in all 108,716 `EVENT_HEADER` events of the PerfView sample traces);
    /// the consumer's `EVENT_RECORD` gets the others from `ProcessTrace` (the 32/64-bit bits from
    /// the header type, `CLASSIC_HEADER` for classic events). Every bit read is kept.
    pub struct EventHeaderFlags(u16) {
        /// `EVENT_HEADER_FLAG_EXTENDED_INFO`: extended data items follow the header.
        EXTENDED_INFO = 0x0001,
        /// `EVENT_HEADER_FLAG_PRIVATE_SESSION`: "The event was logged to a private session";
        /// the CPU time is in `ProcessorTime`.
        PRIVATE_SESSION = 0x0002,
        /// `EVENT_HEADER_FLAG_STRING_ONLY`: the user data is a NUL-terminated UTF-16 string.
        STRING_ONLY = 0x0004,
        /// `EVENT_HEADER_FLAG_TRACE_MESSAGE`: the provider called `TraceMessage`.
        TRACE_MESSAGE = 0x0008,
        /// `EVENT_HEADER_FLAG_NO_CPUTIME`: "elapsed execution time was not recorded"; the
        /// `ProcessorTime` member "can be used to store other information".
        NO_CPUTIME = 0x0010,
        /// `EVENT_HEADER_FLAG_32_BIT_HEADER`: the provider ran on a 32-bit computer or in a
        /// WOW64 process.
        HEADER_32_BIT = 0x0020,
        /// `EVENT_HEADER_FLAG_64_BIT_HEADER`: the provider ran on a 64-bit computer.
        HEADER_64_BIT = 0x0040,
        /// `EVENT_HEADER_FLAG_DECODE_GUID`: `ProviderId` holds the decode GUID, not the
        /// control GUID ([MS-DTYP] 2.3.2).
        DECODE_GUID = 0x0080,
        /// `EVENT_HEADER_FLAG_CLASSIC_HEADER`: the provider used `TraceEvent` (a classic event).
        CLASSIC_HEADER = 0x0100,
        /// `EVENT_HEADER_FLAG_PROCESSOR_INDEX`: the buffer context holds a processor index.
        PROCESSOR_INDEX = 0x0200,
        /// `EVENT_HEADER_FLAG_RESERVED1`.
        RESERVED1 = 0x0400,
    }
}

open_code! {
    /// `EVENT_HEADER_EXTENDED_DATA_ITEM.ExtType`: the `EVENT_HEADER_EXT_TYPE_*` values
    /// (evntcons.h; 0x0E and up from the Windows SDK metadata of windows-rs and TraceEvent).
    /// `EVENT_HEADER_EXT_TYPE_MAX` (0x13 today, 9 in older headers) is a sentinel, not a type,
    /// and is not named here. Any other value is kept.
    pub struct EventHeaderExtType(u16) {
        /// `EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID`: a GUID, the activity this one relates to.
        RELATED_ACTIVITYID = 0x0001,
        /// `EVENT_HEADER_EXT_TYPE_SID`: the security identifier of the user that logged it.
        SID = 0x0002,
        /// `EVENT_HEADER_EXT_TYPE_TS_ID`: the terminal session id, a `u32`.
        TS_ID = 0x0003,
        /// `EVENT_HEADER_EXT_TYPE_INSTANCE_INFO`: `EVENT_EXTENDED_ITEM_INSTANCE`.
        INSTANCE_INFO = 0x0004,
        /// `EVENT_HEADER_EXT_TYPE_STACK_TRACE32`: `EVENT_EXTENDED_ITEM_STACK_TRACE32`.
        STACK_TRACE32 = 0x0005,
        /// `EVENT_HEADER_EXT_TYPE_STACK_TRACE64`: `EVENT_EXTENDED_ITEM_STACK_TRACE64`.
        STACK_TRACE64 = 0x0006,
        /// `EVENT_HEADER_EXT_TYPE_PEBS_INDEX`: `EVENT_EXTENDED_ITEM_PEBS_INDEX`, a `u64`.
        PEBS_INDEX = 0x0007,
        /// `EVENT_HEADER_EXT_TYPE_PMC_COUNTERS`: `EVENT_EXTENDED_ITEM_PMC_COUNTERS`, `u64`s.
        PMC_COUNTERS = 0x0008,
        /// `EVENT_HEADER_EXT_TYPE_PSM_KEY`: no public struct.
        PSM_KEY = 0x0009,
        /// `EVENT_HEADER_EXT_TYPE_EVENT_KEY`: `EVENT_EXTENDED_ITEM_EVENT_KEY`, a `u64`.
        EVENT_KEY = 0x000A,
        /// `EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL`: the TraceLogging event metadata.
        EVENT_SCHEMA_TL = 0x000B,
        /// `EVENT_HEADER_EXT_TYPE_PROV_TRAITS`: the provider traits (name and traits).
        PROV_TRAITS = 0x000C,
        /// `EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY`: `EVENT_EXTENDED_ITEM_PROCESS_START_KEY`, a `u64`.
        PROCESS_START_KEY = 0x000D,
        /// `EVENT_HEADER_EXT_TYPE_CONTROL_GUID`: no public struct.
        CONTROL_GUID = 0x000E,
        /// `EVENT_HEADER_EXT_TYPE_QPC_DELTA`: no public struct.
        QPC_DELTA = 0x000F,
        /// `EVENT_HEADER_EXT_TYPE_CONTAINER_ID`: no public struct.
        CONTAINER_ID = 0x0010,
        /// `EVENT_HEADER_EXT_TYPE_STACK_KEY32`: `EVENT_EXTENDED_ITEM_STACK_KEY32`.
        STACK_KEY32 = 0x0011,
        /// `EVENT_HEADER_EXT_TYPE_STACK_KEY64`: `EVENT_EXTENDED_ITEM_STACK_KEY64`.
        STACK_KEY64 = 0x0012,
    }
}
