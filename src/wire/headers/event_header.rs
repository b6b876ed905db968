//! `EVENT_HEADER`: the 0x50-byte header of manifest-based and TraceLogging events, the
//! `EVENT_HEADER32` and `EVENT_HEADER64` events in trace buffers.
//!
//! The extended data items and the user data that follow it are in
//! [`event_header_extended`](crate::wire::headers::event_header_extended).

use crate::wire::codes::{EventHeaderFlags, HeaderType, Level, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::guid::Guid;
use crate::wire::headers::event_header_extended::ExtendedAndUserData;
use crate::wire::layout::{Bitness, Layout};

/// Byte offsets of the members, named after evntcons.h (`EVENT_HEADER`) and evntprov.h
/// (`EVENT_DESCRIPTOR`).
///
/// Sources, which agree on every offset: mingw-w64 `evntcons.h` compiled for i686 and x86_64
/// (`offsetof`, the same on both); Microsoft's "[MS-DTYP] 2.3.2 EVENT_HEADER"; dissect.etl 3.14's
/// `EventHeader` cstruct; the bytes of the PerfView sample traces
/// (`../shared/reference/EVENT-HEADERS.md` §1).
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const SIZE: Field<0, 2> = Field::at(0x00); //                                USHORT Size
    pub(super) const HEADER_TYPE: Field<{ SIZE.end() }, 1> = Field::at(0x02); //            USHORT HeaderType (low byte)
    pub(super) const MARKER_FLAGS: Field<{ HEADER_TYPE.end() }, 1> = Field::at(0x03); //    USHORT HeaderType (high byte)
    pub(super) const FLAGS: Field<{ MARKER_FLAGS.end() }, 2> = Field::at(0x04); //          USHORT Flags
    pub(super) const EVENT_PROPERTY: Field<{ FLAGS.end() }, 2> = Field::at(0x06); //        USHORT EventProperty
    pub(super) const THREAD_ID: Field<{ EVENT_PROPERTY.end() }, 4> = Field::at(0x08); //    ULONG ThreadId
    pub(super) const PROCESS_ID: Field<{ THREAD_ID.end() }, 4> = Field::at(0x0C); //        ULONG ProcessId
    pub(super) const TIME_STAMP: Field<{ PROCESS_ID.end() }, 8> = Field::at(0x10); //       LARGE_INTEGER TimeStamp
    pub(super) const PROVIDER_ID: Field<{ TIME_STAMP.end() }, 16> = Field::at(0x18); //     GUID ProviderId
    pub(super) const ID: Field<{ PROVIDER_ID.end() }, 2> = Field::at(0x28); //              EventDescriptor: USHORT Id
    pub(super) const VERSION: Field<{ ID.end() }, 1> = Field::at(0x2A); //                  EventDescriptor: UCHAR Version
    pub(super) const CHANNEL: Field<{ VERSION.end() }, 1> = Field::at(0x2B); //             EventDescriptor: UCHAR Channel
    pub(super) const LEVEL: Field<{ CHANNEL.end() }, 1> = Field::at(0x2C); //               EventDescriptor: UCHAR Level
    pub(super) const OPCODE: Field<{ LEVEL.end() }, 1> = Field::at(0x2D); //                EventDescriptor: UCHAR Opcode
    pub(super) const TASK: Field<{ OPCODE.end() }, 2> = Field::at(0x2E); //                 EventDescriptor: USHORT Task
    pub(super) const KEYWORD: Field<{ TASK.end() }, 8> = Field::at(0x30); //                EventDescriptor: ULONGLONG Keyword
    pub(super) const PROCESSOR_TIME: Field<{ KEYWORD.end() }, 8> = Field::at(0x38); //      KernelTime+UserTime | ProcessorTime
    pub(super) const ACTIVITY_ID: Field<{ PROCESSOR_TIME.end() }, 16> = Field::at(0x40); // GUID ActivityId

    /// What `parse` checks.
    pub(super) const CHECKED: crate::wire::field::CheckedFields<
        { SIZE.start() },
        { HEADER_TYPE.start() },
        { MARKER_FLAGS.start() },
    > = crate::wire::field::CheckedFields {
        size: SIZE,
        header_type: HEADER_TYPE,
        marker_flags: MARKER_FLAGS,
    };
}

