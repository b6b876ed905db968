//! The kernel's classic event classes, built in: what the data of a `Windows Kernel` event
//! means, for every event type and version the tables know, on 32- and 64-bit loggers.
//!
//! # Keys
//! A kernel event is described by its class (a GUID), its event type (the classic "opcode")
//! and its version:
//! - `SYSTEM`, `COMPACT` and `PERFINFO` headers carry no GUID: the high byte of their `HookId`
//!   is an `EVENT_TRACE_GROUP_*` ([`EventTraceGroup`]), the low byte the event type, and their
//!   `Version` the version (without the bits that announce PMC counters and a PEBS index:
//!   [`ExtraWords::version_number`](crate::wire::ExtraWords::version_number)). The group names
//!   the class: [`class_of_hook`] maps it as the consumer side of Windows does, including its
//!   one exception, group `PROCESS` with type 10 (`WMI_LOG_TYPE_PROCESS_LOAD_IMAGE`), which is
//!   an `Image/Load` event (dissect.etl's `lookup_guid`, from sechost.dll; Geoff Chappell's
//!   page on the hook ids; and PerfView's baseline of net.4.5.2.x64, which counts 35
//!   `Image/Load` events where the trace holds 35 `SYSTEM` events of hook `0x030A`).
//! - Classic `FULL_HEADER` events carry the class GUID, the event type and the version in
//!   their header (`EVENT_TRACE_HEADER.Guid` and `Class`).
//!
//! [`lookup`] takes the three; [`lookup_hook`] takes a hook id and a version.
//!
//! # What the tables hold, and from where
//! Every event type of the kernel's MOF classes for the class GUIDs of [`CLASSES`]: EventTrace
//! (the logfile header, its extensions), Process, Thread (context switches, ready thread, set
//! name, ...), Image, DiskIo, SplitIo, FileIo, Registry, TcpIp, UdpIp, ALPC, PageFault,
//! PerfInfo (sampled profile, interrupts, DPCs, system calls, ...), StackWalk, SystemConfig,
//! Lost_Event, at every version the MOF defines; and the classic events KernelTraceControl
//! adds when it merges a trace: `SysConfig` (class `9b79ee91-b5fd-41c0-a243-4248e266e9d0`,
//! which TraceEvent names as a `Windows Kernel` task) and `ImageID` (class
//! `b3e675d7-2554-4f18-830b-2762732560de`, provider [`CONTROL_PROVIDER_NAME`]).
//!
//! - **Layouts** (field names, order, types): the kernel's MOF, `wmicore.mof` of the Windows 10
//!   Driver Kit, the file TDH decodes these events with (its classes are the ones
//!   learn.microsoft.com documents under "Event Tracing MOF Classes": `Process_V4_TypeGroup1`,
//!   `Thread_TypeGroup1`, `Image_Load`, `CSwitch`, ...). It agrees with PerfView's
//!   `kerneltraceeventparser.mof` (MIT) for the older versions the latter describes, and with
//!   the offsets and length checks of PerfView's `KernelTraceEventParser.cs`. The `SysConfig`
//!   classes are not in the MOF: their layouts are PerfView's (`BuildInfoTraceData`,
//!   `SystemPathsTraceData`, `VolumeMappingTraceData`, `StringTraceData`), and so are the
//!   `ImageID` class's (`SymbolTraceEventParser.cs`: `ImageIDTraceData`, `DbgIDRSDSTraceData`,
//!   `FileVersionTraceData`, ...). Where the MOF and the
//!   bytes of real traces disagree, the bytes win and the table says why:
//!   `EventTrace_Header.PointerSize` is a `ULONG` the MOF marks `pointer`; the stack walk events
//!   hold as many frames as the stack has ([`Tail::LastArrayToEnd`]); the version-2
//!   `PartitionInfoExtension` events hold the version-0 layout with two GUIDs.
//! - **Names**: task and opcode names are the ones TraceEvent (PerfView) prints, so that an
//!   event is named `Process/DCStart`, `Thread/Stop`, `DiskIO/Read`, `SysConfig/SystemPaths`
//!   as in PerfView (`KernelTraceEventParser.cs`'s templates: for instance its opcode names
//!   `Stop` and `DCStop` where the MOF says `End` and `DCEnd`, `Send` where the MOF says
//!   `SendIPV4`). Event types TraceEvent does not name keep the MOF's `EventTypeName` and the
//!   class's TraceEvent task name. Field names are the MOF's (the names TDH gives).
//!
//! The MOF's qualifiers become TDH types as PAYLOADS.md §5 says: `pointer` is
//! [`InType::POINTER`] and `extension("SizeT")` [`InType::SIZET`] (4 or 8 bytes by the event's
//! pointer size), `extension("Sid")` [`InType::WBEM_SID`], `extension("Port")` a `UINT16` shown
//! as [`OutType::PORT`] (big-endian), `extension("IPAddr")`/`("IPAddrV4")` a `UINT32` shown as
//! [`OutType::IPV4`], `extension("IPAddrV6")` 16 bytes shown as [`OutType::IPV6`],
//! `extension("GUID")` a GUID, `extension("WmiTime")` a `UINT64` shown as
//! [`OutType::ETW_TIME`], `format("x")` a hexadecimal out-type, `format("w")` UTF-16 text,
//! `char16 Name[n]` UTF-16 text of `n` characters, `WmiSizeIs("Field")` a count from that
//! field, a MOF `boolean` one byte shown as [`OutType::BOOLEAN`].
//!
//! # Versions the tables do not have
//! [`lookup`] answers only for a version the tables hold. TraceEvent decodes a version newer
//! than the ones its parser knows with its newest layout, reading the fields it knows from the
//! start of the data (its accessors test `Version >= n`); the traces here hold no kernel event
//! of a version newer than the tables', so nothing confirms that the newest layout is a prefix
//! of the next one, and an unknown version gives `None`.

