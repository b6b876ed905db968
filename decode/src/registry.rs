//! The schemas known for a trace, and the meaning of each of its events.
//!
//! A [`Registry`] holds the schemas given by the user (manifests, MOF text) and those it learns
//! as the trace streams by; [`Registry::decode`] finds the schema of one event, by the rules of
//! PAYLOADS.md §1:
//!
//! | event | schema looked up by |
//! |---|---|
//! | `EVENT_HEADER` with TraceLogging metadata (extended item 11) | the metadata itself, read in place; never the event id, which TraceLogging leaves 0 |
//! | other `EVENT_HEADER` events | (provider GUID, `EVENT_DESCRIPTOR.Id`, `Version`): manifests, EventSource manifests, `EventInfo` |
//! | classic `FULL_HEADER`/`INSTANCE` events | (event class GUID, `Class.Type`, `Class.Version`): MOF, `EventInfo` of a classic event |
//!
//! and gives the names (provider, event, task, opcode, level, keywords, process) and the fields.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use etw_classic::payload;
use etw_classic::payload::kernel::{self, KernelEvent};
use etw_classic::payload::{
    FieldSchema, ItemKind, PayloadDecoder, PayloadError, TraceLoggingEvent, Value,
};
use etw_classic::read::ReaderBuffer;
use etw_classic::wire::{EventTraceGroup, HookId};
use etw_classic::{Bitness, Guid};

use crate::buffers::{self, for_each_decoded_buffer};
use crate::event_source::{ManifestReassembly, Pushed, StreamKey};
use crate::facts::{Facts, Source};
use crate::manifest::parse_manifest_as;
use crate::render::{fields_json, FieldsJson};
use crate::schema::{EventSchema, Name, SchemaKey, SchemaSource, ValueMap};

/// Why an event has no fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Undecoded {
    /// No source described it: the key it was looked up by.
    NoSchema(SchemaKey),
    /// A kernel event (version-first header) of a group, type or version the built-in tables
    /// do not hold.
    NoKernelClass {
        /// The `HookId`'s group.
        group: u8,
        /// The `HookId`'s event type.
        event_type: u8,
        /// The header's `Version`.
        version: u16,
    },
    /// Its TraceLogging metadata could not be read.
    BadMetadata(String),
    /// A kind with no payload schema (WPP messages, whose descriptions live in PDBs; markers).
    NotDescribable,
    /// An event that is itself a description of other events (a `MetaData/EventInfo` or
    /// `EventMapInfo` event, a chunk of an EventSource manifest): read as a schema, not shown
    /// as fields. It has names ([`Description`]) but no fields.
    Description {
        /// The provider's name: `KernelTraceControl` for the `MetaData` events, the
        /// EventSource's name (its manifest's) for `ManifestData`, when the trace gave it.
        provider_name: Option<String>,
        /// The task's name (`MetaData`), if any.
        task_name: Option<&'static str>,
        /// The opcode's name (`EventInfo`, `EventMapInfo`), if any.
        opcode_name: Option<&'static str>,
        /// The event's name, as PerfView prints it: `MetaData/EventInfo`, `ManifestData`.
        event_name: &'static str,
        /// What it describes and how it is read.
        what: &'static str,
    },
}

impl Undecoded {
    /// The names of an event that has names but no fields (a [`Description`] event):
    /// provider, event, task and opcode.
    pub fn names(&self) -> Option<[Option<&str>; 4]> {
        match self {
            Self::Description {
                provider_name,
                task_name,
                opcode_name,
                event_name,
                ..
            } => Some([
                provider_name.as_deref(),
                Some(event_name),
                *task_name,
                *opcode_name,
            ]),
            _ => None,
        }
    }
}

/// An event that is itself a description of other events, named as PerfView names it (its
/// `SymbolTraceEventParser` registers `MetaData/EventInfo` and `MetaData/EventMapInfo` of
/// provider `KernelTraceControl` with no fields; its EventSource reading names a manifest chunk
/// `ManifestData` of the EventSource's provider). The registry reads these events as schemas
/// ([`Registry::learn`]); they are not shown as fields: no source gives them a field layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Description<'r> {
    /// The provider's name, when known.
    pub provider_name: Option<&'r str>,
    /// The task's name, if any.
    pub task_name: Option<&'static str>,
    /// The opcode's name, if any.
    pub opcode_name: Option<&'static str>,
    /// The event's name.
    pub event_name: &'static str,
    /// What it describes and how it is read: the reason it has no fields.
    pub what: &'static str,
}

impl Description<'_> {
    /// Why the event has no fields, with its names.
    pub fn undecoded(&self) -> Undecoded {
        Undecoded::Description {
            provider_name: self.provider_name.map(str::to_owned),
            task_name: self.task_name,
            opcode_name: self.opcode_name,
            event_name: self.event_name,
            what: self.what,
        }
    }
}

/// `MetaData/EventInfo`: PerfView's `MetaDataEventInfo` (task `MetaData`, opcode 32
/// `EventInfo`, provider `KernelTraceControl`).
const EVENT_INFO_DESCRIPTION: Description<'static> = Description {
    provider_name: Some(kernel::CONTROL_PROVIDER_NAME),
    task_name: Some("MetaData"),
    opcode_name: Some("EventInfo"),
    event_name: "MetaData/EventInfo",
    what: "a description (TRACE_EVENT_INFO) of another provider's event, read as a schema, not shown as fields",
};