const _: () = offset::ACTIVITY_ID.ends_at(EventHeader::LEN);

open_flags! {
    /// `EVENT_HEADER.EventProperty`: the `EVENT_HEADER_PROPERTY_*` bits (evntcons.h;
    /// `RELOGGABLE` from the Windows SDK metadata of windows-rs). Always 0 in the PerfView
    /// sample traces.
    pub struct EventHeaderProperty(u16) {
        /// `EVENT_HEADER_PROPERTY_XML`: the user data is in XML form.
        XML = 0x0001,
        /// `EVENT_HEADER_PROPERTY_FORWARDED_XML`: the event carries forwarded XML.
        FORWARDED_XML = 0x0002,
        /// `EVENT_HEADER_PROPERTY_LEGACY_EVENTLOG`: the event came from a legacy event log
        /// provider.
        LEGACY_EVENTLOG = 0x0004,
        /// `EVENT_HEADER_PROPERTY_RELOGGABLE`: the event may be relogged.
        RELOGGABLE = 0x0008,
    }
}

/// `EVENT_DESCRIPTOR` (evntprov.h), bytes 0x28..0x38 of an `EVENT_HEADER`: what the event is,
/// as the provider's manifest (or TraceLogging metadata) declares it.
///
/// | off (in the header) | size | member | field |
/// |---|---|---|---|
/// | 0x28 | 2 | `Id` | [`id`](Self::id) |
/// | 0x2A | 1 | `Version` | [`version`](Self::version) |
/// | 0x2B | 1 | `Channel` | [`channel`](Self::channel) |
/// | 0x2C | 1 | `Level` | [`level`](Self::level) |
/// | 0x2D | 1 | `Opcode` | [`opcode`](Self::opcode) |
/// | 0x2E | 2 | `Task` | [`task`](Self::task) |
/// | 0x30 | 8 | `Keyword` | [`keyword`](Self::keyword) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventDescriptor {
    /// `Id`: "The event identifier", unique within the provider (with `Version`).
    pub id: u16,
    /// `Version`: "The version of the event", of its payload layout.
    pub version: u8,
    /// `Channel`: the channel the event is written to (16 is `WINEVENT_CHANNEL_GLOBAL_SYSTEM`,
    /// 11 the TraceLogging channel `WINEVENT_CHANNEL_TRACELOGGING`, winmeta.h); kept raw.
    pub channel: u8,
    /// `Level`: the severity, with the values of `TRACE_LEVEL_*`/`WINEVENT_LEVEL_*` (1
    /// critical to 5 verbose; 0 is `WINEVENT_LEVEL_LOG_ALWAYS`, an event with no severity).
    pub level: Level,
    /// `Opcode`: the step of an activity the event marks (`WINEVENT_OPCODE_*`: 0 info, 1
    /// start, 2 stop, ...; 10 and up are provider-defined); kept raw.
    pub opcode: u8,
    /// `Task`: the provider-defined task the event belongs to.
    pub task: u16,
    /// `Keyword`: the bitmask of categories used to enable the event; the top 16 bits are
    /// reserved by Microsoft (winmeta.h `WINEVENT_KEYWORD_*`).
    pub keyword: u64,
}

/// The eight bytes at offset 0x38 of an `EVENT_HEADER`, kept raw with an accessor and a setter
/// per view:
///
/// ```c
/// union {
///     struct { ULONG KernelTime; ULONG UserTime; };   // CPU ticks
///     ULONG64 ProcessorTime;                          // private sessions
/// };
/// ```
///
/// Which view applies (evntcons.h `EVENT_HEADER` remarks): with
/// [`EventHeaderFlags::NO_CPUTIME`] "elapsed execution time was not recorded" and the bytes "can
/// be used to store other information"; otherwise with [`EventHeaderFlags::PRIVATE_SESSION`] they
/// are `ProcessorTime`, and otherwise `KernelTime` and `UserTime`.
/// [`EventHeader::cpu_time`] makes that choice. Neither flag is stored in the events of real
/// trace buffers (`../shared/reference/EVENT-HEADERS.md` §1), where the bytes read as
/// `KernelTime`/`UserTime`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EventHeaderTimes(pub [u8; 8]);

