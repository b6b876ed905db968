//! What the outputs, the filters and the schema lookup need to know of one event, read from its
//! header once: who logged it, for which process and thread, the numbers that say which event it
//! is, its pointer size, and the TraceLogging metadata it carries.
//!
//! | header type | provider | process, thread | id, version, opcode, level, task, keyword |
//! |---|---|---|---|
//! | `EVENT_HEADER32/64` | `ProviderId` | `ProcessId`, `ThreadId` | the `EVENT_DESCRIPTOR` |
//! | `FULL_HEADER32/64` | `Guid` | `ProcessId`, `ThreadId` | -, `Class.Version`, `Class.Type`, `Class.Level`, -, - |
//! | `INSTANCE32/64` | the header's `Guid` | `ProcessId`, `ThreadId` | as `FULL_HEADER` |
//! | `SYSTEM32/64`, `COMPACT32/64` | the kernel group of `HookId` | `ProcessId`, `ThreadId` | -, `Version`, the type of `HookId`, -, -, - |
//! | `PERFINFO32/64` | the kernel group of `HookId` | none in the header | as `SYSTEM` |
//! | `MESSAGE` | the message GUID, when its flags announce one | from its optional fields | -, -, -, -, -, - |
//!
//! The kernel's version-first headers name no GUID, only the group of `HookId` (ntwmi.h's
//! `EVENT_TRACE_GROUP_*`): they never match `--provider`, and their source is written
//! `kernel:GROUP` (for instance `kernel:PROCESS`) where a provider is printed.

use std::fmt;

use etw_classic::{
    wire::{EventHeaderFlags, EventTraceGroup, ExtendedPayload, MessageGuid, ProviderTraits},
    Bitness, Event, EventKind, EventType, Guid,
};

/// Who logged an event: a provider GUID, or, for the kernel's version-first headers, the group
/// of its `HookId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// The provider (or event class, or message) GUID.
    Provider(Guid),
    /// The kernel group, `Packet.Group` of `HookId`.
    Kernel(EventTraceGroup),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Provider(guid) => write!(f, "{guid}"),
            Self::Kernel(group) => match group.name() {
                Some(name) => write!(f, "kernel:{name}"),
                None => write!(f, "kernel:0x{:02x}", group.0),
            },
        }
    }
}

/// What one event's header says of it; `None` where its kind has no such member.
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts<'a> {
    /// Who logged it.
    pub source: Option<Source>,
    /// `ProcessId` of the headers that have one.
    pub process_id: Option<u32>,
    /// `ThreadId` of the headers that have one.
    pub thread_id: Option<u32>,
    /// `EVENT_DESCRIPTOR.Id`.
    pub event_id: Option<u16>,
    /// `EVENT_DESCRIPTOR.Version`, `Class.Version`, or a kernel header's `Version`.
    pub version: Option<u16>,
    /// `EVENT_DESCRIPTOR.Opcode`, `Class.Type`, or the type of a kernel `HookId`.
    pub opcode: Option<u8>,
    /// `EVENT_DESCRIPTOR.Level` or `Class.Level`.
    pub level: Option<u8>,
    /// `EVENT_DESCRIPTOR.Task`.
    pub task: Option<u16>,
    /// `EVENT_DESCRIPTOR.Keyword`.
    pub keyword: Option<u64>,
    /// `Class.Type` of a classic (`FULL_HEADER`, `INSTANCE`) event: `EVENT_TRACE_TYPE_START`
    /// and `EVENT_TRACE_TYPE_END` open and close a span.
    pub classic_type: Option<EventType>,
    /// What follows the header: the event data (after any extra words), the user data of an
    /// `EVENT_HEADER` event (`None` when an extended item is malformed), a message's arguments,
    /// or the whole event for a kind that is not decoded.
    pub payload: Option<&'a [u8]>,
    /// The pointer size the event was logged with: the `EVENT_HEADER`'s 32-bit flag, else the
    /// `32`/`64` of its header type; `None` for the kinds that do not say.
    pub bitness: Option<Bitness>,
    /// The TraceLogging event metadata of an `EVENT_HEADER` event (extended item 11), as the
    /// item holds it.
    pub tracelogging_metadata: Option<&'a [u8]>,
    /// The provider traits of an `EVENT_HEADER` event (extended item 12).
    pub provider_traits: Option<ProviderTraits<'a>>,
}