mod config;
mod control;
mod event_trace;
mod io;
mod net;
mod perf;
mod process;

use crate::payload::schema::{Count, FieldSchema};
use crate::payload::types::{InType, OutType};
use crate::payload::value::Value;
use crate::wire::{Bitness, EventTraceGroup, Guid, HookId};

/// The provider name TraceEvent and dissect.etl give every kernel event (and TraceEvent the
/// `SysConfig` events KernelTraceControl adds, which it reads with its kernel parser).
pub const PROVIDER_NAME: &str = "Windows Kernel";

/// The provider name TraceEvent gives the events KernelTraceControl adds to a merged trace
/// and reads with its `SymbolTraceEventParser` (`ProviderName = "KernelTraceControl"`): the
/// `ImageID` class ([`IMAGE_ID`]) and the `MetaData` descriptions.
pub const CONTROL_PROVIDER_NAME: &str = "KernelTraceControl";

/// A field of a kernel event.
pub type KernelField = FieldSchema<&'static str>;

/// How the data of an event ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Tail {
    /// The fields, as the table gives them.
    Exact,
    /// The last field is an array of fixed-size values holding as many values as the data
    /// has after the fields before it, at most the array's count: the stack walk's frames.
    LastArrayToEnd,
}

/// One kernel event: its class, event type and version, the names TraceEvent prints for it,
/// and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct KernelEvent {
    /// The class GUID (`EVENT_TRACE_HEADER.Guid`, or the one the hook id's group names).
    pub class: Guid,
    /// The event type (`Class.Type`, the hook id's low byte): the classic opcode.
    pub event_type: u8,
    /// The version (`Class.Version`, the version-first header's `Version`).
    pub version: u8,
    /// The provider name TraceEvent prints for the event: [`PROVIDER_NAME`], or
    /// [`CONTROL_PROVIDER_NAME`] for the `ImageID` class.
    pub provider_name: &'static str,
    /// The task name TraceEvent gives the event (`Process`, `DiskIO`, `SysConfig`, ...).
    pub task_name: &'static str,
    /// The opcode name TraceEvent gives the event (`DCStart`, `Stop`, ...); empty for the
    /// lost-event notice, which TraceEvent names by its task alone.
    pub opcode_name: &'static str,
    /// The MOF class describing the data (`Process_V4_TypeGroup1`), or for the `SysConfig`
    /// and `ImageID` events the TraceEvent class that reads them.
    pub mof_class: &'static str,
    /// The fields, in the order of the data. When [`tail`](Self::tail) is
    /// [`Tail::LastArrayToEnd`] the last array is at its largest here: use
    /// [`fields_for`](Self::fields_for) to decode an event.
    pub fields: &'static [KernelField],
    /// How the data ends.
    pub tail: Tail,
    /// When every field is one value of a fixed size (`Count::One`, a type
    /// [`InType::fixed_size`] sizes): how many bytes they fill with 4-byte and with 8-byte
    /// pointers, worked out when the tables are compiled. See [`fixed_size`](Self::fixed_size).
    fixed_sizes: Option<[u16; 2]>,
}

/// The most fields an event of [`Tail::LastArrayToEnd`] has (the stack walk event: time,
/// process, thread, frames).
pub const MAX_TAIL_FIELDS: usize = 4;

/// At most how many frames a stack walk event holds: `StackWalk_TypeGroup1.StackFrame[192]`.
pub const MAX_STACK_FRAMES: u16 = 192;

/// The fields to decode one event's data with: the table's, or for an event whose last array
/// runs to the end of the data, a copy with that array's count set from the data's size.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct KernelFields {
    table: &'static [KernelField],
    sized: Option<([KernelField; MAX_TAIL_FIELDS], usize)>,
}

impl KernelFields {
    /// The fields, for [`PayloadDecoder::new`](crate::payload::PayloadDecoder::new).
    pub fn as_slice(&self) -> &[KernelField] {
        match &self.sized {
            Some((fields, len)) => fields.get(..*len).unwrap_or(fields),
            None => self.table,
        }
    }
}

impl core::ops::Deref for KernelFields {
    type Target = [KernelField];

    fn deref(&self) -> &[KernelField] {
        self.as_slice()
    }
}

impl KernelEvent {
    /// The fields to decode `data_len` bytes of this event's data with, pointers being as
    /// wide as `bitness` says.
    ///
    /// For [`Tail::Exact`] these are [`fields`](Self::fields). For [`Tail::LastArrayToEnd`]
    /// the last array holds as many values as fit in the data after the fields before it (at
    /// most its count in the table), so that a stack of 40 frames decodes as 40 frames.
    ///
    /// ```
    /// use etw_classic::payload::kernel::{lookup_hook, Tail};
    /// use etw_classic::wire::{EventTraceGroup, HookId};
    /// use etw_classic::Bitness;
    ///
    /// let stack = lookup_hook(HookId::new(EventTraceGroup::STACKWALK, 32), 2).unwrap();
    /// assert_eq!(stack.tail, Tail::LastArrayToEnd);
    /// // EventTimeStamp (8), StackProcess (4), StackThread (4), then three 8-byte frames.
    /// let fields = stack.fields_for(16 + 3 * 8, Bitness::Bits64);
    /// assert_eq!(fields.len(), 4);
    /// assert_eq!(fields[3].name, "Stack");
    /// assert_eq!(fields[3].count, etw_classic::payload::Count::Fixed(3));
    /// ```
    #[inline(always)]
    pub fn fields_for(&self, data_len: usize, bitness: Bitness) -> KernelFields {
        if self.tail != Tail::LastArrayToEnd {
            return KernelFields {
                table: self.fields,
                sized: None,
            };
        }
        self.fields_to_end(data_len, bitness)
    }