impl EventHeaderTimes {
    /// The union holding `KernelTime` and `UserTime`.
    pub fn from_times(kernel_time: u32, user_time: u32) -> Self {
        let mut union = Self::default();
        union.set_kernel_time(kernel_time);
        union.set_user_time(user_time);
        union
    }

    /// The union holding `ProcessorTime`.
    pub const fn from_processor_time(processor_time: u64) -> Self {
        Self(processor_time.to_le_bytes())
    }

    /// `KernelTime`: kernel-mode CPU time in ticks (bytes 0..4).
    pub fn kernel_time(&self) -> u32 {
        let [low @ .., _, _, _, _] = self.0;
        u32::from_le_bytes(low)
    }

    /// Stores `KernelTime` (bytes 0..4); bytes 4..8 keep their value.
    pub fn set_kernel_time(&mut self, kernel_time: u32) {
        let [low @ .., _, _, _, _] = &mut self.0;
        *low = kernel_time.to_le_bytes();
    }

    /// `UserTime`: user-mode CPU time in ticks (bytes 4..8).
    pub fn user_time(&self) -> u32 {
        let [_, _, _, _, high @ ..] = self.0;
        u32::from_le_bytes(high)
    }

    /// Stores `UserTime` (bytes 4..8); bytes 0..4 keep their value.
    pub fn set_user_time(&mut self, user_time: u32) {
        let [_, _, _, _, high @ ..] = &mut self.0;
        *high = user_time.to_le_bytes();
    }

    /// `ProcessorTime`: CPU time of a private session, in ticks (all 8 bytes).
    pub const fn processor_time(&self) -> u64 {
        u64::from_le_bytes(self.0)
    }

    /// Stores `ProcessorTime` (all 8 bytes).
    pub fn set_processor_time(&mut self, processor_time: u64) {
        self.0 = processor_time.to_le_bytes();
    }
}

impl core::fmt::Debug for EventHeaderTimes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "EventHeaderTimes {{ kernel_time: {}, user_time: {}, processor_time: {} }}",
            self.kernel_time(),
            self.user_time(),
            self.processor_time()
        )
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for EventHeaderTimes {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "EventHeaderTimes {{ kernel_time: {=u32}, user_time: {=u32}, processor_time: {=u64} }}",
            self.kernel_time(),
            self.user_time(),
            self.processor_time()
        )
    }
}

/// The view of [`EventHeaderTimes`] that an `EVENT_HEADER`'s flags select
/// ([`EventHeader::cpu_time`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EventCpuTime {
    /// Neither `NO_CPUTIME` nor `PRIVATE_SESSION`: `KernelTime` and `UserTime`, in ticks.
    KernelAndUser {
        /// `KernelTime`.
        kernel_time: u32,
        /// `UserTime`.
        user_time: u32,
    },
    /// `PRIVATE_SESSION` without `NO_CPUTIME`: `ProcessorTime`, in ticks.
    Processor(u64),
    /// `NO_CPUTIME`: no CPU time was recorded; the eight bytes as stored.
    NotRecorded([u8; 8]),
}

