//! What the three "version first" headers of kernel events share: `SYSTEM_TRACE_HEADER`
//! (`SYSTEM32`/`SYSTEM64`), its compact form (`COMPACT32`/`COMPACT64`) and
//! `PERFINFO_TRACE_HEADER` (`PERFINFO32`/`PERFINFO64`).
//!
//! All three begin with the same eight bytes (ntwmi.h; Geoff Chappell's `WMI_TRACE_PACKET` page):
//! the `Marker` union {`USHORT Version`, `UCHAR HeaderType`, `UCHAR Flags`}, then the `Header`
//! union, a `WMI_TRACE_PACKET` {`USHORT Size`, `USHORT HookId` | {`UCHAR Type`, `UCHAR Group`}}.
//! This module holds that prefix once: its offsets, the [`HookId`] and [`EventTraceGroup`] it
//! carries, the [`ExtraWords`] its `Version` announces after the fixed header, and
//! `version_first_header!`, which writes each of the three structs (members, offset table,
//! codec, checks and views) from the list of the members that follow the prefix.

use crate::invariant::known;
use crate::wire::codes::EventType;
use crate::wire::error::CodecError;
use crate::wire::layout::Layout;

/// Byte offsets of the prefix every version-first header starts with, named after ntwmi.h. The
/// members of each header continue from `hook_id`.
#[rustfmt::skip]
#[allow(non_upper_case_globals)]
pub(crate) mod offset {
    use crate::wire::field::Field;

    pub(crate) const version: Field<0, 2> = Field::at(0x00); //                      Marker: USHORT Version
    pub(crate) const header_type: Field<{ version.end() }, 1> = Field::at(0x02); //  Marker: UCHAR HeaderType
    pub(crate) const flags: Field<{ header_type.end() }, 1> = Field::at(0x03); //    Marker: UCHAR Flags
    pub(crate) const size: Field<{ flags.end() }, 2> = Field::at(0x04); //           Packet: USHORT Size
    pub(crate) const hook_id: Field<{ size.end() }, 2> = Field::at(0x06); //         Packet: USHORT HookId | UCHAR Type, Group

    /// What `parse` checks: marker flags, header type and `Size`.
    pub(crate) const CHECKED: crate::wire::field::CheckedFields<
        { size.start() },
        { header_type.start() },
        { flags.start() },
    > = crate::wire::field::CheckedFields {
        size,
        header_type,
        marker_flags: flags,
    };
}

