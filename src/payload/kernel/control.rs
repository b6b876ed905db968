//! KernelTraceControl's `ImageID` events: what a merged trace says of each image it saw load,
//! so that its symbols can be found on another machine.
//!
//! Not in the kernel's MOF: KernelTraceControl (xperf's merge, `CreateMergedTraceFile`) writes
//! these classic events with class GUID `b3e675d7-2554-4f18-830b-2762732560de`. Layouts,
//! names and event types from PerfView's `SymbolTraceEventParser.cs` (MIT): its provider name
//! `KernelTraceControl`, its task `ImageID`, its opcodes `DBGID_LOG_TYPE_IMAGEID = 0x00`
//! (named `Info`, so the event is named `ImageID` alone), `DBGID_LOG_TYPE_NONE = 0x20`,
//! `DBGID_LOG_TYPE_RSDS = 0x24`, `DBGID_LOG_TYPE_ILRSDS = 0x25`, `DBGID_LOG_TYPE_PPDB = 0x26`,
//! `DBGID_LOG_TYPE_DETERM = 0x28` and `DBGID_LOG_TYPE_FILEVERSION = 0x40`, and the accessors of
//! the class that reads each event, whose offsets give the order, the types and the pointer
//! size dependence: `HostOffset(off, n)` is `off` plus `n` times (pointer size − 4), so a
//! field after `n` pointers moves by 4 bytes per pointer on 64-bit loggers. Field names are
//! PerfView's `PayloadNames`; the fields it reads past without naming (the `ProcessID` after
//! `ImageBase`, "redundant with the ProcessID in the event header") keep the name of its
//! commented-out accessor.
//!
//! PerfView reads these events whatever their version. The tables hold the versions the
//! traces have (`FileVersion` 0, the others 2); `DbgPPDB` and `DbgDeterm`, which no trace here
//! holds, are given version 2, the version of the other `DbgID` events.

use super::{
    ansiz, event, guid, pointer, size_t, uint16, uint32, utf16z, with_provider, Field, KernelEvent,
    CONTROL_PROVIDER_NAME, IMAGE_ID,
};

/// `ImageIDTraceData`: `ImageBase` (`GetAddressAt(0)`), `ImageSize` (`GetIntPtrAt(HostOffset(4,
/// 1))`, pointer-sized), `ProcessID` (`HostOffset(8, 2)`; PerfView shows 0 for it, "seems to
/// always be 0", but the traces' events hold their header's `ProcessId` there),
/// `TimeDateStamp` (`GetInt32At(HostOffset(12, 2))`, the PE header's), `OriginalFileName`
/// (`GetUnicodeStringAt(HostOffset(16, 2))`, NUL-terminated), the data ending after it
/// (`Validate`: `EventDataLength == SkipUnicodeString(HostOffset(16, 2))`).
const IMAGE_ID_INFO: &[Field] = &[
    pointer("ImageBase"),
    size_t("ImageSize"),
    uint32("ProcessID"),
    uint32("TimeDateStamp"),
    utf16z("OriginalFileName"),
];

/// `DbgIDRSDSTraceData` (`DbgID_RSDS`, and the same accessors in `DbgIDILRSDSTraceData` for
/// `DbgID_ILRSDS`): `ImageBase` (`GetAddressAt(0)`), `ProcessID` (`HostOffset(4, 1)`),
/// `GuidSig` (`GetGuidAt(HostOffset(8, 1))`), `Age` (`GetInt32At(HostOffset(24, 1))`),
/// `PDBFileName` (`GetUTF8StringAt(HostOffset(28, 1))`, NUL-terminated 8-bit text), the data
/// ending after it (`Validate`: `SkipUTF8String(HostOffset(28, 1))`; `DbgIDILRSDSTraceData`'s
/// `Validate` says `HostOffset(32, 1)`, but its accessor reads the name at `HostOffset(28, 1)`
/// and the traces' `DbgID_ILRSDS` events end after the name read there, as PerfView's baseline
/// `DataLen=45; ... PDBFileName=mscorlib.pdb` shows: 32 + 13 bytes on a 64-bit logger).
const DBG_ID_RSDS: &[Field] = &[
    pointer("ImageBase"),
    uint32("ProcessID"),
    guid("GuidSig"),
    uint32("Age"),
    ansiz("PDBFileName"),
];