/// `EVENT_HEADER` (evntcons.h) as a trace buffer stores it, 0x50 bytes, the same for
/// `EVENT_HEADER32` (0x12) and `EVENT_HEADER64` (0x13) events and on both bitnesses: the
/// header type only says whether the provider was 32- or 64-bit, the pointer width of its user
/// data.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 2 | `Size` | [`size`](Self::size): header + extended items + user data |
/// | 0x02 | 1 | `HeaderType` (low byte) | [`header_type`](Self::header_type) |
/// | 0x03 | 1 | `HeaderType` (high byte) | [`marker_flags`](Self::marker_flags) |
/// | 0x04 | 2 | `Flags` | [`flags`](Self::flags) |
/// | 0x06 | 2 | `EventProperty` | [`event_property`](Self::event_property) |
/// | 0x08 | 4 | `ThreadId` | [`thread_id`](Self::thread_id) |
/// | 0x0C | 4 | `ProcessId` | [`process_id`](Self::process_id) |
/// | 0x10 | 8 | `TimeStamp` | [`timestamp`](Self::timestamp) |
/// | 0x18 | 16 | `ProviderId` | [`provider_id`](Self::provider_id) |
/// | 0x28 | 16 | `EventDescriptor` (`Id`, `Version`, `Channel`, `Level`, `Opcode`, `Task`, `Keyword`) | [`event_descriptor`](Self::event_descriptor) |
/// | 0x38 | 8 | `KernelTime`+`UserTime` \| `ProcessorTime` | [`times`](Self::times) |
/// | 0x40 | 16 | `ActivityId` | [`activity_id`](Self::activity_id) |
///
/// In the consumer's `EVENT_RECORD` the two bytes at 0x02 are one `USHORT HeaderType`,
/// documented as "Reserved"; in a trace buffer they are the header type and the marker flags
/// (ntwmi.h names the pair `EVENT_HEADER_EVENT32` = 0xC012 and `EVENT_HEADER_EVENT64` =
/// 0xC013), so the event's first `u32` reads `0xC0120000 | Size` or `0xC0130000 | Size`.
///
/// [`from_bytes`](Self::from_bytes) takes any 0x50 bytes and [`to_bytes`](Self::to_bytes) gives
/// them back unchanged. [`parse`](Self::parse) reads the header as it appears in a trace buffer
/// and checks it is one: marker flags 0xC0, header type `EVENT_HEADER32` or `EVENT_HEADER64`,
/// and a `Size` that covers the header. [`parse_event`](Self::parse_event) also splits off the
/// extended data items and user data that follow it ([`ExtendedAndUserData`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventHeader {
    /// `Size`: the whole event, this header, the extended data items and the user data,
    /// without the padding to the next 8-byte boundary.
    pub size: u16,
    /// `HeaderType`: `EVENT_HEADER32` (0x12) or `EVENT_HEADER64` (0x13) in a trace buffer.
    pub header_type: HeaderType,
    /// The high byte of `HeaderType`, the marker flags: 0xC0 in a trace buffer.
    pub marker_flags: MarkerFlags,
    /// `Flags`: `EVENT_HEADER_FLAG_*`.
    pub flags: EventHeaderFlags,
    /// `EventProperty`: `EVENT_HEADER_PROPERTY_*`.
    pub event_property: EventHeaderProperty,
    /// `ThreadId`: "Identifies the thread that generated the event."
    pub thread_id: u32,
    /// `ProcessId`: "Identifies the process that generated the event."
    pub process_id: u32,
    /// `TimeStamp`: "Contains the time that the event occurred", in the session's raw clock
    /// (`TRACE_LOGFILE_HEADER.ReservedFlags` says which). Signed (`LARGE_INTEGER`).
    pub timestamp: i64,
    /// `ProviderId`: "GUID that uniquely identifies the provider that logged the event" (the
    /// decode GUID with [`EventHeaderFlags::DECODE_GUID`]).
    pub provider_id: Guid,
    /// `EventDescriptor`: the event's id, version, channel, level, opcode, task and keyword.
    pub event_descriptor: EventDescriptor,
    /// `KernelTime`+`UserTime` | `ProcessorTime`, kept raw; [`cpu_time`](Self::cpu_time) picks
    /// the view the flags select.
    pub times: EventHeaderTimes,
    /// `ActivityId`: "Identifier that relates two events"; zero when the provider set none.
    pub activity_id: Guid,
}

impl EventHeader {
    /// Bytes in an `EVENT_HEADER`.
    pub const LEN: usize = Layout::EventHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventHeader;