open_code! {
    /// `Packet.Group`, the high byte of a kernel event's `HookId`: which kernel subsystem (and so
    /// which event class GUID) logged it. The `EVENT_TRACE_GROUP_*` values of ntwmi.h shifted
    /// right by 8 (System Informer's `phnt/include/ntwmi.h` @ 103cc43d, whose comments give each
    /// group's class GUID: `EVENT_TRACE_GROUP_IO 0x0100 // DiskIoGuid`, ...).
    ///
    /// Older headers gave some values other names (0x07 `IPXSPX`, later `SPARE0`, now `JOB`; 0x14
    /// `TBD`, now `IMAGE`; 0x16 `SPARE3`, now `CC`); the names here are the current ones.
    pub struct EventTraceGroup(u8) {
        /// `EVENT_TRACE_GROUP_HEADER` (0x0000): the logfile header and other events of the
        /// logger itself (`EventTraceGuid`).
        HEADER = 0x00,
        /// `EVENT_TRACE_GROUP_IO` (0x0100): disk I/O (`DiskIoGuid`).
        IO = 0x01,
        /// `EVENT_TRACE_GROUP_MEMORY` (0x0200): page faults (`PageFaultGuid`).
        MEMORY = 0x02,
        /// `EVENT_TRACE_GROUP_PROCESS` (0x0300): processes (`ProcessGuid`).
        PROCESS = 0x03,
        /// `EVENT_TRACE_GROUP_FILE` (0x0400): file I/O (`FileIoGuid`).
        FILE = 0x04,
        /// `EVENT_TRACE_GROUP_THREAD` (0x0500): threads (`ThreadGuid`).
        THREAD = 0x05,
        /// `EVENT_TRACE_GROUP_TCPIP` (0x0600): TCP/IP (`TcpIpGuid`).
        TCPIP = 0x06,
        /// `EVENT_TRACE_GROUP_JOB` (0x0700): jobs (`JobGuid`).
        JOB = 0x07,
        /// `EVENT_TRACE_GROUP_UDPIP` (0x0800): UDP/IP (`UdpIpGuid`).
        UDPIP = 0x08,
        /// `EVENT_TRACE_GROUP_REGISTRY` (0x0900): the registry (`RegistryGuid`).
        REGISTRY = 0x09,
        /// `EVENT_TRACE_GROUP_DBGPRINT` (0x0A00): debug prints (`DbgPrintGuid`).
        DBGPRINT = 0x0A,
        /// `EVENT_TRACE_GROUP_CONFIG` (0x0B00): hardware configuration (`EventTraceConfigGuid`).
        CONFIG = 0x0B,
        /// `EVENT_TRACE_GROUP_SPARE1` (0x0C00).
        SPARE1 = 0x0C,
        /// `EVENT_TRACE_GROUP_WNF` (0x0D00): notifications (`WnfGuid`).
        WNF = 0x0D,
        /// `EVENT_TRACE_GROUP_POOL` (0x0E00): pool allocations (`PoolGuid`).
        POOL = 0x0E,
        /// `EVENT_TRACE_GROUP_PERFINFO` (0x0F00): profiling, interrupts, system calls (`PerfinfoGuid`).
        PERFINFO = 0x0F,
        /// `EVENT_TRACE_GROUP_HEAP` (0x1000): heaps (`HeapGuid`).
        HEAP = 0x10,
        /// `EVENT_TRACE_GROUP_OBJECT` (0x1100): kernel objects (`ObjectGuid`).
        OBJECT = 0x11,
        /// `EVENT_TRACE_GROUP_POWER` (0x1200): power (`PowerGuid`).
        POWER = 0x12,
        /// `EVENT_TRACE_GROUP_MODBOUND` (0x1300): module boundaries (`ModBoundGuid`).
        MODBOUND = 0x13,
        /// `EVENT_TRACE_GROUP_IMAGE` (0x1400): image loads (`ImageLoadGuid`).
        IMAGE = 0x14,
        /// `EVENT_TRACE_GROUP_DPC` (0x1500): deferred procedure calls (`DpcGuid`).
        DPC = 0x15,
        /// `EVENT_TRACE_GROUP_CC` (0x1600): the cache manager (`CcGuid`).
        CC = 0x16,
        /// `EVENT_TRACE_GROUP_CRITSEC` (0x1700): critical sections (`CritSecGuid`).
        CRITSEC = 0x17,
        /// `EVENT_TRACE_GROUP_STACKWALK` (0x1800): stack walks (`StackWalkGuid`).
        STACKWALK = 0x18,
        /// `EVENT_TRACE_GROUP_UMS` (0x1900): user-mode scheduling (`UmsTraceGuid`).
        UMS = 0x19,
        /// `EVENT_TRACE_GROUP_ALPC` (0x1A00): ALPC (`ALPCGuid`).
        ALPC = 0x1A,
        /// `EVENT_TRACE_GROUP_SPLITIO` (0x1B00): split I/O (`SplitIoGuid`).
        SPLITIO = 0x1B,
        /// `EVENT_TRACE_GROUP_THREAD_POOL` (0x1C00): thread pools (`ThreadPoolGuid`).
        THREAD_POOL = 0x1C,
        /// `EVENT_TRACE_GROUP_HYPERVISOR` (0x1D00): the hypervisor (`HypervisorTraceGuid`).
        HYPERVISOR = 0x1D,
        /// `EVENT_TRACE_GROUP_HYPERVISORX` (0x1E00): the hypervisor (`HypervisorXTraceGuid`).
        HYPERVISORX = 0x1E,
    }
}

/// `Packet.HookId` of a version-first header, bytes 6..8: which kernel event this is, as
/// `Packet.Type` (the low byte, the event type within its group) and `Packet.Group` (the high
/// byte, an [`EventTraceGroup`]) (ntwmi.h `WMI_TRACE_PACKET`; Chappell).
///
/// The value is kept whole, so any `u16` round-trips. ntwmi.h builds hook ids as
/// `EVENT_TRACE_GROUP_* | EVENT_TRACE_TYPE_*` (`WMI_LOG_TYPE_HEADER = EVENT_TRACE_GROUP_HEADER |
/// EVENT_TRACE_TYPE_INFO`, 0x0000, the logfile header event).
///
/// ```
/// use etw_classic::wire::{EventTraceGroup, HookId};
/// // The PERFINFO64 event at offset 0x58 of buffer 5 of net.4.5.2.x64.etl: an image event.
/// let hook = HookId(0x1403);
/// assert_eq!((hook.group(), hook.event_type().0), (EventTraceGroup::IMAGE, 3));
/// assert_eq!(HookId::new(EventTraceGroup::IMAGE, 3), hook);
/// assert_eq!(format!("{hook:?}"), "HookId(IMAGE, type 3)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HookId(pub u16);

