//! The session's own events: the logfile header (`EventTraceEvent`, event type 0, the
//! `TRACE_LOGFILE_HEADER` of the file's first event), its extensions, the rundown's end, and
//! `Lost_Event`.
//!
//! Written from the kernel's MOF (`wmicore.mof`; see the parent module for the sources and
//! the rules that turn its qualifiers into types); task and opcode names as TraceEvent prints
//! them.

use crate::payload::schema::Count;

use super::{
    ansiz, event, guid, hex32, no_print, pointer, sint64, uint16, uint32, uint64, utf16z, Field,
    KernelEvent, EVENT_TRACE, LOST_EVENT,
};

// ---- EventTraceEvent `68fdd900-4a3e-11d1-84f4-0000f80464e3` ----

/// `EventTrace_V0_Header`, version 0, event types 0.
const EVENT_TRACE_V0_HEADER: &[Field] = &[
    uint32("BufferSize"),
    uint32("Version"),
    uint32("ProviderVersion"),
    uint32("NumberOfProcessors"),
    uint64("EndTime"),
    uint32("TimerResolution"),
    uint32("MaxFileSize"),
    hex32("LogFileMode"),
    uint32("BuffersWritten"),
    uint32("StartBuffers"),
    // the MOF marks it `pointer`, but TRACE_LOGFILE_HEADER.PointerSize is a ULONG: the events are 4 bytes longer on 64-bit loggers otherwise
    uint32("PointerSize"),
    uint32("EventsLost"),
    uint32("CPUSpeed"),
    pointer("LoggerName"),
    pointer("LogFileName"),
    no_print("TimeZoneInformation").with_count(Count::Fixed(176)),
    uint64("BootTime"),
    uint64("PerfFreq"),
    uint64("StartTime"),
    hex32("ReservedFlags"),
    uint32("BuffersLost"),
    utf16z("SessionNameString"),
    utf16z("LogFileNameString"),
];

/// `Header_Extension_V0_TypeGroup`, version 0, event types 5, 32.
const HEADER_EXTENSION_V0_TYPE_GROUP: &[Field] = &[
    hex32("GroupMask1"),
    hex32("GroupMask2"),
    hex32("GroupMask3"),
    hex32("GroupMask4"),
    hex32("GroupMask5"),
    hex32("GroupMask6"),
    hex32("GroupMask7"),
    hex32("GroupMask8"),
];

/// `RDComplete_V0`, version 0, event types 8.
const RD_COMPLETE_V0: &[Field] = &[];

/// `EventTrace_V1_Header`, version 1, event types 0.
const EVENT_TRACE_V1_HEADER: &[Field] = &[
    uint32("BufferSize"),
    uint32("Version"),
    uint32("ProviderVersion"),
    uint32("NumberOfProcessors"),
    uint64("EndTime"),
    uint32("TimerResolution"),
    uint32("MaxFileSize"),
    hex32("LogFileMode"),
    uint32("BuffersWritten"),
    uint32("StartBuffers"),
    // the MOF marks it `pointer`, but TRACE_LOGFILE_HEADER.PointerSize is a ULONG: the events are 4 bytes longer on 64-bit loggers otherwise
    uint32("PointerSize"),
    uint32("EventsLost"),
    uint32("CPUSpeed"),
    pointer("LoggerName"),
    pointer("LogFileName"),
    no_print("TimeZoneInformation").with_count(Count::Fixed(176)),
    uint64("BootTime"),
    uint64("PerfFreq"),
    uint64("StartTime"),
    hex32("ReservedFlags"),
    uint32("BuffersLost"),
    utf16z("SessionNameString"),
    utf16z("LogFileNameString"),
];

/// `Header_Extension_V1_TypeGroup`, version 1, event types 5, 32.
const HEADER_EXTENSION_V1_TYPE_GROUP: &[Field] = &[
    hex32("GroupMask1"),
    hex32("GroupMask2"),
    hex32("GroupMask3"),
    hex32("GroupMask4"),
    hex32("GroupMask5"),
    hex32("GroupMask6"),
    hex32("GroupMask7"),
    hex32("GroupMask8"),
];