    /// When every field is one value of a fixed size: how many bytes they fill, pointers and
    /// `SIZE_T`s being as wide as `bitness` says; `None` for an event with an array, a string
    /// or any other field whose size the data says.
    ///
    /// ```
    /// use etw_classic::payload::kernel::{lookup, PERF_INFO, PROCESS};
    /// use etw_classic::Bitness;
    ///
    /// // PerfInfo/Sample: InstructionPointer, ThreadId, Count, Reserved.
    /// let sample = lookup(PERF_INFO, 46, 2).unwrap();
    /// assert_eq!(sample.fixed_size(Bitness::Bits64), Some(8 + 4 + 2 + 2));
    /// assert_eq!(sample.fixed_size(Bitness::Bits32), Some(4 + 4 + 2 + 2));
    /// // Process/Start ends with strings and a SID.
    /// assert_eq!(lookup(PROCESS, 1, 4).unwrap().fixed_size(Bitness::Bits64), None);
    /// ```
    #[inline]
    pub fn fixed_size(&self, bitness: Bitness) -> Option<usize> {
        let [narrow, wide] = self.fixed_sizes?;
        Some(usize::from(match bitness {
            Bitness::Bits32 => narrow,
            Bitness::Bits64 => wide,
        }))
    }

    /// Hands `visit` each field and its value, read in order from the start of `data`, when
    /// every field is one value of a fixed size ([`fixed_size`](Self::fixed_size)) and
    /// `data` holds them all; returns whether it did. Otherwise nothing is handed on, and
    /// [`PayloadDecoder`](crate::payload::PayloadDecoder) walks the data (and says where it
    /// fails).
    ///
    /// The values are those the decoder gives, without its state: nothing to remember for a
    /// count, no structure or array to open, one length check for the whole event. A sampled
    /// profile event (four such fields) is the commonest event of a CPU trace.
    ///
    /// ```
    /// use etw_classic::payload::kernel::{lookup, PERF_INFO};
    /// use etw_classic::payload::Value;
    /// use etw_classic::Bitness;
    ///
    /// let sample = lookup(PERF_INFO, 46, 2).unwrap();
    /// let data = [0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 42, 0, 0, 0, 1, 0, 0, 0];
    /// let mut values = Vec::new();
    /// assert!(sample.for_each_fixed_field(&data, Bitness::Bits64, |field, value| {
    ///     values.push((field.name, value))
    /// }));
    /// assert_eq!(values[0], ("InstructionPointer", Value::Pointer(0xfedc_ba98_7654_3210)));
    /// assert_eq!(values[1], ("ThreadId", Value::U32(42)));
    /// // One byte short: nothing is handed on.
    /// assert!(!sample.for_each_fixed_field(&data[..15], Bitness::Bits64, |_, _| panic!()));
    /// ```
    #[inline]
    pub fn for_each_fixed_field<'d>(
        &self,
        data: &'d [u8],
        bitness: Bitness,
        visit: impl FnMut(&'static KernelField, Value<'d>),
    ) -> bool {
        match self.fixed_size(bitness) {
            Some(size) if size <= data.len() => {
                crate::payload::decoder::for_each_fixed_value(self.fields, data, bitness, visit);
                true
            }
            _ => false,
        }
    }

    /// [`fields_for`](Self::fields_for) of a [`Tail::LastArrayToEnd`] event.
    #[inline(never)]
    fn fields_to_end(&self, data_len: usize, bitness: Bitness) -> KernelFields {
        let table = KernelFields {
            table: self.fields,
            sized: None,
        };
        let pointer_size = crate::payload::decoder::pointer_size(bitness);
        let Some((last, head)) = self.fields.split_last() else {
            return table;
        };
        let Some(element) = last
            .in_type
            .fixed_size(pointer_size)
            .filter(|size| *size > 0)
        else {
            return table;
        };
        let mut before = 0usize;
        for field in head {
            match (field.count, field.in_type.fixed_size(pointer_size)) {
                (Count::One, Some(size)) => before = before.saturating_add(usize::from(size)),
                _ => return table,
            }
        }
        let most = match last.count {
            Count::Fixed(most) => most,
            _ => return table,
        };
        let fit = data_len
            .saturating_sub(before)
            .checked_div(usize::from(element))
            .unwrap_or(0);
        let count = u16::try_from(fit).unwrap_or(u16::MAX).min(most);
        let mut fields = [*last; MAX_TAIL_FIELDS];
        let mut len = 0usize;
        for (slot, field) in fields.iter_mut().zip(head) {
            *slot = *field;
            len = len.saturating_add(1);
        }
        if len != head.len() {
            return table;
        }
        let Some(slot) = fields.get_mut(len) else {
            return table;
        };
        *slot = last.with_count(Count::Fixed(count));
        KernelFields {
            table: self.fields,
            sized: Some((fields, len.saturating_add(1))),
        }
    }

    /// The event's name as TraceEvent prints it: `Task/Opcode`, or the task alone when the
    /// event type is 0 (an "Info" event, `EVENT_TRACE_TYPE_INFO`) or the opcode has no name
    /// (TraceEvent's `EventName`: "if Opcode == Info or OpcodeName is empty, the task name").
    ///
    /// ```
    /// use etw_classic::payload::kernel::{lookup, EVENT_TRACE, PROCESS};
    /// let dc_start = lookup(PROCESS, 3, 4).unwrap();
    /// assert_eq!(dc_start.event_name().to_string(), "Process/DCStart");
    /// let header = lookup(EVENT_TRACE, 0, 2).unwrap();
    /// assert_eq!(header.event_name().to_string(), "EventTrace");
    /// ```
    pub const fn event_name(&self) -> EventName {
        EventName {
            task: self.task_name,
            opcode: if self.event_type == 0 || self.opcode_name.is_empty() {
                None
            } else {
                Some(self.opcode_name)
            },
        }
    }
}