/// `MetaData/EventMapInfo`: PerfView's `MetaDataEventMapInfo` (opcode 33).
const EVENT_MAP_INFO_DESCRIPTION: Description<'static> = Description {
    provider_name: Some(kernel::CONTROL_PROVIDER_NAME),
    task_name: Some("MetaData"),
    opcode_name: Some("EventMapInfo"),
    event_name: "MetaData/EventMapInfo",
    what: "a description (provider GUID and EVENT_MAP_INFO) of another provider's value map, read as a schema, not shown as fields",
};

/// The text of an EventSource's `ManifestData` event.
const MANIFEST_DATA_WHAT: &str =
    "a chunk of the provider's EventSource manifest, read as a schema, not shown as fields";

impl std::fmt::Display for Undecoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoSchema(SchemaKey::Descriptor {
                provider,
                id,
                version,
            }) => write!(
                f,
                "no schema for provider {provider} event id {id} version {version}"
            ),
            Self::NoSchema(SchemaKey::Classic {
                class,
                event_type,
                version,
            }) => write!(
                f,
                "no schema for event class {class} type {event_type} version {version}"
            ),
            Self::NoKernelClass {
                group,
                event_type,
                version,
            } => write!(
                f,
                "no built-in kernel class for group {group:#04x} type {event_type} version {version}"
            ),
            Self::BadMetadata(error) => f.write_str(error),
            Self::NotDescribable => f.write_str("a kind that carries no payload schema"),
            Self::Description { what, .. } => f.write_str(what),
        }
    }
}

/// The meaning of one event: its names and its fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decoded {
    /// Which kind of source described it.
    pub source: Option<SchemaSource>,
    /// The provider's name.
    pub provider_name: Option<String>,
    /// The event's name, as TraceEvent forms it ([`EventSchema::display_name`]).
    pub event_name: Option<String>,
    /// The task's name.
    pub task_name: Option<String>,
    /// The opcode's name.
    pub opcode_name: Option<String>,
    /// The level's name.
    pub level_name: Option<String>,
    /// The keywords' names.
    pub keyword_names: Vec<String>,
    /// The fields (empty when none could be decoded), the error that stopped them, the bytes
    /// left after them.
    pub fields: FieldsJson,
}

/// The schemas a trace's events are decoded with.
#[derive(Debug, Default)]
pub struct Registry {
    schemas: HashMap<SchemaKey, Known>,
    /// Classic schemas that hold for every version of their event type: MOF classes without
    /// an `EventVersion` ("the latest version", Microsoft's MOF documentation), keyed by
    /// (class GUID, event type).
    any_version: HashMap<(Guid, u8), Known>,
    processes: HashMap<u32, Name>,
    /// Thread names the kernel's `Thread` events gave, by thread id.
    threads: HashMap<u32, Name>,
    /// The provider names the manifests (given, or EventSource manifests of the stream) gave,
    /// by provider GUID: the names of their `ManifestData` events.
    provider_names: HashMap<Guid, Name>,
    /// The value maps `EventMapInfo` events gave, by provider and name.
    maps: HashMap<(Guid, Name), Arc<ValueMap>>,
    /// EventSource manifests being put back together from their chunks.
    reassembly: ManifestReassembly,
    /// What the trace's own descriptions could not give: each with its place.
    problems: Vec<String>,
}

/// A schema of the registry, with what walking an event with it needs, worked out when it was
/// added rather than for each event.
#[derive(Clone, Debug)]
struct Known {
    schema: Arc<EventSchema>,
    /// [`payload::last_reference`] of its fields.
    last_reference: usize,
}

impl Known {
    fn new(schema: Arc<EventSchema>) -> Self {
        let last_reference = payload::last_reference(&schema.fields);
        Self {
            schema,
            last_reference,
        }
    }

    fn found(&self) -> FoundSchema<'_> {
        FoundSchema {
            schema: &self.schema,
            last_reference: self.last_reference,
        }
    }
}

/// A schema of the registry as [`Registry::identify`] found it: the [`EventSchema`] (which it
/// dereferences to), and what walking an event with it needs, worked out when it was added.
#[derive(Clone, Copy, Debug)]
pub struct FoundSchema<'r> {
    schema: &'r EventSchema,
    last_reference: usize,
}

impl<'r> FoundSchema<'r> {
    /// The schema.
    pub const fn schema(&self) -> &'r EventSchema {
        self.schema
    }

    /// The walk of `data` with the schema's fields.
    #[inline(always)]
    fn decoder<'d>(&self, data: &'d [u8], bitness: Bitness) -> PayloadDecoder<'r, 'd, Name> {
        PayloadDecoder::with_last_reference(&self.schema.fields, data, bitness, self.last_reference)
    }
}

impl std::ops::Deref for FoundSchema<'_> {
    type Target = EventSchema;

    fn deref(&self) -> &EventSchema {
        self.schema
    }
}

/// At most how many problems learning keeps (the rest are counted, not kept).
const PROBLEMS_KEPT: usize = 64;

/// Which source wins when two describe the same event: what the user gives, then what the
/// trace says of itself, then what is built in.
const fn precedence(source: SchemaSource) -> u8 {
    match source {
        SchemaSource::Manifest | SchemaSource::Mof => 3,
        SchemaSource::EventSourceManifest | SchemaSource::TraceLogging => 2,
        SchemaSource::EventInfo => 1,
        _ => 0,
    }
}

/// Which kind of file a path given for schemas is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaFile {
    /// An instrumentation manifest (`.man`, `.xml`).
    Manifest,
    /// Classic MOF text (`.mof`).
    Mof,
}

impl SchemaFile {
    /// The extensions a folder's files of this kind have.
    const fn extensions(self) -> &'static [&'static str] {
        match self {
            Self::Manifest => &["man", "xml"],
            Self::Mof => &["mof"],
        }
    }
}

