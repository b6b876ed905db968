//! The structures of trace buffers and .etl files: the buffer header, the logfile header and
//! the time zone it holds.

pub mod time_zone_information;
pub mod trace_logfile_header;
pub mod wmi_buffer_header;
