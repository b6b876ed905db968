//! The records a consumer or provider passes around an event: `EVENT_TRACE`,
//! `EVENT_INSTANCE_INFO`, `MOF_FIELD` and the buffer context.

pub mod buffer_context;
pub mod event_instance_info;
pub mod event_trace;
pub mod mof_field;