/// An event's name as TraceEvent prints it, written without allocating: see
/// [`KernelEvent::event_name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventName {
    /// The task name.
    pub task: &'static str,
    /// The opcode name, when it is part of the event's name.
    pub opcode: Option<&'static str>,
}

impl core::fmt::Display for EventName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.task)?;
        if let Some(opcode) = self.opcode {
            write!(f, "/{opcode}")?;
        }
        Ok(())
    }
}

/// One kernel event class: its GUID and its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct KernelClass {
    /// The MOF class name (`Process`), or TraceEvent's task name (`SysConfig`, `ImageID`) for
    /// KernelTraceControl's classes.
    pub name: &'static str,
    /// Its GUID.
    pub guid: Guid,
    /// Its events, by event type then version.
    pub events: &'static [KernelEvent],
    /// Each event's version, in the same order: the search reads these bytes rather than the
    /// events themselves (a hundred bytes each).
    versions: &'static [u8],
    /// Where each event type's events start in `events` (and where they end, at the next
    /// type's start): `starts[t]..starts[t + 1]`.
    starts: &'static [u16; 257],
}

impl KernelClass {
    /// The event of this class with `event_type` and `version`, if the table has it.
    #[inline]
    pub fn event(&self, event_type: u8, version: u16) -> Option<&'static KernelEvent> {
        let version = u8::try_from(version).ok()?;
        let of_type = usize::from(event_type);
        let start = usize::from(*self.starts.get(of_type)?);
        let end = usize::from(*self.starts.get(of_type.checked_add(1)?)?);
        let at = self
            .versions
            .get(start..end)?
            .iter()
            .position(|&known| known == version)?;
        self.events.get(start.checked_add(at)?)
    }
}

/// The versions of `events`, in order, for [`KernelClass::versions`]; evaluated when the
/// tables are compiled.
// Compile-time only: an index out of range or an overflow fails the build.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn versions<const N: usize>(events: &[KernelEvent; N]) -> [u8; N] {
    let mut versions = [0; N];
    let mut index = 0;
    while index < N {
        versions[index] = events[index].version;
        index += 1;
    }
    versions
}

/// Where each event type's events start in `events` (sorted by type), for
/// [`KernelClass::starts`]; evaluated when the tables are compiled, where a class of more than
/// 65,535 events fails the build.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::as_conversions
)]
const fn starts<const N: usize>(events: &[KernelEvent; N]) -> [u16; 257] {
    assert!(N <= u16::MAX as usize);
    let mut starts = [0u16; 257];
    let mut event_type = 0;
    let mut index = 0;
    while event_type < 257 {
        while index < N && (events[index].event_type as usize) < event_type {
            index += 1;
        }
        starts[event_type] = index as u16;
        event_type += 1;
    }
    starts
}