/// `DbgPPDBTraceData`: `ImageBase`, `ProcessID` (`HostOffset(4, 1)`), `TimeDateStamp`
/// (`GetInt32At(HostOffset(8, 1))`), `MajorVersion` and `MinorVersion` (`GetByteAt` at
/// `HostOffset(12, 1)` and `HostOffset(14, 1)`: the low bytes of two 16-bit values, the data
/// ending at `HostOffset(16, 1)` by its `Validate`).
const DBG_PPDB: &[Field] = &[
    pointer("ImageBase"),
    uint32("ProcessID"),
    uint32("TimeDateStamp"),
    uint16("MajorVersion"),
    uint16("MinorVersion"),
];

/// `DbgDetermTraceData`: `ImageBase`, `ProcessID` (`HostOffset(4, 1)`), the data ending at
/// `HostOffset(8, 1)` by its `Validate`.
///
/// The `None` events are the same 12 bytes on a 64-bit logger. PerfView reads them as
/// `EmptyTraceData` (no fields), but their data is the prefix every other `DbgID` event
/// starts with, `ImageBase` then `ProcessID`: in the traces here each `None` event's
/// `ProcessID` is its header's `ProcessId` (the test of the traces checks it).
const IMAGE_BASE_AND_PROCESS: &[Field] = &[pointer("ImageBase"), uint32("ProcessID")];

/// `FileVersionTraceData`: `ImageSize` and `TimeDateStamp` (`GetInt32At(0)`,
/// `GetInt32At(4)`), then ten NUL-terminated UTF-16 strings from offset 8 (`SkipUnicodeString(8,
/// n)`), the data ending after the tenth (`Validate`: `SkipUnicodeString(8, 10)`). No pointer.
const FILE_VERSION: &[Field] = &[
    uint32("ImageSize"),
    uint32("TimeDateStamp"),
    utf16z("OrigFileName"),
    utf16z("FileDescription"),
    utf16z("FileVersion"),
    utf16z("BinFileVersion"),
    utf16z("VerLanguage"),
    utf16z("ProductName"),
    utf16z("CompanyName"),
    utf16z("ProductVersion"),
    utf16z("FileId"),
    utf16z("ProgramId"),
];

/// An `ImageID` event as TraceEvent names it: provider `KernelTraceControl`, task `ImageID`.
const fn image_id(
    event_type: u8,
    version: u8,
    opcode_name: &'static str,
    class: &'static str,
    fields: &'static [Field],
) -> KernelEvent {
    with_provider(
        event(
            IMAGE_ID,
            event_type,
            version,
            "ImageID",
            opcode_name,
            class,
            fields,
        ),
        CONTROL_PROVIDER_NAME,
    )
}

/// The events of KernelTraceControl's `ImageID` class, by event type and version.
#[rustfmt::skip]
pub(super) static IMAGE_ID_EVENTS: [KernelEvent; 7] = [
    image_id(0x00, 2, "Info", "ImageIDTraceData", IMAGE_ID_INFO),
    image_id(0x20, 2, "None", "EmptyTraceData", IMAGE_BASE_AND_PROCESS),
    image_id(0x24, 2, "DbgID_RSDS", "DbgIDRSDSTraceData", DBG_ID_RSDS),
    image_id(0x25, 2, "DbgID_ILRSDS", "DbgIDILRSDSTraceData", DBG_ID_RSDS),
    image_id(0x26, 2, "DbgPPDB", "DbgPPDBTraceData", DBG_PPDB),
    image_id(0x28, 2, "DbgDeterm", "DbgDetermTraceData", IMAGE_BASE_AND_PROCESS),
    image_id(0x40, 0, "FileVersion", "FileVersionTraceData", FILE_VERSION),
];