impl Registry {
    /// A registry that knows no schema.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `schema` under `key` unless a schema of a source that takes precedence is there
    /// already (the user's files, then the trace's own descriptions, then what is built in);
    /// says whether it was added.
    pub fn insert(&mut self, key: SchemaKey, schema: Arc<EventSchema>) -> bool {
        match self.schemas.get(&key) {
            Some(known)
                if precedence(known.schema.origin.source) > precedence(schema.origin.source) =>
            {
                false
            }
            _ => {
                self.schemas.insert(key, Known::new(schema));
                true
            }
        }
    }

    /// The schema under `key`; for a classic key with no schema of its version, the schema of
    /// its event type that holds for every version.
    #[inline]
    pub fn get(&self, key: &SchemaKey) -> Option<&Arc<EventSchema>> {
        self.known(key).map(|known| &known.schema)
    }

    /// [`get`](Self::get), with what the walk needs.
    #[inline(always)]
    fn known(&self, key: &SchemaKey) -> Option<&Known> {
        self.schemas.get(key).or_else(|| match *key {
            SchemaKey::Classic {
                class, event_type, ..
            } => self.any_version.get(&(class, event_type)),
            SchemaKey::Descriptor { .. } => None,
        })
    }

    /// Loads every schema of the manifest `text` (`place` names it in errors); returns how
    /// many events it describes.
    ///
    /// # Errors
    /// What the manifest parser found wrong, at its line and column.
    pub fn load_manifest(&mut self, text: &str, place: &str) -> Result<usize, String> {
        let manifest =
            crate::manifest::parse_manifest(text, place).map_err(|error| error.to_string())?;
        Ok(self.add_manifest(&manifest))
    }

    /// Adds the events of a parsed manifest; returns how many.
    pub fn add_manifest(&mut self, manifest: &crate::manifest::Manifest) -> usize {
        let mut added = 0;
        for provider in &manifest.providers {
            self.provider_names
                .entry(provider.guid)
                .or_insert_with(|| Arc::clone(&provider.name));
            for (&(id, version), event) in &provider.events {
                let key = SchemaKey::Descriptor {
                    provider: provider.guid,
                    id,
                    version,
                };
                added += usize::from(self.insert(key, Arc::new(event.schema.clone())));
            }
        }
        added
    }

    /// Loads every event type of the MOF `text` (`place` names it in errors); returns how many.
    ///
    /// # Errors
    /// What the MOF parser found wrong, at its line and column.
    pub fn load_mof(&mut self, text: &str, place: &str) -> Result<usize, String> {
        let mof = crate::mof::parse_mof(text, place).map_err(|error| error.to_string())?;
        let mut added = 0;
        for (key, event) in &mof.events {
            let schema = Arc::new(event.schema.clone());
            match key.version.map(u8::try_from) {
                Some(Ok(version)) => {
                    let key = SchemaKey::Classic {
                        class: key.guid,
                        event_type: key.event_type,
                        version,
                    };
                    added += usize::from(self.insert(key, schema));
                }
                // A version no header can carry (Class.Version is one byte) describes nothing.
                Some(Err(_)) => {}
                None => {
                    self.any_version
                        .insert((key.guid, key.event_type), Known::new(schema));
                    added += 1;
                }
            }
        }
        Ok(added)
    }

    /// Loads the schemas of `path`: a file of `kind`, or a folder whose files of that kind
    /// (by extension, in name order) are each loaded. Returns how many events were added.
    ///
    /// # Errors
    /// A path that cannot be read, a file that is not UTF-8 (a manifest may also be UTF-16
    /// with a byte order mark), or what its parser found wrong: each names the file.
    pub fn load_path(&mut self, path: &std::path::Path, kind: SchemaFile) -> Result<usize, String> {
        let cannot = |error: std::io::Error| format!("cannot read {}: {error}", path.display());
        if path.is_dir() {
            let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(path)
                .map_err(cannot)?
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|file| {
                    file.extension()
                        .and_then(|extension| extension.to_str())
                        .is_some_and(|extension| {
                            kind.extensions()
                                .iter()
                                .any(|known| extension.eq_ignore_ascii_case(known))
                        })
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(format!(
                    "{} holds no {} file",
                    path.display(),
                    kind.extensions().join(" or .")
                ));
            }
            let mut added = 0;
            for file in files {
                added += self.load_path(&file, kind)?;
            }
            return Ok(added);
        }
        let bytes = std::fs::read(path).map_err(cannot)?;
        let place = path.display().to_string();
        match kind {
            SchemaFile::Manifest => {
                let manifest =
                    crate::manifest::parse_manifest_bytes(&bytes, &place, SchemaSource::Manifest)
                        .map_err(|error| error.to_string())?;
                Ok(self.add_manifest(&manifest))
            }
            SchemaFile::Mof => {
                let text = std::str::from_utf8(&bytes)
                    .map_err(|error| format!("{place}: not UTF-8 text ({error})"))?;
                self.load_mof(text, &place)
            }
        }
    }

    /// The registry `etwc etl` and the Python module decode a trace with: the manifests and MOF
    /// files (or folders of them) given, loaded in that order, then what a first pass over the
    /// trace at `path` learns ([`learn_file`](Self::learn_file); `None` for a stream, which
    /// cannot be read twice).
    ///
    /// # Errors
    /// A manifest or MOF file that cannot be read or parsed (the message names it, with the
    /// line for a parse error). The first pass reports nothing: what it cannot read, the
    /// output's pass reports.
    pub fn for_trace(
        manifests: &[impl AsRef<std::path::Path>],
        mofs: &[impl AsRef<std::path::Path>],
        path: Option<&str>,
    ) -> Result<Self, String> {
        let mut registry = Self::new();
        for manifest in manifests {
            registry.load_path(manifest.as_ref(), SchemaFile::Manifest)?;
        }
        for mof in mofs {
            registry.load_path(mof.as_ref(), SchemaFile::Mof)?;
        }
        if let Some(path) = path {
            registry.learn_file(path);
        }
        Ok(registry)
    }