impl HookId {
    /// The hook id of `event_type` in `group`: `Group << 8 | Type`.
    pub const fn new(group: EventTraceGroup, event_type: u8) -> Self {
        Self(u16::from_le_bytes([event_type, group.0]))
    }

    /// `Packet.Type`, the low byte: the event's type within its group (`EVENT_TRACE_TYPE_*` for
    /// the generic ones, class-specific values from 10 up).
    pub const fn event_type(self) -> EventType {
        let [event_type, _] = self.0.to_le_bytes();
        EventType(event_type)
    }

    /// `Packet.Group`, the high byte: the kernel subsystem that logged the event.
    pub const fn group(self) -> EventTraceGroup {
        let [_, group] = self.0.to_le_bytes();
        EventTraceGroup(group)
    }
}

impl core::fmt::Debug for HookId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "HookId({:?}, type {})",
            self.group(),
            self.event_type().0
        )
    }
}

impl From<u16> for HookId {
    fn from(raw: u16) -> Self {
        Self(raw)
    }
}

impl From<HookId> for u16 {
    fn from(hook: HookId) -> Self {
        hook.0
    }
}

/// The extra header words a version-first header's `Version` announces: a PEBS index, then PMC
/// counters, each a little-endian `u64`, between the fixed header and the event data (ntwmi.h):
///
/// | bits of `Version` | ntwmi.h | announces |
/// |---|---|---|
/// | 0x8000 | `TRACE_HEADER_PEBS_INDEX_FLAG` | one `u64` PEBS index, first |
/// | 0x0700 (>> 8) | `TRACE_HEADER_PMC_COUNTERS_MASK`, `..._SHIFT` 8 | that many (0 to 7) `u64` PMC counter values, after it |
/// | 0x7800 | `TRACE_HEADER_SPARE_FLAG1..4` | nothing known |
///
/// `Size` covers them: the event data starts after the fixed header and these words, and ends
/// at `Size`. The order (PEBS index first) is snail-server's (`perfinfo_trace.hpp`); dissect.etl
/// only counts the bytes. They are what a consumer receives as the `EVENT_HEADER_EXT_TYPE_PEBS_INDEX`
/// and `EVENT_HEADER_EXT_TYPE_PMC_COUNTERS` extended items.
///
/// **Which headers carry them.** Sources disagree: snail-server reads the words after
/// `PERFINFO` headers only, while dissect.etl 3.14 (`SystemSpecificHeader._additional_header_bytes`)
/// reads them after `SYSTEM`, `COMPACT` and `PERFINFO` headers alike. ntwmi.h defines the bits
/// once, as `TRACE_HEADER_*` bits of the `Version` word all three headers start with, with no
/// restriction to one kind. This crate follows dissect.etl and ntwmi.h: all three. No sample trace
/// settles it: in the PerfView samples every `SYSTEM` and `PERFINFO` `Version` is 2, 3 or 4, so
/// no event has extra words, and none has a `COMPACT` header. Either way nothing is lost: the
/// `Version` member keeps every bit, and the bytes are the same.
///
/// ```
/// use etw_classic::{wire::ExtraWords, Layout};
/// // Version 2 with the PEBS flag and two PMC counters, then two bytes of event data.
/// let version = 0x8000 | 0x0200 | 2;
/// let mut body = [0u8; 26];
/// body[..8].copy_from_slice(&7u64.to_le_bytes());
/// body[8..16].copy_from_slice(&100u64.to_le_bytes());
/// body[16..24].copy_from_slice(&200u64.to_le_bytes());
/// let (extra, data) = ExtraWords::split(Layout::PerfInfoTraceHeader, version, &body)?;
/// assert_eq!(extra.pebs_index(), Some(7));
/// assert!(extra.pmc_counters().eq([100, 200]));
/// assert_eq!(data.len(), 2);
/// assert!(ExtraWords::split(Layout::PerfInfoTraceHeader, version, &body[..16]).is_err());
/// # Ok::<(), etw_classic::CodecError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExtraWords<'a> {
    /// Whether the first word is a PEBS index.
    has_pebs_index: bool,
    /// The words, exactly as many bytes as `Version` announces.
    bytes: &'a [u8],
}