impl<'a> Facts<'a> {
    /// Reads the facts from `event`'s header.
    ///
    /// Each kind's facts are built as one value, never as a default filled in afterwards: the
    /// 208-byte `Facts` filled in place and then returned was copied member by member, a
    /// hundred instructions an event, more than reading the header took.
    #[inline]
    pub fn of(event: &Event<'a>) -> Self {
        let bitness = event.header_type.bitness();
        match event.kind() {
            EventKind::EventHeader { header, body } => {
                let descriptor = header.event_descriptor;
                let (mut tracelogging_metadata, mut provider_traits) = (None, None);
                let mut items = body.items();
                for item in items.by_ref() {
                    match item.map(|item| item.payload()) {
                        Ok(Ok(ExtendedPayload::EventSchemaTl(metadata))) => {
                            tracelogging_metadata = Some(metadata);
                        }
                        Ok(Ok(ExtendedPayload::ProviderTraits(traits))) => {
                            provider_traits = Some(traits);
                        }
                        _ => {}
                    }
                }
                Self {
                    source: Some(Source::Provider(header.provider_id)),
                    process_id: Some(header.process_id),
                    thread_id: Some(header.thread_id),
                    event_id: Some(descriptor.id),
                    version: Some(u16::from(descriptor.version)),
                    opcode: Some(descriptor.opcode),
                    level: Some(descriptor.level.0),
                    task: Some(descriptor.task),
                    keyword: Some(descriptor.keyword),
                    classic_type: None,
                    payload: items.user_data(),
                    // The flag is never set on disk (EVENT-HEADERS.md §1); when it is not,
                    // the header type (EVENT_HEADER32 / EVENT_HEADER64) says the pointer size.
                    bitness: if header.flags.contains(EventHeaderFlags::HEADER_32_BIT) {
                        Some(Bitness::Bits32)
                    } else {
                        bitness
                    },
                    tracelogging_metadata,
                    provider_traits,
                }
            }
            EventKind::Full { header, data } => Self::classic(&header, data, bitness),
            EventKind::Instance { header, data } => Self::classic(&header.header, data, bitness),
            EventKind::System { header, data, .. } => {
                let ids = (header.process_id, header.thread_id);
                Self::kernel(header.hook(), header.version, Some(ids), data, bitness)
            }
            EventKind::Compact { header, data, .. } => {
                let ids = (header.process_id, header.thread_id);
                Self::kernel(header.hook(), header.version, Some(ids), data, bitness)
            }
            // PERFINFO headers carry no process or thread id.
            EventKind::PerfInfo { header, data, .. } => {
                Self::kernel(header.hook(), header.version, None, data, bitness)
            }
            EventKind::Message { fields, args, .. } => {
                let ids = fields
                    .system_info
                    .map(|info| (info.process_id, info.thread_id));
                Self {
                    source: match fields.message_guid {
                        Some(MessageGuid::Guid(guid)) => Some(Source::Provider(guid)),
                        _ => None,
                    },
                    process_id: ids.map(|(process_id, _)| process_id),
                    thread_id: ids.map(|(_, thread_id)| thread_id),
                    payload: Some(args),
                    bitness,
                    ..Self::default()
                }
            }
            _ => Self {
                payload: Some(event.bytes),
                bitness,
                ..Self::default()
            },
        }
    }

    /// A classic (`FULL_HEADER`, `INSTANCE`) event: its header and data, and the pointer size
    /// of its header type.
    fn classic(
        header: &etw_classic::EventTraceHeader,
        data: &'a [u8],
        bitness: Option<Bitness>,
    ) -> Self {
        Self {
            source: Some(Source::Provider(header.guid.guid())),
            process_id: Some(header.process_id),
            thread_id: Some(header.thread_id),
            version: Some(header.class.version),
            opcode: Some(header.class.event_type.0),
            level: Some(header.class.level.0),
            classic_type: Some(header.class.event_type),
            payload: Some(data),
            bitness,
            ..Self::default()
        }
    }

    /// A SYSTEM, COMPACT or PERFINFO event: its hook, version, the process and thread ids of
    /// the headers that have them, its data, and the pointer size of its header type.
    fn kernel(
        hook: etw_classic::wire::HookId,
        version: u16,
        process_and_thread: Option<(u32, u32)>,
        data: &'a [u8],
        bitness: Option<Bitness>,
    ) -> Self {
        Self {
            source: Some(Source::Kernel(hook.group())),
            process_id: process_and_thread.map(|(process_id, _)| process_id),
            thread_id: process_and_thread.map(|(_, thread_id)| thread_id),
            version: Some(version),
            opcode: Some(hook.event_type().0),
            payload: Some(data),
            bitness,
            ..Self::default()
        }
    }

    /// The provider GUID, for `--provider`: `None` for the kernel's headers.
    pub fn provider(&self) -> Option<Guid> {
        match self.source {
            Some(Source::Provider(guid)) => Some(guid),
            _ => None,
        }
    }
}