/// `RDComplete_V1`, version 1, event types 8.
const RD_COMPLETE_V1: &[Field] = &[];

/// `EventTrace_Header`, version 2, event types 0.
const EVENT_TRACE_HEADER: &[Field] = &[
    uint32("BufferSize"),
    uint32("Version"),
    uint32("ProviderVersion"),
    uint32("NumberOfProcessors"),
    uint64("EndTime"),
    uint32("TimerResolution"),
    uint32("MaxFileSize"),
    hex32("LogFileMode"),
    uint32("BuffersWritten"),
    uint32("StartBuffers"),
    // the MOF marks it `pointer`, but TRACE_LOGFILE_HEADER.PointerSize is a ULONG: the events are 4 bytes longer on 64-bit loggers otherwise
    uint32("PointerSize"),
    uint32("EventsLost"),
    uint32("CPUSpeed"),
    pointer("LoggerName"),
    pointer("LogFileName"),
    no_print("TimeZoneInformation").with_count(Count::Fixed(176)),
    uint64("BootTime"),
    uint64("PerfFreq"),
    uint64("StartTime"),
    hex32("ReservedFlags"),
    uint32("BuffersLost"),
    utf16z("SessionNameString"),
    utf16z("LogFileNameString"),
];

/// `Header_Extension_TypeGroup`, version 2, event types 5, 32.
const HEADER_EXTENSION_TYPE_GROUP: &[Field] = &[
    hex32("GroupMask1"),
    hex32("GroupMask2"),
    hex32("GroupMask3"),
    hex32("GroupMask4"),
    hex32("GroupMask5"),
    hex32("GroupMask6"),
    hex32("GroupMask7"),
    hex32("GroupMask8"),
    hex32("KernelEventVersion"),
];

/// `RDComplete`, version 2, event types 8.
const RD_COMPLETE: &[Field] = &[];

/// `Header_DbgIdRSDS_TypeGroup`, version 2, event types 64.
const HEADER_DBG_ID_RSDS_TYPE_GROUP: &[Field] = &[guid("Guid"), uint32("Age"), ansiz("PdbName")];

/// `Header_BuildInfo_TypeGroup`, version 2, event types 66.
const HEADER_BUILD_INFO_TYPE_GROUP: &[Field] = &[ansiz("BuildString")];

/// `Header_ProviderBinaryPath_TypeGroup`, version 2, event types 67.
const HEADER_PROVIDER_BINARY_PATH_TYPE_GROUP: &[Field] = &[
    uint32("GuidCount"),
    guid("Guid").with_count(Count::FromField(0)),
    utf16z("BinaryPath"),
];

/// `Header_PartitionInfoExtension_TypeGroup`, version 0, event types 80.
const HEADER_PARTITION_INFO_EXTENSION_TYPE_GROUP: &[Field] = &[
    uint16("EventVersion"),
    uint16("Reserved"),
    uint32("PartitionType"),
    sint64("QpcOffsetFromRoot"),
    guid("PartitionId"),
    guid("ParentId"),
];

/// `Header_LastDroppedTimes_TypeGroup`, version 2, event types 82.
const HEADER_LAST_DROPPED_TIMES_TYPE_GROUP: &[Field] = &[
    uint32("TimeStampCount"),
    uint32("Padding"),
    uint64("TimeStamp").with_count(Count::FromField(0)),
];

