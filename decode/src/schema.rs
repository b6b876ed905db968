//! The owned schema every source yields.
//!
//! A source (a manifest, MOF text, an EventSource manifest from the stream, a `MetaData/EventInfo`
//! event, TraceLogging metadata, the kernel's tables) turns what it reads into [`EventSchema`]s;
//! nothing downstream knows which source a schema came from except through its
//! [`origin`](EventSchema::origin). The fields are the core's
//! [`FieldSchema`] with owned names, in the core's preorder,
//! so that the core's decoder walks any event with them.

use std::fmt;
use std::sync::Arc;

use etw_classic::payload::FieldSchema;
use etw_classic::Guid;

use crate::facts::{Facts, Source};

/// A name in a schema: shared, because many events of one provider share task, opcode and map
/// names.
pub type Name = Arc<str>;

/// Which kind of source described an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SchemaSource {
    /// TraceLogging metadata carried by the event itself (extended items 11 and 12).
    TraceLogging,
    /// An EventSource manifest written into the stream (`ManifestData` events).
    EventSourceManifest,
    /// A `MetaData/EventInfo` event (`TRACE_EVENT_INFO`) of a merged trace.
    EventInfo,
    /// An instrumentation manifest (`.man` XML) given by the user.
    Manifest,
    /// Classic MOF text given by the user.
    Mof,
    /// The kernel's classic classes, built in.
    Kernel,
}

impl SchemaSource {
    /// The name outputs show for the source.
    pub const fn name(self) -> &'static str {
        match self {
            Self::TraceLogging => "tracelogging",
            Self::EventSourceManifest => "eventsource-manifest",
            Self::EventInfo => "eventinfo",
            Self::Manifest => "manifest",
            Self::Mof => "mof",
            Self::Kernel => "kernel",
        }
    }
}

impl fmt::Display for SchemaSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a schema came from: the kind of source and the place in it (a file and line, an
/// event's buffer and offset), for `etwc schemas` and for errors.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SchemaOrigin {
    /// The kind of source.
    pub source: SchemaSource,
    /// The place: `ClrEtwAll.man:1234`, `buffer 19 offset 0x428`, ...; empty when the source
    /// has no place (the built-in kernel tables).
    pub place: String,
}

/// Whether a map names single values or bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// Each entry names one value (`<valueMap>`, `EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP`,
    /// MOF `ValueMap`/`Values`).
    Value,
    /// Each entry names one or more bits; a value is shown as the names of its set bits
    /// (`<bitMap>`, `EVENTMAP_INFO_FLAG_MANIFEST_BITMAP`).
    Bits,
}

/// A value map or bit map: names for a field's values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueMap {
    /// The map's name, as fields refer to it.
    pub name: Name,
    /// Values or bits.
    pub kind: MapKind,
    /// `(value, name)` in the source's order.
    pub entries: Vec<(u64, Name)>,
}

impl ValueMap {
    /// The name of `value`: for a value map the entry's; for a bit map the names of the set
    /// bits joined by `|`, with any bits no entry covers in hexadecimal. `None` when a value
    /// map has no entry for it.
    pub fn describe(&self, value: u64) -> Option<String> {
        match self.kind {
            MapKind::Value => self
                .entries
                .iter()
                .find(|(entry, _)| *entry == value)
                .map(|(_, name)| name.to_string()),
            MapKind::Bits => {
                let mut names = Vec::new();
                let mut covered = 0u64;
                for (bits, name) in &self.entries {
                    if *bits != 0 && value & bits == *bits {
                        names.push(name.to_string());
                        covered |= bits;
                    }
                }
                let rest = value & !covered;
                if rest != 0 || names.is_empty() {
                    names.push(format!("{rest:#x}"));
                }
                Some(names.join("|"))
            }
        }
    }
}

/// One event's schema: its names and its fields, whatever source described it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSchema {
    /// Where it came from.
    pub origin: SchemaOrigin,
    /// The provider's name (`Microsoft-Windows-DotNETRuntime`, `solar_system`, `Windows
    /// Kernel`).
    pub provider_name: Option<Name>,
    /// The event's own name where the source gives one (TraceLogging's event name, a
    /// manifest's `symbol` or `name`, a MOF event type's `EventTypeName`).
    pub event_name: Option<Name>,
    /// The task's name (a manifest's `<task>`, a MOF event class's name).
    pub task_name: Option<Name>,
    /// The opcode's name (a manifest's `<opcode>` or `win:` opcode, a MOF `EventTypeName`).
    pub opcode_name: Option<Name>,
    /// The level's name (`win:Informational`, ...).
    pub level_name: Option<Name>,
    /// The names of the keywords the event sets.
    pub keyword_names: Vec<Name>,
    /// The fields, in the core's preorder.
    pub fields: Vec<FieldSchema<Name>>,
    /// The maps the fields name.
    pub maps: Vec<Arc<ValueMap>>,
}