impl<'a> ExtraWords<'a> {
    /// `TRACE_HEADER_PEBS_INDEX_FLAG` (0x8000): a PEBS index follows the fixed header.
    pub const PEBS_INDEX_FLAG: u16 = 0x8000;
    /// `TRACE_HEADER_PMC_COUNTERS_MASK` (0x0700): how many PMC counters follow.
    pub const PMC_COUNTERS_MASK: u16 = 0x0700;
    /// `TRACE_HEADER_PMC_COUNTERS_SHIFT` (8).
    pub const PMC_COUNTERS_SHIFT: u32 = 8;
    /// `TRACE_HEADER_EXT_ITEMS_MASK` (0x8700): every bit of `Version` that announces words.
    pub const EXT_ITEMS_MASK: u16 = Self::PEBS_INDEX_FLAG | Self::PMC_COUNTERS_MASK;
    /// Bytes in each word.
    pub const WORD_LEN: usize = 8;

    /// No words: what a `Version` without [`EXT_ITEMS_MASK`](Self::EXT_ITEMS_MASK) bits announces.
    pub const EMPTY: Self = Self {
        has_pebs_index: false,
        bytes: &[],
    };

    /// Whether `version` announces a PEBS index.
    pub const fn announces_pebs_index(version: u16) -> bool {
        version & Self::PEBS_INDEX_FLAG != 0
    }

    /// How many PMC counters `version` announces, 0 to 7.
    pub fn announced_pmc_count(version: u16) -> usize {
        let [_, high] = (version & Self::PMC_COUNTERS_MASK).to_le_bytes();
        // The mask keeps three bits of the high byte: 0 to 7.
        usize::from(high)
    }

    /// Bytes of words `version` announces: 8 for a PEBS index, 8 per PMC counter (at most 64).
    pub fn announced_len(version: u16) -> usize {
        let words = Self::announced_pmc_count(version)
            .wrapping_add(usize::from(Self::announces_pebs_index(version)));
        words.wrapping_mul(Self::WORD_LEN)
    }

    /// `version` without the bits that announce words (snail-server's "true version",
    /// `Version & ~0x8700`).
    pub const fn version_number(version: u16) -> u16 {
        version & !Self::EXT_ITEMS_MASK
    }

    /// Splits the words `version` announces off the front of `body` (the bytes of the event
    /// after its fixed header, up to `Size`), and returns them with the event data after them.
    ///
    /// # Errors
    /// [`CodecError::AnnouncedBeyondSize`] for the member `Version` of `layout` when the words do
    /// not fit in `body`.
    #[inline]
    pub fn split(
        layout: Layout,
        version: u16,
        body: &'a [u8],
    ) -> Result<(Self, &'a [u8]), CodecError> {
        if version & Self::EXT_ITEMS_MASK == 0 {
            return Ok((Self::EMPTY, body));
        }
        let needed = Self::announced_len(version);
        let (bytes, data) =
            body.split_at_checked(needed)
                .ok_or(CodecError::AnnouncedBeyondSize {
                    layout,
                    member: "Version",
                    needed,
                    available: body.len(),
                })?;
        let has_pebs_index = Self::announces_pebs_index(version);
        Ok((
            Self {
                has_pebs_index,
                bytes,
            },
            data,
        ))
    }

    /// The PEBS index, when `Version` announces one.
    pub fn pebs_index(&self) -> Option<u64> {
        if !self.has_pebs_index {
            return None;
        }
        self.bytes
            .first_chunk()
            .map(|word| u64::from_le_bytes(*word))
    }

    /// The PMC counter values, in order.
    pub fn pmc_counters(&self) -> PmcCounters<'a> {
        let skip = if self.has_pebs_index {
            Self::WORD_LEN
        } else {
            0
        };
        PmcCounters {
            // The words hold the PEBS index their `Version` announces.
            rest: known(self.bytes.get(skip..), &[]),
        }
    }

    /// The words as they are stored: what an encoder writes back after the fixed header.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Bytes of words.
    pub const fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are no words (the common case: no sample trace has any).
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// The PMC counter values of [`ExtraWords::pmc_counters`], each a little-endian `u64`.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PmcCounters<'a> {
    /// The counters not yet yielded, a multiple of 8 bytes.
    rest: &'a [u8],
}

