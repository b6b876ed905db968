//! The kernel's built-in classes ([`etw_classic::payload::kernel`]) as [`EventSchema`]s.
//!
//! The tables live in the `no_std` core, borrowed and static; this gives one of their events
//! the owned description every source yields, with the names TraceEvent prints: provider
//! `Windows Kernel` (`KernelTraceControl` for the `ImageID` class), the task and opcode names
//! of the table, and the event's name.

use std::sync::Arc;

use etw_classic::payload::kernel::KernelEvent;

use crate::schema::{EventSchema, Name, SchemaOrigin, SchemaSource};

/// The schema of the kernel event `event`, for data of `data_len` bytes from a logger whose
/// pointers are as wide as `bitness` says (the stack walk's frames are as many as the data
/// holds: [`KernelEvent::fields_for`]).
///
/// `event_name` is the name TraceEvent prints (`Process/DCStart`, `EventTrace` for the
/// logfile header). `opcode_name` is left out when TraceEvent leaves it out of the event's
/// name, event type 0 (`EVENT_TRACE_TYPE_INFO`, "if Opcode == Info ... the task name") or an
/// opcode with no name, so that [`EventSchema::display_name`] gives TraceEvent's name too.
///
/// ```
/// use etw_classic::payload::kernel::{lookup, EVENT_TRACE, PROCESS};
/// use etw_classic::Bitness;
/// use etw_classic_decode::kernel::kernel_schema;
///
/// let start = kernel_schema(lookup(PROCESS, 1, 4).unwrap(), 123, Bitness::Bits64);
/// assert_eq!(start.display_name().as_deref(), Some("Process/Start"));
/// assert_eq!(&*start.fields[0].name, "UniqueProcessKey");
/// let header = kernel_schema(lookup(EVENT_TRACE, 0, 2).unwrap(), 332, Bitness::Bits64);
/// assert_eq!(header.display_name().as_deref(), Some("EventTrace"));
/// assert_eq!(header.provider_name.as_deref(), Some("Windows Kernel"));
/// ```
pub fn kernel_schema(
    event: &KernelEvent,
    data_len: usize,
    bitness: etw_classic::Bitness,
) -> EventSchema {
    let mut schema = EventSchema::new(SchemaOrigin {
        source: SchemaSource::Kernel,
        place: String::new(),
    });
    let name = |text: &str| -> Name { Arc::from(text) };
    schema.provider_name = Some(name(event.provider_name));
    schema.event_name = Some(name(&event.event_name().to_string()));
    schema.task_name = Some(name(event.task_name));
    schema.opcode_name = event.event_name().opcode.map(name);
    schema.fields = event
        .fields_for(data_len, bitness)
        .iter()
        .map(|field| field.map_names(name))
        .collect();
    schema
}
