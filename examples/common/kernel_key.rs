//! Which kernel event a record is, for the tests and examples that walk real traces for the
//! kernel tables' keys (`tests/payload_kernel.rs`, `decode/tests/kernel_tables_versus_mof.rs`,
//! `examples/kernel_fields.rs`, each including this file by path).

// Not every includer reads every field.
#![allow(dead_code)]

use etw_classic::payload::kernel;
use etw_classic::wire::{ExtraWords, HookId};
use etw_classic::{EventKind, Guid};

/// A kernel event's key in the tables, and its data.
pub struct KernelKey<'a> {
    /// The class GUID: its hook's group's for the version-first headers, its own for a
    /// classic event of a kernel class.
    pub class: Guid,
    /// The hook's event type, or `Class.Type`.
    pub event_type: u8,
    /// The header's version number (without the extended-items bits).
    pub version: u16,
    /// The event's data.
    pub data: &'a [u8],
    /// `ProcessId`, for the classic events (the version-first headers are read without it).
    pub process_id: Option<u32>,
}

/// The key of an event of `kind` when it is a kernel event: SYSTEM, COMPACT and PERFINFO
/// events by the group of their hook id, classic events whose GUID is a kernel class's;
/// `None` for any other event.
pub fn kernel_key(kind: EventKind<'_>) -> Option<KernelKey<'_>> {
    let by_hook = |hook: HookId, version: u16, data| {
        Some((
            kernel::class_of_hook(hook)?,
            hook.event_type().0,
            version,
            data,
            None,
        ))
    };
    let (class, event_type, version, data, process_id) = match kind {
        EventKind::System { header, data, .. } => by_hook(header.hook(), header.version, data)?,
        EventKind::Compact { header, data, .. } => by_hook(header.hook(), header.version, data)?,
        EventKind::PerfInfo { header, data, .. } => by_hook(header.hook(), header.version, data)?,
        EventKind::Full { header, data } => (
            kernel::class_of(header.guid.guid())?.guid,
            header.class.event_type.0,
            header.class.version,
            data,
            Some(header.process_id),
        ),
        _ => return None,
    };
    Some(KernelKey {
        class,
        event_type,
        version: ExtraWords::version_number(version),
        data,
        process_id,
    })
}