impl Iterator for PmcCounters<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let (word, rest) = self.rest.split_first_chunk::<8>()?;
        self.rest = rest;
        Some(u64::from_le_bytes(*word))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len();
        (left, Some(left))
    }
}

impl ExactSizeIterator for PmcCounters<'_> {
    fn len(&self) -> usize {
        self.rest.len() / ExtraWords::WORD_LEN
    }
}

impl DoubleEndedIterator for PmcCounters<'_> {
    fn next_back(&mut self) -> Option<u64> {
        let (rest, word) = self.rest.split_last_chunk::<8>()?;
        self.rest = rest;
        Some(u64::from_le_bytes(*word))
    }
}

impl core::iter::FusedIterator for PmcCounters<'_> {}

/// One version-first header struct from the list of the members after the eight-byte prefix:
/// the struct (the prefix's five members, then the listed ones), its offset table (module
/// `offset`: the prefix's offsets, then each listed member where the one before it ends, the
/// last ending at the struct's length), its rustdoc table, `LEN`, `LAYOUT`, `HEADER_TYPES`,
/// `from_bytes`, `to_bytes`, `parse` (marker flags 0xC0, one of the two header types, a `Size`
/// that covers the header), `parse_event`, `emit`, the `Marker`/`Header`/`HookId` views and
/// `split_extra_words`.
///
/// Each member is written `name: Type[N] @ AT => "SdkName",` after its doc: `N` bytes read and
/// written by `Type`'s `Member` implementation, at the offset `AT` the sources give (checked at
/// compile time against the offset the order and widths give).
macro_rules! version_first_header {
    (
        $(#[$attr:meta])*
        pub struct $name:ident = $layout:ident, [$type32:ident, $type64:ident] {
            $(
                $(#[$doc:meta])*
                $field:ident: $ty:ty [$len:tt] @ $at:tt => $sdk:literal,
            )*
        }
    ) => {
        /// Where the members lie: the version-first prefix, then each member where the one before
        /// it ends.
        #[allow(non_upper_case_globals)]
        mod offset {
            pub(super) use $crate::wire::headers::version_first::offset::{
                flags, header_type, hook_id, size, version, CHECKED,
            };
            $crate::wire::headers::version_first::version_first_header!(
                @offsets $name [hook_id] $($field $len $at,)*
            );
        }

        $(#[$attr])*
        #[doc = ""]
        #[doc = "| off | size | member | field |"]
        #[doc = "|---|---|---|---|"]
        #[doc = "| 0x00 | 2 | `Marker.Version` | [`version`](Self::version) |"]
        #[doc = "| 0x02 | 1 | `Marker.HeaderType` | [`header_type`](Self::header_type) |"]
        #[doc = "| 0x03 | 1 | `Marker.Flags` | [`flags`](Self::flags) |"]
        #[doc = "| 0x04 | 2 | `Packet.Size` | [`size`](Self::size) |"]
        #[doc = "| 0x06 | 2 | `Packet.HookId` \\| `Packet.Type`+`Packet.Group` | [`hook_id`](Self::hook_id) |"]
        $(#[doc = concat!(
            "| ", stringify!($at), " | ", stringify!($len), " | `", $sdk, "` | [`",
            stringify!($field), "`](Self::", stringify!($field), ") |"
        )])*
        #[doc = ""]
        #[doc = "The unions are flattened into their finest members; [`marker`](Self::marker),"]
        #[doc = "[`header`](Self::header), [`hook`](Self::hook), [`hook_type`](Self::hook_type) and"]
        #[doc = "[`hook_group`](Self::hook_group) give the other views. [`from_bytes`](Self::from_bytes)"]
        #[doc = "takes any bytes and [`to_bytes`](Self::to_bytes) gives them back unchanged;"]
        #[doc = "[`parse`](Self::parse) checks that the bytes are this header as a trace buffer holds"]
        #[doc = "it; [`split_extra_words`](Self::split_extra_words) takes the"]
        #[doc = "[`ExtraWords`](crate::wire::ExtraWords) that `Version` announces off the event's body."]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub struct $name {
            /// `Version`, the low 16 bits of the `Marker`: the event's version, whose bits
            /// 0x8000 and 0x0700 announce [`ExtraWords`](crate::wire::ExtraWords) after the
            /// header (ntwmi.h `TRACE_HEADER_PEBS_INDEX_FLAG`, `TRACE_HEADER_PMC_COUNTERS_MASK`).
            /// Kept whole.
            pub version: u16,
            #[doc = concat!(
                "`HeaderType`: `", stringify!($type32), "` or `", stringify!($type64),
                "` in a trace buffer, the pointer width of the event data's logger."
            )]
            pub header_type: $crate::wire::codes::HeaderType,
            /// `Flags`, the marker's high byte: 0xC0 (`TRACE_HEADER_FLAG |
            /// TRACE_HEADER_EVENT_TRACE`) in a trace buffer.
            pub flags: $crate::wire::codes::MarkerFlags,
            /// `Packet.Size`: the whole event, this header, any extra words and the event data.
            pub size: u16,
            /// `Packet.HookId`: which kernel event this is, and so what its data means
            /// ([`hook`](Self::hook) splits it into group and type).
            pub hook_id: u16,
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl $name {
            /// Bytes in the fixed header.
            pub const LEN: usize = $crate::wire::layout::Layout::$layout.byte_len();
            /// The layout this type encodes.
            pub const LAYOUT: $crate::wire::layout::Layout = $crate::wire::layout::Layout::$layout;
            /// The two header types of this header, the 32-bit one first.
            pub const HEADER_TYPES: [$crate::wire::codes::HeaderType; 2] = [
                $crate::wire::codes::HeaderType::$type32,
                $crate::wire::codes::HeaderType::$type64,
            ];

            /// Decodes any bytes of the header's length; nothing is checked and nothing is lost.
            #[inline]
            pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
                let read = $crate::wire::field::Reader::new(bytes);
                Self {
                    version: read.u16(offset::version),
                    header_type: $crate::wire::codes::HeaderType(read.u8(offset::header_type)),
                    flags: $crate::wire::codes::MarkerFlags(read.u8(offset::flags)),
                    size: read.u16(offset::size),
                    hook_id: read.u16(offset::hook_id),
                    $($field: read.get(offset::$field),)*
                }
            }

            /// Encodes the members into the `LEN` bytes `write` covers, setting every one of
            /// them (`to_bytes` and `emit` are built on it).
            #[inline]
            pub(crate) fn write(
                &self,
                write: &mut $crate::wire::field::Writer<'_, { Self::LEN }>,
            ) {
                write.u16(offset::version, self.version);
                write.u8(offset::header_type, self.header_type.0);
                write.u8(offset::flags, self.flags.0);
                write.u16(offset::size, self.size);
                write.u16(offset::hook_id, self.hook_id);
                $(write.put(offset::$field, &self.$field);)*
            }

            /// The `Marker` view of bytes 0..4, little-endian: `Flags << 24 | HeaderType << 16 |
            /// Version`.
            pub const fn marker(&self) -> u32 {
                let [version_low, version_high] = self.version.to_le_bytes();
                u32::from_le_bytes([version_low, version_high, self.header_type.0, self.flags.0])
            }

            /// The header with the given `Marker` (bytes 0..4) split into `Version`, `HeaderType`
            /// and `Flags`.
            #[must_use]
            pub const fn with_marker(mut self, marker: u32) -> Self {
                let [version_low, version_high, header_type, flags] = marker.to_le_bytes();
                self.version = u16::from_le_bytes([version_low, version_high]);
                self.header_type = $crate::wire::codes::HeaderType(header_type);
                self.flags = $crate::wire::codes::MarkerFlags(flags);
                self
            }

            /// The `Header` view of bytes 4..8 (the whole `WMI_TRACE_PACKET`), little-endian:
            /// `HookId << 16 | Size`.
            pub const fn header(&self) -> u32 {
                let [size_low, size_high] = self.size.to_le_bytes();
                let [hook_low, hook_high] = self.hook_id.to_le_bytes();
                u32::from_le_bytes([size_low, size_high, hook_low, hook_high])
            }

            /// The header with the given `Header` (bytes 4..8) split into `Size` and `HookId`.
            #[must_use]
            pub const fn with_header(mut self, header: u32) -> Self {
                let [size_low, size_high, hook_low, hook_high] = header.to_le_bytes();
                self.size = u16::from_le_bytes([size_low, size_high]);
                self.hook_id = u16::from_le_bytes([hook_low, hook_high]);
                self
            }

            /// `HookId` as a [`HookId`](crate::wire::HookId): its group and type.
            pub const fn hook(&self) -> $crate::wire::headers::version_first::HookId {
                $crate::wire::headers::version_first::HookId(self.hook_id)
            }

            /// `Packet.Type`, the low byte of `HookId` (byte 6): the event's type within its group.
            pub const fn hook_type(&self) -> u8 {
                let [hook_type, _] = self.hook_id.to_le_bytes();
                hook_type
            }

            /// `Packet.Group`, the high byte of `HookId` (byte 7): the event's group (its provider).
            pub const fn hook_group(&self) -> u8 {
                let [_, hook_group] = self.hook_id.to_le_bytes();
                hook_group
            }

            /// The `HookId` made of a `Packet.Type` (low byte) and a `Packet.Group` (high byte).
            pub const fn hook_id_of(hook_type: u8, hook_group: u8) -> u16 {
                u16::from_le_bytes([hook_type, hook_group])
            }

            /// Splits the [`ExtraWords`](crate::wire::ExtraWords) this header's `Version`
            /// announces off the front of `body`, the bytes after the fixed header up to `Size`
            /// (the body [`parse_event`](Self::parse_event) returns), and returns them with the
            /// event data after them.
            ///
            /// # Errors
            /// [`CodecError::AnnouncedBeyondSize`](crate::wire::CodecError::AnnouncedBeyondSize)
            /// when the words do not fit in `body`.
            #[inline]
            pub fn split_extra_words<'b>(
                &self,
                body: &'b [u8],
            ) -> Result<
                ($crate::wire::headers::version_first::ExtraWords<'b>, &'b [u8]),
                $crate::wire::error::CodecError,
            > {
                $crate::wire::headers::version_first::ExtraWords::split(
                    Self::LAYOUT,
                    self.version,
                    body,
                )
            }

            /// Reads the header at the start of `input` as a trace buffer holds it, and returns it
            /// with the bytes after the header (the event's body and whatever follows it).
            ///
            /// # Errors
            /// [`CodecError::Truncated`](crate::wire::CodecError::Truncated) when `input` is
            /// shorter than the header; [`CodecError::NotATraceHeader`](crate::wire::CodecError::NotATraceHeader)
            /// without flags 0xC0; [`CodecError::WrongHeaderType`](crate::wire::CodecError::WrongHeaderType)
            #[doc = concat!(
                "for a type other than `", stringify!($type32), "`/`", stringify!($type64), "`;"
            )]
            /// [`CodecError::SizeBelowHeader`](crate::wire::CodecError::SizeBelowHeader) for a
            /// `Size` under the header's length.
            pub fn parse(
                input: &[u8],
            ) -> Result<(Self, &[u8]), $crate::wire::error::CodecError> {
                let (bytes, rest) =
                    $crate::wire::field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
                $crate::wire::field::check_event_header(
                    Self::LAYOUT,
                    &$crate::wire::field::Reader::new(bytes),
                    offset::CHECKED,
                    Self::HEADER_TYPES,
                )?;
                Ok((Self::from_bytes(bytes), rest))
            }

            /// Reads one whole event: the header as [`parse`](Self::parse) does, then its body,
            /// the `Size - LEN` bytes after the header (the extra words `Version` announces, then
            /// the event data: [`split_extra_words`](Self::split_extra_words) separates them).
            /// Returns the header, the body and the bytes after the event (which start with the
            /// padding to the next 8-byte boundary, if any).
            ///
            /// # Errors
            /// Those of [`parse`](Self::parse), and
            /// [`CodecError::SizeBeyondInput`](crate::wire::CodecError::SizeBeyondInput) when
            /// `Size` runs past the end of `input`.
            pub fn parse_event(
                input: &[u8],
            ) -> Result<(Self, &[u8], &[u8]), $crate::wire::error::CodecError> {
                let (header, _) = Self::parse(input)?;
                let (body, rest) =
                    $crate::wire::field::split_event(Self::LAYOUT, input, header.size)?;
                Ok((header, body, rest))
            }
        }

        $crate::wire::field::fixed_layout_entry_points!($name, emit);
    };

    // The offset table after the prefix: each member where the previous one ends, the last at
    // the struct's length.
    (@offsets $name:ident [$prev:ident]) => {
        const _: () = $prev.ends_at(super::$name::LEN);
    };
    (@offsets $name:ident [$prev:ident] $field:ident $len:tt $at:tt, $($rest:tt)*) => {
        pub(super) const $field: $crate::wire::field::Field<{ $prev.end() }, $len> =
            $crate::wire::field::Field::at($at);
        $crate::wire::headers::version_first::version_first_header!(
            @offsets $name [$field] $($rest)*
        );
    };
}