/// `EventTraceEvent`: the logfile header and its extensions, `{68fdd900-4a3e-11d1-84f4-0000f80464e3}`.
pub const EVENT_TRACE: Guid = Guid::from_fields(
    0x68fd_d900,
    0x4a3e,
    0x11d1,
    [0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3],
);
/// `Process`, `{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}`.
pub const PROCESS: Guid = Guid::from_fields(
    0x3d6f_a8d0,
    0xfe05,
    0x11d0,
    [0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c],
);
/// `Thread`, `{3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}`.
pub const THREAD: Guid = Guid::from_fields(
    0x3d6f_a8d1,
    0xfe05,
    0x11d0,
    [0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c],
);
/// `PageFault`, `{3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c}`.
pub const PAGE_FAULT: Guid = Guid::from_fields(
    0x3d6f_a8d3,
    0xfe05,
    0x11d0,
    [0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c],
);
/// `DiskIo`, `{3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c}`.
pub const DISK_IO: Guid = Guid::from_fields(
    0x3d6f_a8d4,
    0xfe05,
    0x11d0,
    [0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c],
);
/// `Image`, `{2cb15d1d-5fc1-11d2-abe1-00a0c911f518}`.
pub const IMAGE: Guid = Guid::from_fields(
    0x2cb1_5d1d,
    0x5fc1,
    0x11d2,
    [0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18],
);
/// `FileIo`, `{90cbdc39-4a3e-11d1-84f4-0000f80464e3}`.
pub const FILE_IO: Guid = Guid::from_fields(
    0x90cb_dc39,
    0x4a3e,
    0x11d1,
    [0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3],
);
/// `TcpIp`, `{9a280ac0-c8e0-11d1-84e2-00c04fb998a2}`.
pub const TCP_IP: Guid = Guid::from_fields(
    0x9a28_0ac0,
    0xc8e0,
    0x11d1,
    [0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2],
);
/// `UdpIp`, `{bf3a50c5-a9c9-4988-a005-2df0b7c80f80}`.
pub const UDP_IP: Guid = Guid::from_fields(
    0xbf3a_50c5,
    0xa9c9,
    0x4988,
    [0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80],
);
/// `Registry`, `{ae53722e-c863-11d2-8659-00c04fa321a1}`.
pub const REGISTRY: Guid = Guid::from_fields(
    0xae53_722e,
    0xc863,
    0x11d2,
    [0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1],
);
/// `SplitIo`, `{d837ca92-12b9-44a5-ad6a-3a65b3578aa8}`.
pub const SPLIT_IO: Guid = Guid::from_fields(
    0xd837_ca92,
    0x12b9,
    0x44a5,
    [0xad, 0x6a, 0x3a, 0x65, 0xb3, 0x57, 0x8a, 0xa8],
);
/// `PerfInfo`, `{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}`.
pub const PERF_INFO: Guid = Guid::from_fields(
    0xce1d_bfb4,
    0x137e,
    0x4da6,
    [0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc],
);
/// `StackWalk`, `{def2fe46-7bd6-4b80-bd94-f57fe20d0ce3}`.
pub const STACK_WALK: Guid = Guid::from_fields(
    0xdef2_fe46,
    0x7bd6,
    0x4b80,
    [0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3],
);
/// `ALPC`, `{45d8cccd-539f-4b72-a8b7-5c683142609a}`.
pub const ALPC: Guid = Guid::from_fields(
    0x45d8_cccd,
    0x539f,
    0x4b72,
    [0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a],
);
/// `SystemConfig` (`EventTraceConfigGuid`), `{01853a65-418f-4f36-aefc-dc0f1d2fd235}`.
pub const SYSTEM_CONFIG: Guid = Guid::from_fields(
    0x0185_3a65,
    0x418f,
    0x4f36,
    [0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35],
);
/// `Lost_Event`, `{6a399ae0-4bc6-4de9-870b-3657f8947e7e}`.
pub const LOST_EVENT: Guid = Guid::from_fields(
    0x6a39_9ae0,
    0x4bc6,
    0x4de9,
    [0x87, 0x0b, 0x36, 0x57, 0xf8, 0x94, 0x7e, 0x7e],
);
/// KernelTraceControl's `SysConfig` class (PerfView's `SysConfigTaskGuid`),
/// `{9b79ee91-b5fd-41c0-a243-4248e266e9d0}`: build, system paths and volume mappings, written
/// as classic `FULL_HEADER` events when a trace is merged.
pub const SYS_CONFIG: Guid = Guid::from_fields(
    0x9b79_ee91,
    0xb5fd,
    0x41c0,
    [0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0],
);

/// KernelTraceControl's `ImageID` class (PerfView's `ImageIDTaskGuid`),
/// `{b3e675d7-2554-4f18-830b-2762732560de}`: what identifies each loaded image on a symbol
/// server (its PE `TimeDateStamp`, its PDB's GUID and age, its version resource), written as
/// classic `FULL_HEADER` events when a trace is merged.
pub const IMAGE_ID: Guid = Guid::from_fields(
    0xb3e6_75d7,
    0x2554,
    0x4f18,
    [0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde],
);

/// Every class the tables describe.
pub static CLASSES: [KernelClass; 18] = [
    class(
        "EventTraceEvent",
        EVENT_TRACE,
        &event_trace::EVENT_TRACE_EVENTS,
        &versions(&event_trace::EVENT_TRACE_EVENTS),
        &starts(&event_trace::EVENT_TRACE_EVENTS),
    ),
    class(
        "Lost_Event",
        LOST_EVENT,
        &event_trace::LOST_EVENT_EVENTS,
        &versions(&event_trace::LOST_EVENT_EVENTS),
        &starts(&event_trace::LOST_EVENT_EVENTS),
    ),
    class(
        "Process",
        PROCESS,
        &process::PROCESS_EVENTS,
        &versions(&process::PROCESS_EVENTS),
        &starts(&process::PROCESS_EVENTS),
    ),
    class(
        "Thread",
        THREAD,
        &process::THREAD_EVENTS,
        &versions(&process::THREAD_EVENTS),
        &starts(&process::THREAD_EVENTS),
    ),
    class(
        "Image",
        IMAGE,
        &process::IMAGE_EVENTS,
        &versions(&process::IMAGE_EVENTS),
        &starts(&process::IMAGE_EVENTS),
    ),
    class(
        "DiskIo",
        DISK_IO,
        &io::DISK_IO_EVENTS,
        &versions(&io::DISK_IO_EVENTS),
        &starts(&io::DISK_IO_EVENTS),
    ),
    class(
        "SplitIo",
        SPLIT_IO,
        &io::SPLIT_IO_EVENTS,
        &versions(&io::SPLIT_IO_EVENTS),
        &starts(&io::SPLIT_IO_EVENTS),
    ),
    class(
        "FileIo",
        FILE_IO,
        &io::FILE_IO_EVENTS,
        &versions(&io::FILE_IO_EVENTS),
        &starts(&io::FILE_IO_EVENTS),
    ),
    class(
        "Registry",
        REGISTRY,
        &io::REGISTRY_EVENTS,
        &versions(&io::REGISTRY_EVENTS),
        &starts(&io::REGISTRY_EVENTS),
    ),
    class(
        "TcpIp",
        TCP_IP,
        &net::TCP_IP_EVENTS,
        &versions(&net::TCP_IP_EVENTS),
        &starts(&net::TCP_IP_EVENTS),
    ),
    class(
        "UdpIp",
        UDP_IP,
        &net::UDP_IP_EVENTS,
        &versions(&net::UDP_IP_EVENTS),
        &starts(&net::UDP_IP_EVENTS),
    ),
    class(
        "ALPC",
        ALPC,
        &net::ALPC_EVENTS,
        &versions(&net::ALPC_EVENTS),
        &starts(&net::ALPC_EVENTS),
    ),
    class(
        "PageFault",
        PAGE_FAULT,
        &perf::PAGE_FAULT_EVENTS,
        &versions(&perf::PAGE_FAULT_EVENTS),
        &starts(&perf::PAGE_FAULT_EVENTS),
    ),
    class(
        "PerfInfo",
        PERF_INFO,
        &perf::PERF_INFO_EVENTS,
        &versions(&perf::PERF_INFO_EVENTS),
        &starts(&perf::PERF_INFO_EVENTS),
    ),
    class(
        "StackWalk",
        STACK_WALK,
        &perf::STACK_WALK_EVENTS,
        &versions(&perf::STACK_WALK_EVENTS),
        &starts(&perf::STACK_WALK_EVENTS),
    ),
    class(
        "SystemConfig",
        SYSTEM_CONFIG,
        &config::SYSTEM_CONFIG_EVENTS,
        &versions(&config::SYSTEM_CONFIG_EVENTS),
        &starts(&config::SYSTEM_CONFIG_EVENTS),
    ),
    class(
        "SysConfig",
        SYS_CONFIG,
        &config::SYS_CONFIG_EVENTS,
        &versions(&config::SYS_CONFIG_EVENTS),
        &starts(&config::SYS_CONFIG_EVENTS),
    ),
    class(
        "ImageID",
        IMAGE_ID,
        &control::IMAGE_ID_EVENTS,
        &versions(&control::IMAGE_ID_EVENTS),
        &starts(&control::IMAGE_ID_EVENTS),
    ),
];