    /// Decodes any 0x50 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            size: read.u16(offset::SIZE),
            header_type: HeaderType(read.u8(offset::HEADER_TYPE)),
            marker_flags: MarkerFlags(read.u8(offset::MARKER_FLAGS)),
            flags: EventHeaderFlags(read.u16(offset::FLAGS)),
            event_property: EventHeaderProperty(read.u16(offset::EVENT_PROPERTY)),
            thread_id: read.u32(offset::THREAD_ID),
            process_id: read.u32(offset::PROCESS_ID),
            timestamp: read.i64(offset::TIME_STAMP),
            provider_id: read.guid(offset::PROVIDER_ID),
            event_descriptor: EventDescriptor {
                id: read.u16(offset::ID),
                version: read.u8(offset::VERSION),
                channel: read.u8(offset::CHANNEL),
                level: Level(read.u8(offset::LEVEL)),
                opcode: read.u8(offset::OPCODE),
                task: read.u16(offset::TASK),
                keyword: read.u64(offset::KEYWORD),
            },
            times: EventHeaderTimes(read.bytes(offset::PROCESSOR_TIME)),
            activity_id: read.guid(offset::ACTIVITY_ID),
        }
    }

    /// Encodes the members into the 0x50 bytes `write` covers, setting every one of them
    /// (`to_bytes` and `emit` are built on it).
    #[inline]
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        let descriptor = &self.event_descriptor;
        write.u16(offset::SIZE, self.size);
        write.u8(offset::HEADER_TYPE, self.header_type.0);
        write.u8(offset::MARKER_FLAGS, self.marker_flags.0);
        write.u16(offset::FLAGS, self.flags.0);
        write.u16(offset::EVENT_PROPERTY, self.event_property.0);
        write.u32(offset::THREAD_ID, self.thread_id);
        write.u32(offset::PROCESS_ID, self.process_id);
        write.i64(offset::TIME_STAMP, self.timestamp);
        write.guid(offset::PROVIDER_ID, self.provider_id);
        write.u16(offset::ID, descriptor.id);
        write.u8(offset::VERSION, descriptor.version);
        write.u8(offset::CHANNEL, descriptor.channel);
        write.u8(offset::LEVEL, descriptor.level.0);
        write.u8(offset::OPCODE, descriptor.opcode);
        write.u16(offset::TASK, descriptor.task);
        write.u64(offset::KEYWORD, descriptor.keyword);
        write.bytes(offset::PROCESSOR_TIME, self.times.0);
        write.guid(offset::ACTIVITY_ID, self.activity_id);
    }

    /// The provider's pointer width, from the header type: `Bits32` for `EVENT_HEADER32`,
    /// `Bits64` for `EVENT_HEADER64`, `None` for any other type.
    pub const fn bitness(&self) -> Option<Bitness> {
        match self.header_type {
            HeaderType::EVENT_HEADER32 => Some(Bitness::Bits32),
            HeaderType::EVENT_HEADER64 => Some(Bitness::Bits64),
            _ => None,
        }
    }

    /// The CPU time in the view the flags select (see [`EventHeaderTimes`]): `NO_CPUTIME`
    /// first, then `PRIVATE_SESSION`, else `KernelTime` and `UserTime`.
    pub fn cpu_time(&self) -> EventCpuTime {
        if self.flags.contains(EventHeaderFlags::NO_CPUTIME) {
            EventCpuTime::NotRecorded(self.times.0)
        } else if self.flags.contains(EventHeaderFlags::PRIVATE_SESSION) {
            EventCpuTime::Processor(self.times.processor_time())
        } else {
            EventCpuTime::KernelAndUser {
                kernel_time: self.times.kernel_time(),
                user_time: self.times.user_time(),
            }
        }
    }

    /// Reads the header at the start of `input` as a trace buffer holds it, and returns it with
    /// the bytes after the header (the extended items, the user data and whatever follows the
    /// event).
    ///
    /// # Errors
    /// [`CodecError::Truncated`] for fewer than 0x50 bytes; [`CodecError::NotATraceHeader`] without
    /// marker flags 0xC0; [`CodecError::WrongHeaderType`] for a type other than
    /// `EVENT_HEADER32`/`EVENT_HEADER64`; [`CodecError::SizeBelowHeader`] for a `Size` under 0x50.
    pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), CodecError> {
        let (bytes, rest) = field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
        field::check_event_header(
            Self::LAYOUT,
            &Reader::new(bytes),
            offset::CHECKED,
            [HeaderType::EVENT_HEADER32, HeaderType::EVENT_HEADER64],
        )?;
        Ok((Self::from_bytes(bytes), rest))
    }

    /// Reads one whole event: the header as [`parse`](Self::parse) does, then the `Size - 0x50`
    /// bytes after it, the extended data items (when [`EventHeaderFlags::EXTENDED_INFO`] is set)
    /// and the user data. Returns the header, those bytes and the bytes after the event (which
    /// start with the padding to the next 8-byte boundary, if any).
    ///
    /// The items are not read here: [`ExtendedAndUserData::items`] walks them and
    /// [`ExtendedAndUserData::split`] checks them all and finds where the user data starts.
    ///
    /// # Errors
    /// Those of [`parse`](Self::parse), and [`CodecError::SizeBeyondInput`] when `Size` runs past
    /// the end of `input`.
    pub fn parse_event(input: &[u8]) -> Result<(Self, ExtendedAndUserData<'_>, &[u8]), CodecError> {
        let (header, _) = Self::parse(input)?;
        let (body, rest) = field::split_event(Self::LAYOUT, input, header.size)?;
        Ok((header, ExtendedAndUserData::new(header.flags, body), rest))
    }
}