pub(crate) use version_first_header;

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn hook_id_splits_into_group_and_type() {
        let hook = HookId(0x1403);
        assert_eq!(hook.group(), EventTraceGroup::IMAGE);
        assert_eq!(hook.event_type(), EventType(3));
        assert_eq!(HookId::new(EventTraceGroup::IMAGE, 3), hook);
        assert_eq!(std::format!("{hook:?}"), "HookId(IMAGE, type 3)");
        assert_eq!(
            std::format!("{:?}", HookId(0x7F0A)),
            "HookId(EventTraceGroup(0x7f), type 10)"
        );
        assert_eq!(EventTraceGroup::HYPERVISORX.name(), Some("HYPERVISORX"));
        assert_eq!(EventTraceGroup(0x1F).name(), None);
    }

    #[test]
    fn version_announces_words() {
        assert_eq!(ExtraWords::announced_len(2), 0);
        assert_eq!(ExtraWords::announced_len(0x8002), 8);
        assert_eq!(ExtraWords::announced_len(0x0302), 24);
        assert_eq!(ExtraWords::announced_len(0x8702), 64);
        // The spare flags announce nothing.
        assert_eq!(ExtraWords::announced_len(0x7802), 0);
        assert_eq!(ExtraWords::version_number(0xFF02), 0x7802);
    }

    #[test]
    fn words_that_do_not_fit_are_an_error_naming_the_version() {
        let body = [0u8; 15];
        assert_eq!(
            ExtraWords::split(Layout::PerfInfoTraceHeader, 0x8102, &body),
            Err(CodecError::AnnouncedBeyondSize {
                layout: Layout::PerfInfoTraceHeader,
                member: "Version",
                needed: 16,
                available: 15
            })
        );
        assert_eq!(
            std::format!(
                "{}",
                ExtraWords::split(Layout::PerfInfoTraceHeader, 0x8102, &body).unwrap_err()
            ),
            "PERFINFO_TRACE_HEADER.Version announces 16 bytes after the fixed header; expected \
             at most the 15 bytes Size leaves there"
        );
    }

    proptest! {
        #[test]
        fn split_takes_exactly_the_announced_words(
            version in any::<u16>(),
            body in proptest::collection::vec(any::<u8>(), 0..80),
        ) {
            let announced = ExtraWords::announced_len(version);
            match ExtraWords::split(Layout::SystemTraceHeader, version, &body) {
                Ok((extra, data)) => {
                    prop_assert_eq!(extra.len(), announced);
                    prop_assert_eq!([extra.as_bytes(), data].concat(), body.clone());
                    let pebs = version & 0x8000 != 0;
                    prop_assert_eq!(
                        extra.pebs_index(),
                        pebs.then(|| u64::from_le_bytes(body[..8].try_into().unwrap()))
                    );
                    let skip = if pebs { 8 } else { 0 };
                    let counters: Vec<u64> = extra.pmc_counters().collect();
                    let expected: Vec<u64> = body[skip..announced]
                        .chunks_exact(8)
                        .map(|word| u64::from_le_bytes(word.try_into().unwrap()))
                        .collect();
                    prop_assert_eq!(counters.len(), usize::from((version >> 8) & 7));
                    prop_assert_eq!(&counters, &expected);
                    let backwards: Vec<u64> = extra.pmc_counters().rev().collect();
                    prop_assert_eq!(backwards, expected.into_iter().rev().collect::<Vec<_>>());
                }
                Err(error) => {
                    prop_assert!(announced > body.len());
                    prop_assert_eq!(error, CodecError::AnnouncedBeyondSize {
                        layout: Layout::SystemTraceHeader,
                        member: "Version",
                        needed: announced,
                        available: body.len(),
                    });
                }
            }
        }
    }
}