const fn class(
    name: &'static str,
    guid: Guid,
    events: &'static [KernelEvent],
    versions: &'static [u8],
    starts: &'static [u16; 257],
) -> KernelClass {
    KernelClass {
        name,
        guid,
        events,
        versions,
        starts,
    }
}

/// The class with `guid`, if the tables describe it.
pub fn class_of(guid: Guid) -> Option<&'static KernelClass> {
    CLASSES.iter().find(|class| class.guid == guid)
}

/// [`class_of`], when the tables are compiled.
// Compile-time only: an index out of range or an overflow fails the build.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn class_of_at_build(guid: Guid) -> Option<&'static KernelClass> {
    let mut index = 0;
    while index < CLASSES.len() {
        let class = &CLASSES[index];
        let known = class.guid;
        if known.data1 == guid.data1
            && known.data2 == guid.data2
            && known.data3 == guid.data3
            && u64::from_le_bytes(known.data4) == u64::from_le_bytes(guid.data4)
        {
            return Some(class);
        }
        index += 1;
    }
    None
}

/// The class of each group's events, by the group's number: [`class_of`] of
/// [`group_guid`], worked out when the tables are compiled, so that finding the class of a
/// hook is one read rather than a search by GUID.
static CLASS_OF_GROUP: [Option<&KernelClass>; 256] = classes_of_groups();

// Compile-time only: an index out of range or an overflow fails the build.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::as_conversions
)]
const fn classes_of_groups() -> [Option<&'static KernelClass>; 256] {
    let mut classes = [None; 256];
    let mut group = 0;
    while group < classes.len() {
        if let Some(guid) = group_guid(EventTraceGroup(group as u8)) {
            classes[group] = class_of_at_build(guid);
        }
        group += 1;
    }
    classes
}

/// The class of an image load logged in the `PROCESS` group (see [`class_of_hook`]).
static IMAGE_CLASS: Option<&KernelClass> = class_of_at_build(IMAGE);

/// The kernel event of class `class` with `event_type` and `version`, if the tables have it
/// (see the module's documentation for the keys and for versions the tables do not have).
///
/// ```
/// use etw_classic::payload::kernel::{lookup, PROCESS};
/// let start = lookup(PROCESS, 1, 4).unwrap();
/// assert_eq!((start.task_name, start.opcode_name), ("Process", "Start"));
/// assert_eq!(start.mof_class, "Process_V4_TypeGroup1");
/// assert_eq!(start.fields[0].name, "UniqueProcessKey");
/// assert!(lookup(PROCESS, 1, 200).is_none());
/// ```
pub fn lookup(class: Guid, event_type: u8, version: u16) -> Option<&'static KernelEvent> {
    class_of(class)?.event(event_type, version)
}

/// The class GUID of a kernel event logged with `hook` in a `SYSTEM`, `COMPACT` or `PERFINFO`
/// header: the GUID of its group (`EVENT_TRACE_GROUP_*` of ntwmi.h; the GUIDs are the MOF
/// classes' and ntwmi.h's `...Guid` names, the same list dissect.etl keeps), except that
/// group `PROCESS` type 10 is an image load (see the module's documentation). `None` for a
/// group whose GUID no source here gives (`JOB`, `MODBOUND`, `DPC`, `CC`, `HYPERVISOR`,
/// `HYPERVISORX`) and for groups past the last.
///
/// ```
/// use etw_classic::payload::kernel::{class_of_hook, IMAGE, PROCESS};
/// use etw_classic::wire::{EventTraceGroup, HookId};
/// assert_eq!(class_of_hook(HookId::new(EventTraceGroup::PROCESS, 1)), Some(PROCESS));
/// assert_eq!(class_of_hook(HookId::new(EventTraceGroup::PROCESS, 10)), Some(IMAGE));
/// ```
pub fn class_of_hook(hook: HookId) -> Option<Guid> {
    if is_image_load(hook) {
        return Some(IMAGE);
    }
    group_guid(hook.group())
}

