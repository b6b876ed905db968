//! The headers that begin each event in a trace buffer.

pub mod compact_trace_header;
pub mod event_header;
pub mod event_header_extended;
pub mod event_instance_guid_header;
pub mod event_instance_header;
pub mod event_trace_header;
pub mod message_trace_header;
pub mod perfinfo_trace_header;
pub mod system_trace_header;
pub mod version_first;