    /// [`learn`](Self::learn)s from every event of the .etl file at `path` that can be read:
    /// the process and thread names, and the descriptions the trace carries.
    pub fn learn_file(&mut self, path: &str) {
        if let Ok(reader) = etw_classic::EtlReader::open(path) {
            self.learn_reader(reader, path);
        }
    }

    /// [`learn`](Self::learn)s from every event `reader` can read, of the .etl file at `path`
    /// (which names the events in the messages of what cannot be learned).
    ///
    /// The buffers are decompressed on every core ([`for_each_decoded_buffer`]); those with an
    /// event [`learn`](Self::learn) can use are then learned from in file order, on this
    /// thread.
    pub fn learn_reader<R: std::io::Read>(
        &mut self,
        mut reader: etw_classic::EtlReader<R>,
        path: &str,
    ) {
        let teaching = |buffer: &ReaderBuffer<'_>| {
            buffer
                .events()
                .map_while(Result::ok)
                .any(|event| teaches(&Facts::of(&event)))
        };
        for_each_decoded_buffer(&mut reader, buffers::threads(), teaching, |decoded| {
            let Ok((buffer, true)) = decoded else {
                return true;
            };
            let position = buffer.position;
            for event in buffer.events() {
                let Ok(event) = event else { break };
                self.learn(&Facts::of(&event), || {
                    format!(
                        "{path}: buffer {} (file offset {:#x}) event offset {:#x}",
                        position.index, position.file_offset, event.offset
                    )
                });
            }
            true
        });
    }

    /// Every schema and its key, in no particular order.
    pub fn schemas(&self) -> impl Iterator<Item = (&SchemaKey, &Arc<EventSchema>)> {
        self.schemas.iter().map(|(key, known)| (key, &known.schema))
    }

    /// The classic schemas that hold for every version of their event type (MOF classes
    /// without an `EventVersion`), each with its event class GUID and event type, in no
    /// particular order.
    pub fn any_version_schemas(&self) -> impl Iterator<Item = ((Guid, u8), &Arc<EventSchema>)> {
        self.any_version
            .iter()
            .map(|(key, known)| (*key, &known.schema))
    }

    /// Names process `pid` (the image file name without folder or extension).
    pub fn name_process(&mut self, pid: u32, name: Name) {
        self.processes.insert(pid, name);
    }

    /// The name of process `pid`, if the trace named it.
    pub fn process_name(&self, pid: u32) -> Option<&Name> {
        self.processes.get(&pid)
    }

    /// The name of thread `tid`, if the trace named it (the last name given).
    pub fn thread_name(&self, tid: u32) -> Option<&Name> {
        self.threads.get(&tid)
    }

    /// Which schema describes the event `facts` describe, or why none does: enough to name
    /// it without decoding its fields.
    ///
    /// Called once for every event, it is inlined into the caller, and its result is best
    /// matched where it lies (`if let Ok(identified) = &registry.identify(facts)`): moving
    /// the 88-byte [`Identified`] out of the `Result` cost 2 of the 29 ms that decoding
    /// every field of `net.4.5.2.x64.etl` takes on one core (`cargo bench -p
    /// etw-classic-decode --bench trace`), the copy stalling on the stores just made.
    #[inline(always)]
    pub fn identify<'r, 'e>(&'r self, facts: &Facts<'e>) -> Result<Identified<'r, 'e>, Undecoded> {
        if let Some(metadata) = facts.tracelogging_metadata {
            let event = TraceLoggingEvent::parse(metadata)
                .map_err(|error| Undecoded::BadMetadata(error.to_string()))?;
            let provider = facts.provider_traits.and_then(|traits| traits.name_str());
            return Ok(Identified::TraceLogging { event, provider });
        }
        if let Some(Source::Kernel(group)) = facts.source {
            let (event_type, version) = (facts.opcode.unwrap_or(0), facts.version.unwrap_or(0));
            let hook = HookId::new(group, event_type);
            // The error is built only when there is one (`ok_or` built it for every event).
            return match kernel::lookup_hook(hook, version) {
                Some(event) => Ok(Identified::Kernel(event)),
                None => Err(Undecoded::NoKernelClass {
                    group: group.0,
                    event_type,
                    version,
                }),
            };
        }
        let key = SchemaKey::of(facts).ok_or(Undecoded::NotDescribable)?;
        if let Some(known) = self.known(&key) {
            return Ok(Identified::Schema(known.found()));
        }
        if let Some(description) = self.description(facts) {
            return Ok(Identified::Description(description));
        }
        // A classic event of a kernel class (the logfile header event, `EventTrace`, and the
        // events merged traces log with the class GUID), when no given schema describes it.
        if let SchemaKey::Classic {
            class,
            event_type,
            version,
        } = key
        {
            if let Some(event) = kernel::lookup(class, event_type, u16::from(version)) {
                return Ok(Identified::Kernel(event));
            }
        }
        Err(Undecoded::NoSchema(key))
    }

    /// The names of an event that is itself a description, if `facts`' event is one.
    fn description(&self, facts: &Facts<'_>) -> Option<Description<'_>> {
        let Some(Source::Provider(guid)) = facts.source else {
            return None;
        };
        if guid == payload::METADATA_GUID && facts.classic_type.is_some() {
            return match facts.opcode {
                Some(payload::EVENT_INFO_TYPE) => Some(EVENT_INFO_DESCRIPTION),
                Some(payload::EVENT_MAP_INFO_TYPE) => Some(EVENT_MAP_INFO_DESCRIPTION),
                _ => None,
            };
        }
        is_manifest_chunk(facts).then(|| Description {
            provider_name: self.provider_names.get(&guid).map(|name| &**name),
            task_name: None,
            opcode_name: None,
            event_name: "ManifestData",
            what: MANIFEST_DATA_WHAT,
        })
    }

    /// The names and fields of the event `facts` describe, or why it has none.
    pub fn decode(&self, facts: &Facts<'_>) -> Result<Decoded, Undecoded> {
        self.identify(facts)?.decode(facts)
    }

    /// Learns what `facts`' event (at `place`, for messages) says of the trace:
    /// - the name of the process a kernel `Process` event (start, end, rundown) describes, as
    ///   TraceEvent names processes: the image file name without its folder and extension;
    /// - the name of the thread a kernel `Thread` event gives (`ThreadName` of the start, end
    ///   and rundown events from version 4, and of `SetName`), when it is not empty;
    /// - the schema a `MetaData/EventInfo` event gives (a `TRACE_EVENT_INFO`), and the value
    ///   map an `EventMapInfo` event gives, attached to the schemas that name it;
    /// - a chunk of an EventSource manifest (`ManifestData`), and once its stream is whole,
    ///   the schemas of the manifest.
    ///
    /// What cannot be learned (a description that does not read, a manifest stream dropped)
    /// is kept in [`problems`](Self::problems).
    pub fn learn(&mut self, facts: &Facts<'_>, place: impl Fn() -> String) {
        if !teaches(facts) {
            return;
        }
        if let Some((pid, name)) = process_named(facts) {
            self.processes.insert(pid, Arc::from(name));
            return;
        }
        if let Some((tid, name)) = thread_named(facts) {
            self.threads.insert(tid, Arc::from(name));
            return;
        }
        let Some(Source::Provider(guid)) = facts.source else {
            return;
        };
        let data = facts.payload.unwrap_or_default();
        if guid == payload::METADATA_GUID && facts.classic_type.is_some() {
            match facts.opcode {
                Some(payload::EVENT_INFO_TYPE) => self.learn_event_info(data, &place()),
                Some(payload::EVENT_MAP_INFO_TYPE) => self.learn_event_map_info(data, &place()),
                _ => {}
            }
            return;
        }
        if is_manifest_chunk(facts) {
            let key = StreamKey {
                provider: guid,
                process_id: facts.process_id.unwrap_or(0),
                thread_id: facts.thread_id.unwrap_or(0),
            };
            match self.reassembly.push(key, data, place()) {
                Pushed::Complete(manifest) => {
                    match parse_manifest_as(
                        &manifest.xml,
                        &manifest.place,
                        SchemaSource::EventSourceManifest,
                    ) {
                        Ok(parsed) => {
                            self.add_manifest(&parsed);
                        }
                        Err(error) => self.problem(error.to_string()),
                    }
                }
                Pushed::Dropped { place, reason, .. } | Pushed::Ignored { place, reason, .. } => {
                    self.problem(format!(
                        "{place}: EventSource manifest chunk of {guid}: {reason}"
                    ));
                }
                _ => {}
            }
        }
    }

    fn learn_event_info(&mut self, data: &[u8], place: &str) {
        let maps = &self.maps;
        let result = crate::event_info::event_schema(data, place, |name| {
            maps.iter()
                .find(|((_, map_name), _)| &**map_name == name)
                .map(|(_, map)| Arc::clone(map))
        });
        match result {
            Ok((key, schema)) => {
                self.insert(key, Arc::new(schema));
            }
            Err(error) => self.problem(error.to_string()),
        }
    }

    fn learn_event_map_info(&mut self, data: &[u8], place: &str) {
        match crate::event_info::value_map(data, place) {
            Ok((provider, map)) => {
                let map = Arc::new(map);
                for (key, known) in &mut self.schemas {
                    let SchemaKey::Descriptor { provider: of, .. } = key else {
                        continue;
                    };
                    if *of == provider && known.schema.origin.source == SchemaSource::EventInfo {
                        crate::event_info::attach_map(Arc::make_mut(&mut known.schema), &map);
                        // A map leaves the counts and lengths as they were; worked out again
                        // all the same, since the schema changed.
                        known.last_reference = payload::last_reference(&known.schema.fields);
                    }
                }
                self.maps.insert((provider, Arc::clone(&map.name)), map);
            }
            Err(error) => self.problem(error.to_string()),
        }
    }

    fn problem(&mut self, problem: String) {
        if self.problems.len() < PROBLEMS_KEPT {
            self.problems.push(problem);
        }
    }

    /// What the trace's own descriptions could not give while learning (at most 64), each
    /// naming its place; and the EventSource manifest streams still incomplete.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = self.problems.clone();
        for stream in self.reassembly.incomplete() {
            problems.push(format!(
                "EventSource manifest of {} (process {}, thread {}) incomplete at the end of the trace",
                stream.key.provider, stream.key.process_id, stream.key.thread_id
            ));
        }
        problems
    }
}