/// Whether `hook` is group `PROCESS`, type 10: an image load, of the `Image` class.
const fn is_image_load(hook: HookId) -> bool {
    hook.group().0 == EventTraceGroup::PROCESS.0 && hook.event_type().0 == 10
}

/// The class GUID of group `group`'s events (for `PROCESS`, all but the image loads).
const fn group_guid(group: EventTraceGroup) -> Option<Guid> {
    Some(match group {
        EventTraceGroup::HEADER => EVENT_TRACE,
        EventTraceGroup::IO => DISK_IO,
        EventTraceGroup::MEMORY => PAGE_FAULT,
        EventTraceGroup::PROCESS => PROCESS,
        EventTraceGroup::FILE => FILE_IO,
        EventTraceGroup::THREAD => THREAD,
        EventTraceGroup::TCPIP => TCP_IP,
        EventTraceGroup::UDPIP => UDP_IP,
        EventTraceGroup::REGISTRY => REGISTRY,
        EventTraceGroup::CONFIG => SYSTEM_CONFIG,
        EventTraceGroup::PERFINFO => PERF_INFO,
        EventTraceGroup::IMAGE => IMAGE,
        EventTraceGroup::STACKWALK => STACK_WALK,
        EventTraceGroup::ALPC => ALPC,
        EventTraceGroup::SPLITIO => SPLIT_IO,
        _ => return other_group_guid(group),
    })
}

/// The GUIDs of the groups whose events the tables do not describe: `DbgPrint`, the spare
/// group (last branch records), `Wnf`, `Pool`, `Heap`, `Object`, `Power`, `CritSec`, `Ums`,
/// `ThreadPool` (the GUIDs of their MOF classes in wmicore.mof).
const fn other_group_guid(group: EventTraceGroup) -> Option<Guid> {
    let (data1, data2, data3, data4) = match group.0 {
        0x0A => (
            0x1397_6d09,
            0xa327,
            0x438c,
            [0x95, 0x0b, 0x7f, 0x03, 0x19, 0x28, 0x15, 0xc7],
        ),
        0x0C => (
            0x9913_4383,
            0x5248,
            0x43fc,
            [0x83, 0x4b, 0x52, 0x94, 0x54, 0xe7, 0x5d, 0xf3],
        ),
        0x0D => (
            0x4269_5762,
            0xea50,
            0x497a,
            [0x90, 0x68, 0x5c, 0xbb, 0xb3, 0x5e, 0x0b, 0x95],
        ),
        0x0E => (
            0x0268_a8b6,
            0x74fd,
            0x4302,
            [0x9d, 0xd0, 0x6e, 0x8f, 0x17, 0x95, 0xc0, 0xcf],
        ),
        0x10 => (
            0x2229_62ab,
            0x6180,
            0x4b88,
            [0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a],
        ),
        0x11 => (
            0x8949_7f50,
            0xeffe,
            0x4440,
            [0x8c, 0xf2, 0xce, 0x6b, 0x1c, 0xdc, 0xac, 0xa7],
        ),
        0x12 => (
            0xe434_45e0,
            0x0903,
            0x48c3,
            [0xb8, 0x78, 0xff, 0x0f, 0xcc, 0xeb, 0xdd, 0x04],
        ),
        0x17 => (
            0x3ac6_6736,
            0xcc59,
            0x4cff,
            [0x81, 0x15, 0x8d, 0xf5, 0x0e, 0x39, 0x81, 0x6b],
        ),
        0x19 => (
            0x9aec_974b,
            0x5b8e,
            0x4118,
            [0x9b, 0x92, 0x31, 0x86, 0xd8, 0x00, 0x2c, 0xe5],
        ),
        0x1C => (
            0xc861_d0e2,
            0xa2c1,
            0x4d36,
            [0x9f, 0x9c, 0x97, 0x0b, 0xab, 0x94, 0x3a, 0x12],
        ),
        _ => return None,
    };
    Some(Guid::from_fields(data1, data2, data3, data4))
}

/// The kernel event logged with `hook` and `version` in a `SYSTEM`, `COMPACT` or `PERFINFO`
/// header ([`class_of_hook`], then [`lookup`]). `version` is the header's `Version` without
/// the bits that announce extra words.
///
/// ```
/// use etw_classic::payload::kernel::lookup_hook;
/// use etw_classic::wire::HookId;
/// let extension = lookup_hook(HookId(0x0005), 2).unwrap();
/// assert_eq!(extension.event_name().to_string(), "EventTrace/Extension");
/// ```
#[inline]
pub fn lookup_hook(hook: HookId, version: u16) -> Option<&'static KernelEvent> {
    let class = if is_image_load(hook) {
        IMAGE_CLASS
    } else {
        *CLASS_OF_GROUP.get(usize::from(hook.group().0))?
    };
    class?.event(hook.event_type().0, version)
}

// The builders the tables are written with: one per MOF type and qualifier.

type Field = KernelField;

const fn event(
    class: Guid,
    event_type: u8,
    version: u8,
    task_name: &'static str,
    opcode_name: &'static str,
    mof_class: &'static str,
    fields: &'static [Field],
) -> KernelEvent {
    KernelEvent {
        class,
        event_type,
        version,
        provider_name: PROVIDER_NAME,
        task_name,
        opcode_name,
        mof_class,
        fields,
        tail: Tail::Exact,
        fixed_sizes: fixed_sizes(fields),
    }
}