impl EventSchema {
    /// An event of `origin` with no names and no fields.
    pub fn new(origin: SchemaOrigin) -> Self {
        Self {
            origin,
            provider_name: None,
            event_name: None,
            task_name: None,
            opcode_name: None,
            level_name: None,
            keyword_names: Vec::new(),
            fields: Vec::new(),
            maps: Vec::new(),
        }
    }

    /// The map called `name`, if the schema has it.
    pub fn map(&self, name: &str) -> Option<&ValueMap> {
        self.maps
            .iter()
            .map(AsRef::as_ref)
            .find(|map| &*map.name == name)
    }

    /// The event's name as TraceEvent forms it: the event's own name when the source gives
    /// one (TraceLogging), else `Task/Opcode`, the opcode left out when it is `Info` (or
    /// `win:Info`) or absent; `None` when there is neither.
    pub fn display_name(&self) -> Option<String> {
        self.display_parts().map(|(first, second)| match second {
            Some(second) => format!("{first}/{second}"),
            None => first.to_owned(),
        })
    }

    /// [`display_name`](Self::display_name) in its parts, without building it: the name, or
    /// the task and the opcode that `/` joins.
    pub fn display_parts(&self) -> Option<(&str, Option<&str>)> {
        if let Some(name) = &self.event_name {
            if self.origin.source == SchemaSource::TraceLogging {
                return Some((name, None));
            }
        }
        let opcode = self
            .opcode_name
            .as_deref()
            .map(|opcode| opcode.strip_prefix("win:").unwrap_or(opcode))
            .filter(|opcode| !opcode.is_empty() && *opcode != "Info");
        match (self.task_name.as_deref(), opcode) {
            (Some(task), opcode) => Some((task, opcode)),
            (None, Some(opcode)) => Some((opcode, None)),
            (None, None) => self.event_name.as_deref().map(|name| (name, None)),
        }
    }
}

/// What identifies an event's schema, as the sources key it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SchemaKey {
    /// A manifest-based event: provider GUID, `EVENT_DESCRIPTOR.Id` and `Version`.
    Descriptor {
        /// `ProviderId`.
        provider: Guid,
        /// `EVENT_DESCRIPTOR.Id`.
        id: u16,
        /// `EVENT_DESCRIPTOR.Version`.
        version: u8,
    },
    /// A classic (MOF) event: its event class GUID, `Class.Type` and `Class.Version`.
    Classic {
        /// The event class GUID (the header's `Guid`).
        class: Guid,
        /// `Class.Type`, the event type (opcode).
        event_type: u8,
        /// `Class.Version`.
        version: u8,
    },
}

/// Hashed as one word (the GUID's two halves and the kind and numbers folded together), for
/// the lookup made for every event of a trace: derived, the hash took a step for each part of
/// the GUID, its length and each number, one after another, each waiting on the one before.
/// Equal keys fold to equal words; keys that differ only where the fold cancels out share a
/// bucket and are told apart by their comparison.
impl core::hash::Hash for SchemaKey {
    #[inline(always)]
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        let (guid, rest) = match *self {
            Self::Descriptor {
                provider,
                id,
                version,
            } => (provider, u64::from(id) << 8 | u64::from(version)),
            Self::Classic {
                class,
                event_type,
                version,
            } => (
                class,
                1 << 32 | u64::from(event_type) << 8 | u64::from(version),
            ),
        };
        let guid = u128::from_le_bytes(guid.to_bytes_le());
        // The low half of the GUID (`Data1` to `Data3`) differs between providers; the high
        // half (`Data4`) is folded in too; the numbers stay in the low bits, which the
        // multiplying hash spreads upwards into the bits the table reads.
        let (low, high) = (guid as u64, (guid >> 64) as u64);
        state.write_u64(low.rotate_left(32) ^ high ^ rest);
    }
}

impl SchemaKey {
    /// The key of the event `facts` describe, for the kinds keyed this way.
    pub fn of(facts: &Facts<'_>) -> Option<Self> {
        let Some(Source::Provider(guid)) = facts.source else {
            return None;
        };
        let version = u8::try_from(facts.version?).ok()?;
        if facts.classic_type.is_some() {
            Some(Self::Classic {
                class: guid,
                event_type: facts.opcode?,
                version,
            })
        } else {
            Some(Self::Descriptor {
                provider: guid,
                id: facts.event_id?,
                version,
            })
        }
    }
}