/// Whether [`Registry::learn`] can learn anything from `facts`' event, by its header alone: a
/// kernel `Process` event of types 1 to 4 or `Thread` event of types 1 to 4 or 72 (what
/// [`process_named`] and [`thread_named`] read), a `MetaData` `EventInfo` or `EventMapInfo`
/// event, or a `ManifestData` chunk. `learn` ignores every other event, so a pass that skips
/// buffers without one learns the same.
fn teaches(facts: &Facts<'_>) -> bool {
    match facts.source {
        Some(Source::Kernel(group)) => match facts.opcode {
            Some(event_type) if group == EventTraceGroup::PROCESS => (1..=4).contains(&event_type),
            Some(event_type) if group == EventTraceGroup::THREAD => {
                matches!(event_type, 1..=4 | 72)
            }
            _ => false,
        },
        Some(Source::Provider(guid)) => {
            (guid == payload::METADATA_GUID
                && facts.classic_type.is_some()
                && matches!(
                    facts.opcode,
                    Some(payload::EVENT_INFO_TYPE | payload::EVENT_MAP_INFO_TYPE)
                ))
                || is_manifest_chunk(facts)
        }
        None => false,
    }
}

/// Whether `facts`' event is a chunk of an EventSource manifest: an `EVENT_HEADER` event of
/// id `0xFFFE`, task `0xFFFE`, opcode `0xFE` (PAYLOADS.md §3).
fn is_manifest_chunk(facts: &Facts<'_>) -> bool {
    facts.classic_type.is_none()
        && facts.event_id == Some(payload::MANIFEST_EVENT_ID)
        && facts.opcode == Some(payload::MANIFEST_OPCODE)
        && facts.task == Some(payload::MANIFEST_TASK)
}