/// How many bytes `fields` fill with 4-byte and with 8-byte pointers, when each is one value
/// of a fixed size; for [`KernelEvent::fixed_sizes`], evaluated when the tables are compiled.
// Compile-time only: an index out of range or an overflow fails the build; the `as` widens a
// `u8` (`From` is not callable in a `const fn`).
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::as_conversions
)]
const fn fixed_sizes(fields: &[Field]) -> Option<[u16; 2]> {
    let mut sizes = [0u16; 2];
    let mut index = 0;
    while index < fields.len() {
        let field = &fields[index];
        if !matches!(field.count, Count::One) {
            return None;
        }
        match (field.in_type.fixed_size(4), field.in_type.fixed_size(8)) {
            (Some(narrow), Some(wide)) => {
                sizes[0] += narrow as u16;
                sizes[1] += wide as u16;
            }
            _ => return None,
        }
        index += 1;
    }
    Some(sizes)
}

/// The same event, named as TraceEvent names the provider `provider_name`.
const fn with_provider(mut event: KernelEvent, provider_name: &'static str) -> KernelEvent {
    event.provider_name = provider_name;
    event
}

/// The same event, its data ending as `tail` says.
const fn with_tail(mut event: KernelEvent, tail: Tail) -> KernelEvent {
    event.tail = tail;
    if !matches!(tail, Tail::Exact) {
        event.fixed_sizes = None;
    }
    event
}

const fn of(name: &'static str, in_type: InType) -> Field {
    FieldSchema::new(name, in_type)
}
const fn shown(name: &'static str, in_type: InType, out_type: OutType) -> Field {
    FieldSchema::new(name, in_type).with_out_type(out_type)
}
const fn uint8(name: &'static str) -> Field {
    of(name, InType::UINT8)
}
const fn sint8(name: &'static str) -> Field {
    of(name, InType::INT8)
}
const fn uint16(name: &'static str) -> Field {
    of(name, InType::UINT16)
}
const fn sint16(name: &'static str) -> Field {
    of(name, InType::INT16)
}
const fn uint32(name: &'static str) -> Field {
    of(name, InType::UINT32)
}
const fn sint32(name: &'static str) -> Field {
    of(name, InType::INT32)
}
const fn uint64(name: &'static str) -> Field {
    of(name, InType::UINT64)
}
const fn sint64(name: &'static str) -> Field {
    of(name, InType::INT64)
}
/// `format("x")` on a `uint8`.
const fn hex8(name: &'static str) -> Field {
    shown(name, InType::UINT8, OutType::HEX_INT8)
}
/// `format("x")` on a `uint16`.
const fn hex16(name: &'static str) -> Field {
    shown(name, InType::UINT16, OutType::HEX_INT16)
}
/// `format("x")` on a `uint32`.
const fn hex32(name: &'static str) -> Field {
    shown(name, InType::UINT32, OutType::HEX_INT32)
}
/// `format("x")` on a `uint64`.
const fn hex64(name: &'static str) -> Field {
    shown(name, InType::UINT64, OutType::HEX_INT64)
}
/// A MOF `boolean`: one byte.
const fn boolean(name: &'static str) -> Field {
    shown(name, InType::UINT8, OutType::BOOLEAN)
}
/// `pointer`: 4 or 8 bytes by the event's pointer size.
const fn pointer(name: &'static str) -> Field {
    of(name, InType::POINTER)
}
/// `extension("SizeT")`: 4 or 8 bytes by the event's pointer size.
const fn size_t(name: &'static str) -> Field {
    of(name, InType::SIZET)
}
/// `extension("Sid")`: a `u32` 0 (no SID), or a `TOKEN_USER` and the SID.
const fn sid(name: &'static str) -> Field {
    of(name, InType::WBEM_SID)
}
/// `extension("GUID")`.
const fn guid(name: &'static str) -> Field {
    of(name, InType::GUID)
}
/// `extension("Port")`: a big-endian port.
const fn port(name: &'static str) -> Field {
    shown(name, InType::UINT16, OutType::PORT)
}
/// `extension("IPAddr")`, `extension("IPAddrV4")`: an IPv4 address in network order.
const fn ipv4(name: &'static str) -> Field {
    shown(name, InType::UINT32, OutType::IPV4)
}
/// `extension("IPAddrV6")`: 16 bytes of IPv6 address.
const fn ipv6(name: &'static str) -> Field {
    shown(name, InType::BINARY, OutType::IPV6)
        .with_length(crate::payload::schema::Length::Fixed(16))
}
/// A `FILETIME` (PerfView's `DateTime.FromFileTime`).
const fn filetime(name: &'static str) -> Field {
    of(name, InType::FILETIME)
}
/// `extension("WmiTime")`: a 64-bit timestamp in the session's clock.
const fn wmi_time(name: &'static str) -> Field {
    shown(name, InType::UINT64, OutType::ETW_TIME)
}
/// `extension("NoPrint")` on `uint8 Name[n]`.
const fn no_print(name: &'static str) -> Field {
    shown(name, InType::UINT8, OutType::NO_PRINT)
}
/// `string` with `format("w")`, `StringTermination("NullTerminated")`.
const fn utf16z(name: &'static str) -> Field {
    of(name, InType::UNICODE_STRING)
}
/// `string` (8-bit), `StringTermination("NullTerminated")`.
const fn ansiz(name: &'static str) -> Field {
    of(name, InType::ANSI_STRING)
}
/// `char16 Name[n]`: `n` UTF-16 code units, the text ending at the first NUL.
const fn utf16_chars(name: &'static str, len: u16) -> Field {
    of(name, InType::UNICODE_STRING).with_length(crate::payload::schema::Length::Fixed(len))
}

#[cfg(test)]
mod tests;