/// The events of `EventTraceEvent`, by event type and version.
#[rustfmt::skip]
pub(super) static EVENT_TRACE_EVENTS: [KernelEvent; 18] = [
    event(EVENT_TRACE, 0, 0, "EventTrace", "Header", "EventTrace_V0_Header", EVENT_TRACE_V0_HEADER),
    event(EVENT_TRACE, 0, 1, "EventTrace", "Header", "EventTrace_V1_Header", EVENT_TRACE_V1_HEADER),
    event(EVENT_TRACE, 0, 2, "EventTrace", "Header", "EventTrace_Header", EVENT_TRACE_HEADER),
    event(EVENT_TRACE, 5, 0, "EventTrace", "Extension", "Header_Extension_V0_TypeGroup", HEADER_EXTENSION_V0_TYPE_GROUP),
    event(EVENT_TRACE, 5, 1, "EventTrace", "Extension", "Header_Extension_V1_TypeGroup", HEADER_EXTENSION_V1_TYPE_GROUP),
    event(EVENT_TRACE, 5, 2, "EventTrace", "Extension", "Header_Extension_TypeGroup", HEADER_EXTENSION_TYPE_GROUP),
    event(EVENT_TRACE, 8, 0, "EventTrace", "RundownComplete", "RDComplete_V0", RD_COMPLETE_V0),
    event(EVENT_TRACE, 8, 1, "EventTrace", "RundownComplete", "RDComplete_V1", RD_COMPLETE_V1),
    event(EVENT_TRACE, 8, 2, "EventTrace", "RundownComplete", "RDComplete", RD_COMPLETE),
    event(EVENT_TRACE, 32, 0, "EventTrace", "EndExtension", "Header_Extension_V0_TypeGroup", HEADER_EXTENSION_V0_TYPE_GROUP),
    event(EVENT_TRACE, 32, 1, "EventTrace", "EndExtension", "Header_Extension_V1_TypeGroup", HEADER_EXTENSION_V1_TYPE_GROUP),
    event(EVENT_TRACE, 32, 2, "EventTrace", "EndExtension", "Header_Extension_TypeGroup", HEADER_EXTENSION_TYPE_GROUP),
    event(EVENT_TRACE, 64, 2, "EventTrace", "DbgIdRSDS", "Header_DbgIdRSDS_TypeGroup", HEADER_DBG_ID_RSDS_TYPE_GROUP),
    event(EVENT_TRACE, 66, 2, "EventTrace", "BuildInfo", "Header_BuildInfo_TypeGroup", HEADER_BUILD_INFO_TYPE_GROUP),
    event(EVENT_TRACE, 67, 2, "EventTrace", "ProviderBinaryPath", "Header_ProviderBinaryPath_TypeGroup", HEADER_PROVIDER_BINARY_PATH_TYPE_GROUP),
    event(EVENT_TRACE, 80, 0, "EventTrace", "PartitionInfoExtension", "Header_PartitionInfoExtension_TypeGroup", HEADER_PARTITION_INFO_EXTENSION_TYPE_GROUP),
    // The MOF's version-2 class (`Header_PartitionInfoExtensionV2_TypeGroup`) ends with two
    // UTF-16 strings, but the version-2 events of the traces (SelfDescribingSingleEvent.etl,
    // gcevents.etl, primitive-types.etl) hold 48 bytes whose own `EventVersion` is 0: the
    // version-0 layout with two GUIDs, which they fill to the last byte. The strings would leave
    // 28 bytes.
    event(EVENT_TRACE, 80, 2, "EventTrace", "PartitionInfoExtension", "Header_PartitionInfoExtension_TypeGroup", HEADER_PARTITION_INFO_EXTENSION_TYPE_GROUP),
    event(EVENT_TRACE, 82, 2, "EventTrace", "LastDroppedTimes", "Header_LastDroppedTimes_TypeGroup", HEADER_LAST_DROPPED_TIMES_TYPE_GROUP),
];

// ---- Lost_Event `6a399ae0-4bc6-4de9-870b-3657f8947e7e` ----

/// `RT_LostEvent`, version 0, event types 32, 33, 34.
const RT_LOST_EVENT: &[Field] = &[];

/// The events of `Lost_Event`, by event type and version.
#[rustfmt::skip]
pub(super) static LOST_EVENT_EVENTS: [KernelEvent; 3] = [
    event(LOST_EVENT, 32, 0, "LostEvent", "", "RT_LostEvent", RT_LOST_EVENT),
    event(LOST_EVENT, 33, 0, "LostEvent", "RTLostBuffer", "RT_LostEvent", RT_LOST_EVENT),
    event(LOST_EVENT, 34, 0, "LostEvent", "RTLostFile", "RT_LostEvent", RT_LOST_EVENT),
];