/// The process id and name a kernel `Process` event gives (types 1 start, 2 end, 3 rundown
/// start, 4 rundown end: `ProcessId` and `ImageFileName`).
fn process_named(facts: &Facts<'_>) -> Option<(u32, String)> {
    let Some(Source::Kernel(group)) = facts.source else {
        return None;
    };
    let event_type = facts.opcode?;
    if group != EventTraceGroup::PROCESS || !(1..=4).contains(&event_type) {
        return None;
    }
    let event = kernel::lookup_hook(HookId::new(group, event_type), facts.version?)?;
    let data = facts.payload?;
    let bitness = facts.bitness.unwrap_or(Bitness::Bits64);
    let fields = event.fields_for(data.len(), bitness);
    let mut pid = None;
    let mut image = None;
    for item in PayloadDecoder::new(&fields, data, bitness) {
        let Ok(item) = item else { break };
        match (item.field.name, item.kind) {
            ("ProcessId", ItemKind::Value(value)) => {
                pid = value.as_u64().and_then(|pid| u32::try_from(pid).ok());
            }
            ("ImageFileName", ItemKind::Value(Value::Ansi(bytes))) => {
                image = Some(crate::render::ansi(bytes));
            }
            _ => {}
        }
        if pid.is_some() && image.is_some() {
            break;
        }
    }
    let image = image?;
    let file = image.rsplit(['\\', '/']).next().unwrap_or(&image);
    let stem = match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => file,
    };
    Some((pid?, stem.to_owned()))
}

/// The thread id and name a kernel `Thread` event gives: `TThreadId` and `ThreadName` of
/// `Thread_TypeGroup1` (types 1 start, 2 end, 3 and 4 rundown, version 4 and later),
/// `ThreadId` and `ThreadName` of `ThreadSetName` (type 72); `None` when the name is empty.
fn thread_named(facts: &Facts<'_>) -> Option<(u32, String)> {
    let Some(Source::Kernel(group)) = facts.source else {
        return None;
    };
    let event_type = facts.opcode?;
    if group != EventTraceGroup::THREAD || !matches!(event_type, 1..=4 | 72) {
        return None;
    }
    let event = kernel::lookup_hook(HookId::new(group, event_type), facts.version?)?;
    let data = facts.payload?;
    let bitness = facts.bitness.unwrap_or(Bitness::Bits64);
    let fields = event.fields_for(data.len(), bitness);
    let mut tid = None;
    let mut name = None;
    for item in PayloadDecoder::new(&fields, data, bitness) {
        let Ok(item) = item else { break };
        match (item.field.name, item.kind) {
            ("TThreadId" | "ThreadId", ItemKind::Value(value)) => {
                tid = value.as_u64().and_then(|tid| u32::try_from(tid).ok());
            }
            ("ThreadName", ItemKind::Value(Value::Utf16(text))) => {
                name = Some(text.chars().collect::<String>());
            }
            _ => {}
        }
    }
    Some((tid?, name.filter(|name| !name.is_empty())?))
}

/// The core's walk of `data` with `fields`, each item handed to `visit` by name.
fn walk_fields<N: AsRef<str>>(
    fields: &[FieldSchema<N>],
    data: &[u8],
    bitness: Bitness,
    visit: &mut impl FnMut(&str, &ItemKind<'_>),
) -> Option<PayloadError> {
    walk_items(PayloadDecoder::new(fields, data, bitness), visit)
}

/// Every item of `decoder`'s walk handed to `visit` by name; the error that ended it, if any.
fn walk_items<N: AsRef<str>>(
    decoder: PayloadDecoder<'_, '_, N>,
    visit: &mut impl FnMut(&str, &ItemKind<'_>),
) -> Option<PayloadError> {
    let mut failure = None;
    // The walk ends at its first error: nothing comes after it.
    decoder.for_each(|item| match item {
        Ok(item) => {
            // `visit` is handed a copy of the kind, not a reference into the item: a visitor
            // the compiler cannot see through (one that keeps the reference, or `black_box`)
            // would otherwise make it build the whole item (its bytes, offset and index) for
            // every value. Decoding every field of net.4.5.2.x64.etl took 10% longer so.
            let kind = item.kind;
            visit(item.field.name.as_ref(), &kind)
        }
        Err(error) => failure = Some(error),
    });
    failure
}

/// How many fields TraceLogging metadata may describe here; more is reported as an error.
const TRACELOGGING_FIELDS: usize = 512;

/// An event's name in its parts ([`Identified::event_name_parts`]): shown as `first`, or
/// `first/second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventNameParts<'a> {
    /// The name, or the task.
    pub first: &'a str,
    /// The opcode, when it is part of the name.
    pub second: Option<&'a str>,
}

impl std::fmt::Display for EventNameParts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.first)?;
        if let Some(second) = self.second {
            write!(f, "/{second}")?;
        }
        Ok(())
    }
}