field::fixed_layout_entry_points!(EventHeader, emit);

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::wire::field::ascending;

    /// Ascending bytes (byte `i` is `0x11 + i`), so that a misplaced offset shows.
    #[rustfmt::skip]
    const ASCENDING: [u8; 0x50] = [
        0x11, 0x12,                                     // 0x00 Size
        0x13,                                           // 0x02 HeaderType
        0x14,                                           // 0x03 MarkerFlags
        0x15, 0x16,                                     // 0x04 Flags
        0x17, 0x18,                                     // 0x06 EventProperty
        0x19, 0x1a, 0x1b, 0x1c,                         // 0x08 ThreadId
        0x1d, 0x1e, 0x1f, 0x20,                         // 0x0C ProcessId
        0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, // 0x10 TimeStamp
        0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, // 0x18 ProviderId (Data1, Data2, Data3)
        0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, // 0x20 ProviderId (Data4)
        0x39, 0x3a,                                     // 0x28 Id
        0x3b,                                           // 0x2A Version
        0x3c,                                           // 0x2B Channel
        0x3d,                                           // 0x2C Level
        0x3e,                                           // 0x2D Opcode
        0x3f, 0x40,                                     // 0x2E Task
        0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, // 0x30 Keyword
        0x49, 0x4a, 0x4b, 0x4c,                         // 0x38 KernelTime
        0x4d, 0x4e, 0x4f, 0x50,                         // 0x3C UserTime
        0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, // 0x40 ActivityId (Data1, Data2, Data3)
        0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, // 0x48 ActivityId (Data4)
    ];

    fn ascending_value() -> EventHeader {
        EventHeader {
            size: 0x1211,
            header_type: HeaderType(0x13),
            marker_flags: MarkerFlags(0x14),
            flags: EventHeaderFlags(0x1615),
            event_property: EventHeaderProperty(0x1817),
            thread_id: 0x1c1b_1a19,
            process_id: 0x201f_1e1d,
            timestamp: 0x2827_2625_2423_2221,
            provider_id: Guid::from_fields(
                0x2c2b_2a29,
                0x2e2d,
                0x302f,
                [0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38],
            ),
            event_descriptor: EventDescriptor {
                id: 0x3a39,
                version: 0x3b,
                channel: 0x3c,
                level: Level(0x3d),
                opcode: 0x3e,
                task: 0x403f,
                keyword: 0x4847_4645_4443_4241,
            },
            times: EventHeaderTimes::from_times(0x4c4b_4a49, 0x504f_4e4d),
            activity_id: Guid::from_fields(
                0x5453_5251,
                0x5655,
                0x5857,
                [0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60],
            ),
        }
    }

    #[test]
    fn decodes_and_encodes_every_member_at_its_offset() {
        assert_eq!(ASCENDING, ascending());
        assert_eq!(EventHeader::from_bytes(&ASCENDING), ascending_value());
        assert_eq!(ascending_value().to_bytes(), ASCENDING);
        let times = ascending_value().times;
        assert_eq!(times.processor_time(), 0x504f_4e4d_4c4b_4a49);
    }

    #[test]
    fn the_union_views_write_only_their_bytes() {
        let mut times = EventHeaderTimes::from_processor_time(0x1122_3344_5566_7788);
        assert_eq!(
            (times.kernel_time(), times.user_time()),
            (0x5566_7788, 0x1122_3344)
        );
        times.set_kernel_time(7);
        assert_eq!(times.processor_time(), 0x1122_3344_0000_0007);
        times.set_user_time(9);
        assert_eq!(times.processor_time(), 0x0000_0009_0000_0007);
        times.set_processor_time(u64::MAX);
        assert_eq!(times, EventHeaderTimes([0xFF; 8]));
    }

    #[test]
    fn the_flags_choose_the_cpu_time_view() {
        let mut header = EventHeader {
            times: EventHeaderTimes::from_times(3, 5),
            ..EventHeader::default()
        };
        assert_eq!(
            header.cpu_time(),
            EventCpuTime::KernelAndUser {
                kernel_time: 3,
                user_time: 5
            }
        );
        header.flags = EventHeaderFlags::PRIVATE_SESSION;
        assert_eq!(header.cpu_time(), EventCpuTime::Processor(0x5_0000_0003));
        header.flags = EventHeaderFlags::PRIVATE_SESSION | EventHeaderFlags::NO_CPUTIME;
        assert_eq!(
            header.cpu_time(),
            EventCpuTime::NotRecorded([3, 0, 0, 0, 5, 0, 0, 0])
        );
    }

    #[test]
    fn unknown_flag_bits_are_kept() {
        let flags = EventHeaderFlags(0x8801);
        assert!(flags.contains(EventHeaderFlags::EXTENDED_INFO));
        assert_eq!(flags.unnamed_bits(), 0x8800);
        assert_eq!(
            std::format!("{flags:?}"),
            "EventHeaderFlags(0x8801: EXTENDED_INFO)"
        );
    }

    #[test]
    fn parse_checks_what_a_buffer_header_must_be() {
        let mut bytes = ASCENDING;
        bytes[0x00..0x02].copy_from_slice(&0x50u16.to_le_bytes());
        bytes[0x02] = 0x12;
        bytes[0x03] = 0xC0;
        let (header, rest) = EventHeader::parse(&bytes).unwrap();
        assert_eq!(header.bitness(), Some(Bitness::Bits32));
        assert!(rest.is_empty());
        let (_, body, rest) = EventHeader::parse_event(&bytes).unwrap();
        assert!(body.bytes.is_empty() && rest.is_empty());

        bytes[0x03] = 0x80;
        assert_eq!(
            EventHeader::parse(&bytes),
            Err(CodecError::NotATraceHeader {
                layout: Layout::EventHeader,
                found: MarkerFlags(0x80)
            })
        );
        bytes[0x03] = 0xC0;
        bytes[0x02] = 0x14;
        assert_eq!(
            EventHeader::parse(&bytes),
            Err(CodecError::WrongHeaderType {
                layout: Layout::EventHeader,
                expected_32: HeaderType::EVENT_HEADER32,
                expected_64: HeaderType::EVENT_HEADER64,
                found: HeaderType::FULL_HEADER64
            })
        );
        bytes[0x02] = 0x13;
        bytes[0x00..0x02].copy_from_slice(&0x4Fu16.to_le_bytes());
        let error = EventHeader::parse(&bytes).unwrap_err();
        assert_eq!(
            error,
            CodecError::SizeBelowHeader {
                layout: Layout::EventHeader,
                header_len: 0x50,
                size: 0x4F
            }
        );
        assert_eq!(
            std::format!("{error}"),
            "EVENT_HEADER.Size: expected at least the 80-byte header, found 79"
        );
        bytes[0x00..0x02].copy_from_slice(&0x58u16.to_le_bytes());
        assert_eq!(
            EventHeader::parse_event(&bytes).map(|(header, _, _)| header),
            Err(CodecError::SizeBeyondInput {
                layout: Layout::EventHeader,
                size: 0x58,
                available: 0x50
            })
        );
        assert_eq!(
            EventHeader::parse(&bytes[..0x4F]),
            Err(CodecError::Truncated {
                layout: Layout::EventHeader,
                needed: 0x50,
                found: 0x4F
            })
        );
    }
}
