//! Bytes ⇄ structs: the one field mechanism and every fixed layout of the trace format.
//!
//! | module | holds |
//! |---|---|
//! | `headers` | the headers that begin each event in a trace buffer |
//! | `records` | `EVENT_TRACE`, `EVENT_INSTANCE_INFO`, `MOF_FIELD`, the buffer context |
//! | `file` | `WMI_BUFFER_HEADER`, `TRACE_LOGFILE_HEADER`, `TIME_ZONE_INFORMATION` |
//! | `codes`, `class`, `guid`, `time`, `utf16`, `unions` | the values those structs hold |
//! | `layout`, `error` | which struct a length or an error is about, and what went wrong |
//!
//! Nothing here knows of providers, sessions or readers: the `write` and `read` layers build on
//! this one, never the other way round.

#[macro_use]
pub(crate) mod codes;
pub(crate) mod class;
pub(crate) mod error;
pub(crate) mod field;
pub(crate) mod file;
pub(crate) mod guid;
pub(crate) mod headers;
pub(crate) mod layout;
pub(crate) mod records;
pub(crate) mod time;
pub(crate) mod unions;
pub(crate) mod utf16;

pub use class::Class;
pub use codes::{
    CompressionFormat, EventHeaderExtType, EventHeaderFlags, EventType, HeaderFamily, HeaderType,
    Level, MarkerFlags, WnodeFlags, MAX_MOF_FIELDS,
};
pub use error::{
    CodecError, ExtendedItemFault, GuidParseError, GuidTextExpectation, PayloadLength,
};
pub use file::time_zone_information::{SystemTime, TimeZoneInformation};
pub use file::trace_logfile_header::{
    ClockType, LogInstance, LogfileNames, TraceLogfileHeader, TraceLogfileHeader32,
    TraceLogfileHeader64, VersionDetail,
};
pub use file::wmi_buffer_header::{
    BufferFlags, BufferType, WmiBufferHeader, DEFAULT_TRACE_ALIGNMENT,
};
pub use guid::Guid;
pub use headers::compact_trace_header::CompactTraceHeader;
pub use headers::event_header::{
    EventCpuTime, EventDescriptor, EventHeader, EventHeaderProperty, EventHeaderTimes,
};
pub use headers::event_header_extended::{
    ExtendedAndUserData, ExtendedInstance, ExtendedItem, ExtendedItemHeader, ExtendedItemIter,
    ExtendedItemList, ExtendedItems, ExtendedPayload, ProviderTrait, ProviderTraitIter,
    ProviderTraitType, ProviderTraits, Sid, StackKey32, StackKey64, StackTrace32, StackTrace64,
    U32Values, U64Values,
};
pub use headers::event_instance_guid_header::EventInstanceGuidHeader;
pub use headers::event_instance_header::EventInstanceHeader;
pub use headers::event_trace_header::EventTraceHeader;
pub use headers::message_trace_header::{
    MessageFields, MessageGuid, MessageSystemInfo, MessageTraceHeader, TraceMessageFlags,
};
pub use headers::perfinfo_trace_header::PerfInfoTraceHeader;
pub use headers::system_trace_header::SystemTraceHeader;
pub use headers::version_first::{EventTraceGroup, ExtraWords, HookId, PmcCounters};
pub use layout::{Bitness, Layout};
pub use records::buffer_context::BufferContext;
pub use records::event_instance_info::{
    EventInstanceInfo, EventInstanceInfo32, EventInstanceInfo64,
};
pub use records::event_trace::{EventTrace, EventTrace32, EventTrace64};
pub use records::mof_field::MofField;
pub use time::{
    cpu_time, cpu_time_nanos, filetime_to_unix, unix_to_filetime, UnixTime, UtcDateTime,
    FILETIME_UNIX_EPOCH,
};
pub use unions::{GuidOrPtr, TimesOrFlags};
pub use utf16::{Utf16Str, Utf16Units};