/// The schema that describes an event, found by [`Registry::identify`].
#[derive(Clone, Copy, Debug)]
pub enum Identified<'r, 'e> {
    /// A schema of the registry (a manifest, MOF, an EventSource manifest, `EventInfo`).
    Schema(FoundSchema<'r>),
    /// A kernel class built in.
    Kernel(&'static KernelEvent),
    /// An event that is itself a description: names, but no fields
    /// ([`walk`](Self::walk), [`check`](Self::check) and [`decode`](Self::decode) say why).
    Description(Description<'r>),
    /// TraceLogging metadata carried by the event.
    TraceLogging {
        /// The metadata, read in place.
        event: TraceLoggingEvent<'e>,
        /// The provider's name from the provider traits.
        provider: Option<&'e str>,
    },
}

impl Identified<'_, '_> {
    /// The provider's name.
    pub fn provider_name(&self) -> Option<&str> {
        match self {
            Self::Schema(schema) => schema.provider_name.as_deref(),
            Self::Kernel(event) => Some(event.provider_name),
            Self::Description(description) => description.provider_name,
            Self::TraceLogging { provider, .. } => *provider,
        }
    }

    /// The event's name, as TraceEvent forms it.
    pub fn event_name(&self) -> Option<String> {
        self.event_name_parts().map(|name| name.to_string())
    }

    /// The event's name ([`event_name`](Self::event_name)) without building it: a name, or
    /// a task and an opcode that `/` joins, shown by its `Display`.
    pub fn event_name_parts(&self) -> Option<EventNameParts<'_>> {
        let (first, second) = match self {
            Self::Schema(schema) => schema.display_parts()?,
            Self::Kernel(event) => {
                let name = event.event_name();
                (name.task, name.opcode)
            }
            Self::Description(description) => (description.event_name, None),
            Self::TraceLogging { event, .. } => (event.name, None),
        };
        Some(EventNameParts { first, second })
    }

    /// The task's name.
    pub fn task_name(&self) -> Option<&str> {
        match self {
            Self::Schema(schema) => schema.task_name.as_deref(),
            Self::Kernel(event) => Some(event.task_name),
            Self::Description(description) => description.task_name,
            Self::TraceLogging { .. } => None,
        }
    }

    /// The opcode's name.
    pub fn opcode_name(&self) -> Option<&str> {
        match self {
            Self::Schema(schema) => schema.opcode_name.as_deref(),
            Self::Kernel(event) => event.event_name().opcode,
            Self::Description(description) => description.opcode_name,
            Self::TraceLogging { .. } => None,
        }
    }

    /// The level's name, when the schema gives one.
    pub fn level_name(&self) -> Option<&str> {
        match self {
            Self::Schema(schema) => schema.level_name.as_deref(),
            _ => None,
        }
    }

    /// The keywords' names the schema gives (none for most sources).
    pub fn keyword_names(&self) -> &[Name] {
        match self {
            Self::Schema(schema) => &schema.keyword_names,
            _ => &[],
        }
    }

    /// Walks the fields of `facts`' event with this schema, handing each item to `visit` with
    /// its field's name, without building anything: the cost of decoding alone. Returns how
    /// the walk ended: `None` at the end of the fields, or the error that stopped it.
    ///
    /// # Errors
    /// TraceLogging metadata whose fields cannot be read; an event that is itself a
    /// description ([`Undecoded::Description`]).
    // Inlined, so that a caller that drops the outcome never has it built: returned from a
    // call, the 96-byte `Result` was copied out whole for each event (decoding every field of
    // net.4.5.2.x64.etl: 5M of its 600M instructions, and a stall on the copy).
    #[inline]
    pub fn walk(
        &self,
        facts: &Facts<'_>,
        mut visit: impl FnMut(&str, &ItemKind<'_>),
    ) -> Result<Option<PayloadError>, Undecoded> {
        let visit = &mut visit;
        let data = facts.payload.unwrap_or_default();
        let bitness = facts.bitness.unwrap_or(Bitness::Bits64);
        Ok(match self {
            Self::Schema(schema) => walk_items(schema.decoder(data, bitness), visit),
            // Most kernel events (a CPU trace's samples) are a few fixed-size values.
            Self::Kernel(event) => {
                let fixed = event.for_each_fixed_field(data, bitness, |field, value| {
                    visit(field.name, &ItemKind::Value(value));
                });
                if fixed {
                    None
                } else {
                    walk_fields(&event.fields_for(data.len(), bitness), data, bitness, visit)
                }
            }
            Self::TraceLogging { event, .. } => {
                walk_fields(&tracelogging_fields(event)?, data, bitness, visit)
            }
            Self::Description(description) => return Err(description.undecoded()),
        })
    }

    /// How many fields the schema has for `facts`' event (structures and their members each
    /// count), and how walking its data with them ends, without rendering a value: cheaper
    /// than [`decode`](Self::decode) when only the outcome matters, and saying more than
    /// [`walk`](Self::walk): the field count and the bytes left.
    ///
    /// # Errors
    /// TraceLogging metadata whose fields cannot be read, or that describe more than 512
    /// fields; an event that is itself a description ([`Undecoded::Description`]).
    pub fn check(&self, facts: &Facts<'_>) -> Result<Checked, Undecoded> {
        let data = facts.payload.unwrap_or_default();
        let bitness = facts.bitness.unwrap_or(Bitness::Bits64);
        match self {
            Self::Schema(schema) => Ok(check_fields_of(&schema.fields, data, bitness)),
            Self::Kernel(event) => Ok(check_fields_of(
                &event.fields_for(data.len(), bitness),
                data,
                bitness,
            )),
            Self::TraceLogging { event, .. } => {
                Ok(check_fields_of(&tracelogging_fields(event)?, data, bitness))
            }
            Self::Description(description) => Err(description.undecoded()),
        }
    }

    /// The names and the fields of `facts`' event decoded with this schema.
    ///
    /// # Errors
    /// TraceLogging metadata whose fields cannot be read, or that describe more than 512
    /// fields; an event that is itself a description ([`Undecoded::Description`]).
    pub fn decode(&self, facts: &Facts<'_>) -> Result<Decoded, Undecoded> {
        let data = facts.payload.unwrap_or_default();
        let bitness = facts.bitness.unwrap_or(Bitness::Bits64);
        match self {
            Self::Schema(schema) => Ok(decode_with(schema, data, bitness)),
            Self::Kernel(event) => Ok(decode_kernel(event, data, bitness)),
            Self::TraceLogging { event, provider } => {
                decode_tracelogging(event, *provider, data, bitness)
            }
            Self::Description(description) => Err(description.undecoded()),
        }
    }
}

/// The names of a kernel event and its fields decoded from the static table.
fn decode_kernel(event: &KernelEvent, data: &[u8], bitness: Bitness) -> Decoded {
    let fields = event.fields_for(data.len(), bitness);
    let name = event.event_name();
    Decoded {
        source: Some(SchemaSource::Kernel),
        provider_name: Some(event.provider_name.to_owned()),
        event_name: Some(name.to_string()),
        task_name: Some(event.task_name.to_owned()),
        opcode_name: name.opcode.map(str::to_owned),
        fields: fields_json(&fields, |_| None, data, bitness),
        ..Decoded::default()
    }
}

/// The names of `schema` and the fields of `data` decoded with it.
pub fn decode_with(schema: &EventSchema, data: &[u8], bitness: Bitness) -> Decoded {
    let text = |name: &Option<Name>| name.as_deref().map(str::to_owned);
    Decoded {
        source: Some(schema.origin.source),
        provider_name: text(&schema.provider_name),
        event_name: schema.display_name(),
        task_name: text(&schema.task_name),
        opcode_name: text(&schema.opcode_name),
        level_name: text(&schema.level_name),
        keyword_names: schema
            .keyword_names
            .iter()
            .map(|name| name.to_string())
            .collect(),
        fields: fields_json(&schema.fields, |name| schema.map(name), data, bitness),
    }
}

/// How decoding an event's data with its schema ends ([`Identified::check`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The schema's fields for the event (structures and their members each count).
    pub fields: usize,
    /// Why decoding stopped before the last field, when it did (as
    /// [`FieldsJson::error`] says it).
    pub error: Option<String>,
    /// Bytes of data left after the last field (0 when decoding stopped at an error).
    pub rest: usize,
}

/// Walks `data` with `fields` to its end or its first error.
fn check_fields_of<N: AsRef<str> + std::fmt::Display>(
    fields: &[FieldSchema<N>],
    data: &[u8],
    bitness: Bitness,
) -> Checked {
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    // The walk ends at its first error; each item is handed over where it is made.
    let mut failure = None;
    decoder.for_each_item(|item| {
        if let Err(error) = item {
            failure = Some(error);
        }
    });
    let error = failure.map(|failure| failure.named(fields).to_string());
    Checked {
        fields: fields.len(),
        rest: if error.is_some() {
            0
        } else {
            decoder.rest().len()
        },
        error,
    }
}

/// The fields TraceLogging metadata describes, checked.
pub(crate) fn tracelogging_fields<'e>(
    event: &TraceLoggingEvent<'e>,
) -> Result<Vec<FieldSchema<&'e str>>, Undecoded> {
    let bad =
        |error: etw_classic::payload::MetadataError| Undecoded::BadMetadata(error.to_string());
    let fields: Vec<FieldSchema<&str>> = event.fields().collect::<Result<_, _>>().map_err(bad)?;
    if fields.len() > TRACELOGGING_FIELDS {
        return Err(Undecoded::BadMetadata(format!(
            "TraceLogging metadata describes {} fields, more than {TRACELOGGING_FIELDS}",
            fields.len()
        )));
    }
    etw_classic::payload::check_fields(&fields)
        .map_err(|error| Undecoded::BadMetadata(format!("TraceLogging metadata: {error}")))?;
    Ok(fields)
}

fn decode_tracelogging(
    event: &TraceLoggingEvent<'_>,
    provider: Option<&str>,
    data: &[u8],
    bitness: Bitness,
) -> Result<Decoded, Undecoded> {
    let fields = tracelogging_fields(event)?;
    Ok(Decoded {
        source: Some(SchemaSource::TraceLogging),
        provider_name: provider.map(str::to_owned),
        event_name: Some(event.name.to_owned()),
        fields: fields_json(&fields, |_| None, data, bitness),
        ..Decoded::default()
    })
}
