//! Instrumentation manifests (`.man` XML): the schemas of manifest-based providers, given by the
//! user or written into the stream by .NET's EventSource (`ManifestData` events, reassembled
//! elsewhere and given here as text).
//!
//! The layout read is the EventManifest schema (learn.microsoft.com, "EventManifest Schema"):
//!
//! ```text
//! <instrumentationManifest>
//!   <instrumentation><events>
//!     <provider name guid symbol>
//!       <events>   <event value version task opcode level keywords template symbol message/>
//!       <templates><template tid> <data name inType outType count length map/>
//!                                 <struct name count> <data .../> ... </struct>
//!       <maps>     <valueMap|bitMap name> <map value message/>
//!       <tasks>    <task name value message> <opcodes><opcode name value message/></opcodes>
//!       <opcodes>, <keywords> (name mask message), <levels> (name value message)
//!   <localization><resources culture><stringTable><string id value/>
//! ```
//!
//! Each `<event>` becomes an [`EventSchema`] whose fields are its template's `<data>` and
//! `<struct>` items in document order, which is the core's preorder: a structure is followed at
//! once by its members. Names are the ones Windows writes into a trace's `MetaData/EventInfo`
//! descriptions (`TRACE_EVENT_INFO`, written by TDH from the registered manifest): a task,
//! opcode, level or keyword is named by its `name` attribute, never by its `message` string,
//! and the `win:` built-ins by their `win:` names. The rule is read in the bytes of
//! net.4.5.2.x64.etl: the EventInfo of the .NET runtime's `GCAllocationTick_V3` names its task
//! `GarbageCollection`, its opcode `GCAllocationTick`, its level `win:Verbose` and its keyword
//! `GCKeyword`, the `name` attributes of `ClrEtwAll.man`, whose messages are `GC`,
//! `AllocationTick` and `GC`. So one event has one name whatever describes it:
//! `GarbageCollection/GCAllocationTick` through the manifest as through EventInfo. (TraceEvent's
//! own CLR parser prints `GC/AllocationTick`; its names for an event it reads from a
//! description are the description's, `GarbageCollection/IncreaseMemoryPressure` in PerfView's
//! baseline of that trace.) The messages of tasks, opcodes, levels and keywords have no place in
//! the schema and are dropped, but a `$(string.ID)` one naming a string the table lacks is still
//! an error; an event's message is kept ([`ManifestEvent::message`]), and a map entry is shown by
//! its message as TDH shows it.
//!
//! Everything a manifest contradicts itself with is an error at load time that names the place
//! and line: a template, task, opcode, level, keyword, map or string that does not exist, a
//! `count` or `length` naming no earlier data item, an unknown type, a duplicate event.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use etw_classic::payload::{
    check_fields, Count, FieldSchema, InType, Length, OutType, SchemaError, MAX_STRUCT_DEPTH,
};
use etw_classic::Guid;
use roxmltree::{Document, Node};

use crate::schema::{EventSchema, MapKind, Name, SchemaOrigin, SchemaSource, ValueMap};

/// Everything a manifest describes: its providers, each with its events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The providers, in document order.
    pub providers: Vec<ManifestProvider>,
}

impl Manifest {
    /// The provider whose GUID is `guid`, if the manifest has it.
    pub fn provider(&self, guid: Guid) -> Option<&ManifestProvider> {
        self.providers.iter().find(|provider| provider.guid == guid)
    }
}

/// One `<provider>` and its events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestProvider {
    /// The provider's GUID (`guid`).
    pub guid: Guid,
    /// The provider's name (`name`).
    pub name: Name,
    /// The provider's `symbol`, if it has one.
    pub symbol: Option<Name>,
    /// The line of the `<provider>` element.
    pub line: u32,
    /// The events, keyed by `(id, version)` (the `value` and `version` of each `<event>`).
    pub events: BTreeMap<(u16, u8), ManifestEvent>,
}

impl ManifestProvider {
    /// The schema of event `id` version `version`, if the provider describes it.
    pub fn schema(&self, id: u16, version: u8) -> Option<&EventSchema> {
        self.events.get(&(id, version)).map(|event| &event.schema)
    }
}

/// One `<event>`: its descriptor as the manifest gives it, its message and its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEvent {
    /// `value`: the event id.
    pub id: u16,
    /// `version` (0 when absent).
    pub version: u8,
    /// The value of the event's task (0 when it has none).
    pub task: u16,
    /// The value of the event's opcode (0, `win:Info`, when it has none).
    pub opcode: u8,
    /// The value of the event's level (0 when it has none).
    pub level: u8,
    /// The masks of the event's keywords, ORed.
    pub keywords: u64,
    /// The event's `symbol`, if it has one.
    pub symbol: Option<Name>,
    /// The event's message, resolved from the string table (`%1` ... name the fields).
    pub message: Option<Name>,
    /// The event's names, fields and maps.
    pub schema: EventSchema,
}

/// Where and why a manifest could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// The place given to the parser (a file name, `ManifestData of <provider>`).
    pub place: String,
    /// The line in the text, from 1.
    pub line: u32,
    /// The column in the line, in characters from 1.
    pub column: u32,
    /// What is wrong.
    pub kind: ManifestErrorKind,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.place, self.line, self.column, self.kind
        )
    }
}

impl std::error::Error for ManifestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ManifestErrorKind::Schema { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// What is wrong with a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifestErrorKind {
    /// The text is not UTF-8, or UTF-16 with a byte order mark.
    NotText,
    /// The text is not well-formed XML (the XML parser's message).
    Xml(String),
    /// The root element is not `<instrumentationManifest>`.
    NotAManifest {
        /// The root element's name.
        found: String,
    },
    /// A required attribute is missing.
    MissingAttribute {
        /// The element.
        element: String,
        /// The attribute.
        attribute: &'static str,
    },
    /// An attribute is not a number in range.
    BadNumber {
        /// The attribute.
        attribute: &'static str,
        /// Its text.
        value: String,
        /// The largest value it may have.
        max: u64,
    },
    /// A `guid` attribute is not a GUID.
    BadGuid {
        /// Its text.
        value: String,
    },
    /// An `inType` that is not a `win:` or `trace:` input type.
    UnknownInType {
        /// The type's name.
        name: String,
    },
    /// An `outType` that is not an `xs:` or `win:` output type.
    UnknownOutType {
        /// The type's name.
        name: String,
    },
    /// An event names a template that the provider does not define.
    UnknownTemplate {
        /// The `tid` named.
        tid: String,
    },
    /// An event names a task that the provider does not define.
    UnknownTask {
        /// The task named.
        name: String,
    },
    /// An event names an opcode that neither its task, nor the provider, nor the `win:`
    /// built-ins define.
    UnknownOpcode {
        /// The opcode named.
        name: String,
    },
    /// An event names a level that neither the provider nor the `win:` built-ins define.
    UnknownLevel {
        /// The level named.
        name: String,
    },
    /// An event names a keyword that neither the provider nor the `win:` built-ins define.
    UnknownKeyword {
        /// The keyword named.
        name: String,
    },
    /// A data item names a map that the provider does not define.
    UnknownMap {
        /// The map named.
        name: String,
    },
    /// A `$(string.ID)` message whose ID the string table does not have.
    UnknownString {
        /// The ID.
        id: String,
    },
    /// A `count` or `length` names no earlier data item.
    NoSuchField {
        /// `count` or `length`.
        attribute: &'static str,
        /// The name it gives.
        name: String,
    },
    /// A `win:Binary` data item without a `length` ("illegal because no length is
    /// specified", DataDefinitionType).
    NeedsLength {
        /// The data item.
        name: String,
    },
    /// A `length` on a type whose size the type fixes ("you cannot assign a length value to a
    /// data type of a known size", DataDefinitionType).
    LengthOnFixedSize {
        /// The data item.
        name: String,
    },
    /// A `length` on a `<struct>` (not available since Windows 7, StructDefinitionType).
    StructLength {
        /// The structure.
        name: String,
    },
    /// Structures nested deeper than the decoder's bound.
    TooDeep {
        /// The structure one level too deep.
        name: String,
    },
    /// A second definition of something that must be unique.
    Duplicate {
        /// What it is (`event`, `template`, `map`, `task`, ...).
        what: &'static str,
        /// Its name or key.
        name: String,
        /// The line of the first definition.
        first_line: u32,
    },
    /// A template whose fields contradict each other (a count from a non-integer field, ...).
    Schema {
        /// The field the core names.
        field: String,
        /// The core's check.
        error: SchemaError,
    },
}

impl fmt::Display for ManifestErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotText => f.write_str(
                "expected UTF-8 text (or UTF-16 with a byte order mark), found other bytes",
            ),
            Self::Xml(message) => write!(f, "expected well-formed XML: {message}"),
            Self::NotAManifest { found } => write!(
                f,
                "expected the root element <instrumentationManifest>, found <{found}>"
            ),
            Self::MissingAttribute { element, attribute } => {
                write!(f, "<{element}> needs the attribute {attribute}")
            }
            Self::BadNumber {
                attribute,
                value,
                max,
            } => write!(
                f,
                "{attribute}=\"{value}\": expected a decimal or 0x-hexadecimal number of at most {max}"
            ),
            Self::BadGuid { value } => write!(
                f,
                "guid=\"{value}\": expected a GUID {{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}}"
            ),
            Self::UnknownInType { name } => write!(
                f,
                "inType=\"{name}\" is not an input type (win:UnicodeString, win:UInt32, ..., trace:SizeT, ...)"
            ),
            Self::UnknownOutType { name } => write!(
                f,
                "outType=\"{name}\" is not an output type (xs:string, xs:unsignedInt, win:HexInt32, ...)"
            ),
            Self::UnknownTemplate { tid } => {
                write!(f, "template=\"{tid}\": the provider has no <template tid=\"{tid}\">")
            }
            Self::UnknownTask { name } => {
                write!(f, "task=\"{name}\": the provider has no <task name=\"{name}\">")
            }
            Self::UnknownOpcode { name } => write!(
                f,
                "opcode=\"{name}\": neither the event's task, the provider nor win: define an opcode of that name"
            ),
            Self::UnknownLevel { name } => write!(
                f,
                "level=\"{name}\": neither the provider nor win: define a level of that name"
            ),
            Self::UnknownKeyword { name } => write!(
                f,
                "keywords: neither the provider nor win: define a keyword named \"{name}\""
            ),
            Self::UnknownMap { name } => write!(
                f,
                "map=\"{name}\": the provider has no <valueMap> or <bitMap> of that name"
            ),
            Self::UnknownString { id } => write!(
                f,
                "$(string.{id}): the string table has no <string id=\"{id}\">"
            ),
            Self::NoSuchField { attribute, name } => write!(
                f,
                "{attribute}=\"{name}\": expected a number or the name of an earlier data item, found neither"
            ),
            Self::NeedsLength { name } => write!(
                f,
                "data item {name} is win:Binary: expected a length attribute (a number or an earlier data item)"
            ),
            Self::LengthOnFixedSize { name } => write!(
                f,
                "data item {name}: a length is given for a type whose size the type fixes"
            ),
            Self::StructLength { name } => write!(
                f,
                "struct {name}: a struct's length is not supported (Windows 7 and later do not use it)"
            ),
            Self::TooDeep { name } => write!(
                f,
                "struct {name} nests structures deeper than {MAX_STRUCT_DEPTH} levels"
            ),
            Self::Duplicate {
                what,
                name,
                first_line,
            } => write!(
                f,
                "a second {what} {name}; the first is on line {first_line}"
            ),
            Self::Schema { field, error } => write!(f, "data item {field}: {error}"),
        }
    }
}

/// Parses the manifest `text`, naming `place` (a file name, say) in errors and in each
/// schema's [`origin`](EventSchema::origin), whose source is [`SchemaSource::Manifest`].
///
/// # Errors
/// The first thing the manifest gets wrong, with its line and column.
pub fn parse_manifest(text: &str, place: &str) -> Result<Manifest, ManifestError> {
    parse_manifest_as(text, place, SchemaSource::Manifest)
}

/// [`parse_manifest`] with the kind of source the schemas name: an EventSource manifest
/// reassembled from `ManifestData` events is [`SchemaSource::EventSourceManifest`].
///
/// # Errors
/// The first thing the manifest gets wrong, with its line and column.
pub fn parse_manifest_as(
    text: &str,
    place: &str,
    source: SchemaSource,
) -> Result<Manifest, ManifestError> {
    let lines = Lines::new(text);
    let document = Document::parse(text).map_err(|error| {
        let position = error.pos();
        ManifestError {
            place: place.to_owned(),
            line: position.row.max(1),
            column: position.col.max(1),
            kind: ManifestErrorKind::Xml(error.to_string()),
        }
    })?;
    let reader = Reader {
        place,
        lines: &lines,
        source,
    };
    reader.manifest(&document)
}

/// [`parse_manifest_as`] over bytes: UTF-8 (a byte order mark is skipped), or UTF-16 little-
/// or big-endian with its byte order mark (as `mc.exe` manifests often are).
///
/// # Errors
/// [`ManifestErrorKind::NotText`] at line 1 when the bytes are neither; else the first thing
/// the manifest gets wrong.
pub fn parse_manifest_bytes(
    bytes: &[u8],
    place: &str,
    source: SchemaSource,
) -> Result<Manifest, ManifestError> {
    let text = manifest_text(bytes).ok_or_else(|| ManifestError {
        place: place.to_owned(),
        line: 1,
        column: 1,
        kind: ManifestErrorKind::NotText,
    })?;
    parse_manifest_as(&text, place, source)
}

/// The text of a manifest's bytes: UTF-8 without its byte order mark, or UTF-16 decoded by its
/// byte order mark; `None` when the bytes are neither.
pub fn manifest_text(bytes: &[u8]) -> Option<Cow<'_, str>> {
    let utf16 = |rest: &[u8], read: fn([u8; 2]) -> u16| {
        if !rest.len().is_multiple_of(2) {
            return None;
        }
        let units = rest
            .chunks_exact(2)
            .map(|pair| read([pair.first().copied()?, pair.get(1).copied()?]).into())
            .collect::<Option<Vec<u16>>>()?;
        String::from_utf16(&units).ok().map(Cow::Owned)
    };
    match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => std::str::from_utf8(rest).ok().map(Cow::Borrowed),
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
        _ => std::str::from_utf8(bytes).ok().map(Cow::Borrowed),
    }
}

/// Line and column of byte offsets in the text.
struct Lines<'t> {
    text: &'t str,
    /// The byte offset where each line starts.
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, byte)| *byte == b'\n')
                .map(|(at, _)| at.saturating_add(1)),
        );
        Self { text, starts }
    }

    /// The 1-based line and column (in characters) of byte `offset`.
    fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let index = self
            .starts
            .partition_point(|start| *start <= offset)
            .saturating_sub(1);
        let start = self.starts.get(index).copied().unwrap_or(0);
        let line = u32::try_from(index.saturating_add(1)).unwrap_or(u32::MAX);
        let characters = self
            .text
            .get(start..offset)
            .map_or(0, |line| line.chars().count());
        let column = u32::try_from(characters.saturating_add(1)).unwrap_or(u32::MAX);
        (line, column)
    }
}

/// What every step of the reading shares: where the text came from, to name it in errors.
struct Reader<'r> {
    place: &'r str,
    lines: &'r Lines<'r>,
    source: SchemaSource,
}

/// A named thing a provider defines (task, opcode, level, keyword): its value, its name (the
/// one schemas show), and where it is.
#[derive(Clone)]
struct Defined {
    value: u64,
    name: Name,
    line: u32,
}

/// A task: its own definition and its task-local opcodes.
struct Task {
    defined: Defined,
    opcodes: HashMap<String, Defined>,
}

/// A template's fields with the line of each.
struct Template {
    fields: Vec<FieldSchema<Name>>,
    maps: Vec<Arc<ValueMap>>,
    line: u32,
}

impl Reader<'_> {
    fn line_of(&self, node: Node<'_, '_>) -> u32 {
        self.lines.position(node.range().start).0
    }

    fn error_at(&self, offset: usize, kind: ManifestErrorKind) -> ManifestError {
        let (line, column) = self.lines.position(offset);
        ManifestError {
            place: self.place.to_owned(),
            line,
            column,
            kind,
        }
    }

    fn error(&self, node: Node<'_, '_>, kind: ManifestErrorKind) -> ManifestError {
        self.error_at(node.range().start, kind)
    }

    /// An error at an attribute of `node` (the element when it has no such attribute).
    fn error_attr(
        &self,
        node: Node<'_, '_>,
        attribute: &str,
        kind: ManifestErrorKind,
    ) -> ManifestError {
        let offset =
            find_attribute(node, attribute).map_or(node.range().start, |found| found.range().start);
        self.error_at(offset, kind)
    }

    fn required<'a>(
        &self,
        node: Node<'a, '_>,
        attribute: &'static str,
    ) -> Result<&'a str, ManifestError> {
        attr(node, attribute).ok_or_else(|| {
            self.error(
                node,
                ManifestErrorKind::MissingAttribute {
                    element: node.tag_name().name().to_owned(),
                    attribute,
                },
            )
        })
    }

    fn number(
        &self,
        node: Node<'_, '_>,
        attribute: &'static str,
        max: u64,
    ) -> Result<Option<u64>, ManifestError> {
        let Some(text) = attr(node, attribute) else {
            return Ok(None);
        };
        parse_number(text)
            .filter(|value| *value <= max)
            .map(Some)
            .ok_or_else(|| {
                self.error_attr(
                    node,
                    attribute,
                    ManifestErrorKind::BadNumber {
                        attribute,
                        value: text.to_owned(),
                        max,
                    },
                )
            })
    }

    fn manifest(&self, document: &Document<'_>) -> Result<Manifest, ManifestError> {
        let root = document.root_element();
        if root.tag_name().name() != "instrumentationManifest" {
            return Err(self.error(
                root,
                ManifestErrorKind::NotAManifest {
                    found: root.tag_name().name().to_owned(),
                },
            ));
        }
        let strings = string_table(root);
        let mut providers = Vec::new();
        for instrumentation in elements(root, "instrumentation") {
            for events in elements(instrumentation, "events") {
                for provider in elements(events, "provider") {
                    providers.push(self.provider(provider, &strings)?);
                }
            }
        }
        Ok(Manifest { providers })
    }

    /// The text of a `message` attribute: `$(string.ID)` from the string table, anything
    /// else as it stands.
    fn message(
        &self,
        node: Node<'_, '_>,
        strings: &HashMap<&str, &str>,
    ) -> Result<Option<Name>, ManifestError> {
        let Some(message) = attr(node, "message") else {
            return Ok(None);
        };
        match message
            .strip_prefix("$(string.")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            Some(id) => strings
                .get(id)
                .map(|text| Some(Name::from(*text)))
                .ok_or_else(|| {
                    self.error_attr(
                        node,
                        "message",
                        ManifestErrorKind::UnknownString { id: id.to_owned() },
                    )
                }),
            None => Ok(Some(Name::from(message))),
        }
    }

    /// A task, opcode, level or keyword: its name and value. Its `message`, if any, is checked
    /// against the string table and dropped: schemas show the `name` (see the module's
    /// documentation).
    fn defined(
        &self,
        node: Node<'_, '_>,
        value_attribute: &'static str,
        max: u64,
        strings: &HashMap<&str, &str>,
    ) -> Result<(String, Defined), ManifestError> {
        let name = self.required(node, "name")?;
        self.required(node, value_attribute)?;
        let value = self.number(node, value_attribute, max)?.unwrap_or(0);
        self.message(node, strings)?;
        Ok((
            name.to_owned(),
            Defined {
                value,
                name: Name::from(name),
                line: self.line_of(node),
            },
        ))
    }

    /// Adds `(name, defined)` to `into`, refusing a second definition of `name`.
    fn insert_defined(
        &self,
        node: Node<'_, '_>,
        what: &'static str,
        into: &mut HashMap<String, Defined>,
        (name, defined): (String, Defined),
    ) -> Result<(), ManifestError> {
        if let Some(first) = into.get(&name) {
            return Err(self.error(
                node,
                ManifestErrorKind::Duplicate {
                    what,
                    name,
                    first_line: first.line,
                },
            ));
        }
        into.insert(name, defined);
        Ok(())
    }

    fn provider(
        &self,
        node: Node<'_, '_>,
        strings: &HashMap<&str, &str>,
    ) -> Result<ManifestProvider, ManifestError> {
        let name = Name::from(self.required(node, "name")?);
        let guid_text = self.required(node, "guid")?;
        let guid = Guid::parse_str(guid_text.trim()).map_err(|_| {
            self.error_attr(
                node,
                "guid",
                ManifestErrorKind::BadGuid {
                    value: guid_text.to_owned(),
                },
            )
        })?;
        let symbol = attr(node, "symbol").map(Name::from);

        let mut opcodes = HashMap::new();
        for opcode in grandchildren(node, "opcodes", "opcode") {
            let defined = self.defined(opcode, "value", u64::from(u8::MAX), strings)?;
            self.insert_defined(opcode, "opcode", &mut opcodes, defined)?;
        }
        let mut levels = HashMap::new();
        for level in grandchildren(node, "levels", "level") {
            let defined = self.defined(level, "value", u64::from(u8::MAX), strings)?;
            self.insert_defined(level, "level", &mut levels, defined)?;
        }
        let mut keywords = HashMap::new();
        for keyword in grandchildren(node, "keywords", "keyword") {
            let defined = self.defined(keyword, "mask", u64::MAX, strings)?;
            self.insert_defined(keyword, "keyword", &mut keywords, defined)?;
        }
        let mut tasks: HashMap<String, Task> = HashMap::new();
        for task in grandchildren(node, "tasks", "task") {
            let (task_name, defined) = self.defined(task, "value", u64::from(u16::MAX), strings)?;
            if let Some(first) = tasks.get(&task_name) {
                return Err(self.error(
                    task,
                    ManifestErrorKind::Duplicate {
                        what: "task",
                        name: task_name,
                        first_line: first.defined.line,
                    },
                ));
            }
            let mut local = HashMap::new();
            for opcode in grandchildren(task, "opcodes", "opcode") {
                let defined = self.defined(opcode, "value", u64::from(u8::MAX), strings)?;
                self.insert_defined(opcode, "opcode", &mut local, defined)?;
            }
            tasks.insert(
                task_name,
                Task {
                    defined,
                    opcodes: local,
                },
            );
        }
        let maps = self.maps(node, strings)?;
        let mut templates: HashMap<String, Template> = HashMap::new();
        for template in grandchildren(node, "templates", "template") {
            let tid = self.required(template, "tid")?;
            if let Some(first) = templates.get(tid) {
                return Err(self.error(
                    template,
                    ManifestErrorKind::Duplicate {
                        what: "template",
                        name: tid.to_owned(),
                        first_line: first.line,
                    },
                ));
            }
            let built = self.template(template, &maps)?;
            templates.insert(tid.to_owned(), built);
        }

        let scope = ProviderScope {
            name: &name,
            tasks: &tasks,
            opcodes: &opcodes,
            levels: &levels,
            keywords: &keywords,
            templates: &templates,
            strings,
        };
        let mut events: BTreeMap<(u16, u8), ManifestEvent> = BTreeMap::new();
        let mut event_lines: HashMap<(u16, u8), u32> = HashMap::new();
        for event in grandchildren(node, "events", "event") {
            let built = self.event(event, &scope)?;
            let key = (built.id, built.version);
            if let Some(first_line) = event_lines.get(&key) {
                return Err(self.error(
                    event,
                    ManifestErrorKind::Duplicate {
                        what: "event",
                        name: format!("value {} version {}", key.0, key.1),
                        first_line: *first_line,
                    },
                ));
            }
            event_lines.insert(key, self.line_of(event));
            events.insert(key, built);
        }
        Ok(ManifestProvider {
            guid,
            name,
            symbol,
            line: self.line_of(node),
            events,
        })
    }

    /// The provider's `<valueMap>`s and `<bitMap>`s by name.
    fn maps(
        &self,
        provider: Node<'_, '_>,
        strings: &HashMap<&str, &str>,
    ) -> Result<HashMap<String, (Arc<ValueMap>, u32)>, ManifestError> {
        let mut maps: HashMap<String, (Arc<ValueMap>, u32)> = HashMap::new();
        for holder in elements(provider, "maps") {
            for map in holder.children().filter(Node::is_element) {
                let kind = match map.tag_name().name() {
                    "valueMap" => MapKind::Value,
                    "bitMap" => MapKind::Bits,
                    _ => continue,
                };
                let name = self.required(map, "name")?;
                if let Some((_, first_line)) = maps.get(name) {
                    return Err(self.error(
                        map,
                        ManifestErrorKind::Duplicate {
                            what: "map",
                            name: name.to_owned(),
                            first_line: *first_line,
                        },
                    ));
                }
                let mut entries = Vec::new();
                for entry in elements(map, "map") {
                    let text = self.required(entry, "value")?;
                    // "some manifests have a 0x with no number afterward" (TraceEvent's
                    // DynamicTraceEventParser, which reads it as 0).
                    let value = if text.trim().eq_ignore_ascii_case("0x") {
                        Some(0)
                    } else {
                        parse_number(text)
                    };
                    let value = value.ok_or_else(|| {
                        self.error_attr(
                            entry,
                            "value",
                            ManifestErrorKind::BadNumber {
                                attribute: "value",
                                value: text.to_owned(),
                                max: u64::MAX,
                            },
                        )
                    })?;
                    let shown = self
                        .message(entry, strings)?
                        .unwrap_or_else(|| Name::from(text));
                    entries.push((value, shown));
                }
                let value_map = ValueMap {
                    name: Name::from(name),
                    kind,
                    entries,
                };
                maps.insert(name.to_owned(), (Arc::new(value_map), self.line_of(map)));
            }
        }
        Ok(maps)
    }

    fn template(
        &self,
        node: Node<'_, '_>,
        maps: &HashMap<String, (Arc<ValueMap>, u32)>,
    ) -> Result<Template, ManifestError> {
        let mut builder = TemplateBuilder {
            fields: Vec::new(),
            nodes: Vec::new(),
            maps: Vec::new(),
        };
        self.items(node, maps, &mut builder, &mut Vec::new(), 0)?;
        if let Err(error) = check_fields(&builder.fields) {
            let field = match error {
                SchemaError::MembersPastEnd { field, .. }
                | SchemaError::TooDeep { field }
                | SchemaError::BadReference { field, .. }
                | SchemaError::MembersOnNonStruct { field } => usize::from(field),
                _ => 0,
            };
            let at = builder.nodes.get(field).copied().unwrap_or(node);
            let name = builder
                .fields
                .get(field)
                .map_or_else(String::new, |field| field.name.to_string());
            return Err(self.error(at, ManifestErrorKind::Schema { field: name, error }));
        }
        Ok(Template {
            fields: builder.fields,
            maps: builder.maps,
            line: self.line_of(node),
        })
    }

    /// Appends the `<data>` and `<struct>` items under `parent` to `builder` in preorder and
    /// returns how many direct members they are. `scopes` holds, for the template and each
    /// enclosing structure, the `(name, index)` of its items so far: a `count` or `length`
    /// names the nearest earlier one.
    fn items<'a, 'i>(
        &self,
        parent: Node<'a, 'i>,
        maps: &HashMap<String, (Arc<ValueMap>, u32)>,
        builder: &mut TemplateBuilder<'a, 'i>,
        scopes: &mut Vec<Vec<(String, u16)>>,
        depth: usize,
    ) -> Result<u16, ManifestError> {
        scopes.push(Vec::new());
        let mut members = 0u16;
        for item in parent.children().filter(Node::is_element) {
            let is_struct = match item.tag_name().name() {
                "data" => false,
                "struct" => true,
                // `<UserData>` (an XML fragment for the Event Log), `<binary>` (the Event Log
                // API's raw data): not part of the event's data.
                _ => continue,
            };
            let index = u16::try_from(builder.fields.len()).map_err(|_| {
                self.error(
                    item,
                    ManifestErrorKind::Schema {
                        field: attr(item, "name").unwrap_or_default().to_owned(),
                        error: SchemaError::TooManyFields {
                            count: builder.fields.len(),
                        },
                    },
                )
            })?;
            let name = self.required(item, "name")?;
            let count = self.count(item, scopes)?;
            let field = if is_struct {
                if depth >= MAX_STRUCT_DEPTH {
                    return Err(self.error(
                        item,
                        ManifestErrorKind::TooDeep {
                            name: name.to_owned(),
                        },
                    ));
                }
                if attr(item, "length").is_some() {
                    return Err(self.error_attr(
                        item,
                        "length",
                        ManifestErrorKind::StructLength {
                            name: name.to_owned(),
                        },
                    ));
                }
                builder
                    .fields
                    .push(FieldSchema::structure(Name::from(name), 0).with_count(count));
                builder.nodes.push(item);
                let inner = self.items(item, maps, builder, scopes, depth.saturating_add(1))?;
                if let Some(field) = builder.fields.get_mut(usize::from(index)) {
                    field.members = inner;
                }
                None
            } else {
                Some(self.data(item, name, count, maps, builder, scopes)?)
            };
            if let Some(field) = field {
                builder.fields.push(field);
                builder.nodes.push(item);
            }
            if let Some(scope) = scopes.last_mut() {
                scope.push((name.to_owned(), index));
            }
            members = members.saturating_add(1);
        }
        scopes.pop();
        Ok(members)
    }

    fn data<'a, 'i>(
        &self,
        item: Node<'a, 'i>,
        name: &str,
        count: Count,
        maps: &HashMap<String, (Arc<ValueMap>, u32)>,
        builder: &mut TemplateBuilder<'a, 'i>,
        scopes: &[Vec<(String, u16)>],
    ) -> Result<FieldSchema<Name>, ManifestError> {
        let in_name = self.required(item, "inType")?;
        let (in_type, implied_out, implied_length) = in_type(in_name).ok_or_else(|| {
            self.error_attr(
                item,
                "inType",
                ManifestErrorKind::UnknownInType {
                    name: in_name.to_owned(),
                },
            )
        })?;
        let out_type = match attr(item, "outType") {
            None => implied_out,
            Some(out_name) => out_type(out_name).ok_or_else(|| {
                self.error_attr(
                    item,
                    "outType",
                    ManifestErrorKind::UnknownOutType {
                        name: out_name.to_owned(),
                    },
                )
            })?,
        };
        let length = match attr(item, "length") {
            None => match implied_length {
                Some(length) => length,
                None if in_type == InType::BINARY && out_type == OutType::IPV6 => {
                    // An IN6_ADDR (InputType: "For an IP V6 address, the data should be an
                    // IN6_ADDR structure"): 16 bytes.
                    Length::Fixed(16)
                }
                None if in_type == InType::BINARY => {
                    return Err(self.error(
                        item,
                        ManifestErrorKind::NeedsLength {
                            name: name.to_owned(),
                        },
                    ))
                }
                None => Length::Natural,
            },
            Some(text) => {
                if in_type.fixed_size(8).is_some() || implied_length.is_some() {
                    return Err(self.error_attr(
                        item,
                        "length",
                        ManifestErrorKind::LengthOnFixedSize {
                            name: name.to_owned(),
                        },
                    ));
                }
                match self.reference(item, "length", text, scopes)? {
                    Reference::Fixed(units) => Length::Fixed(units),
                    Reference::Field(index) => Length::FromField(index),
                }
            }
        };
        let mut field = FieldSchema::new(Name::from(name), in_type)
            .with_out_type(out_type)
            .with_count(count)
            .with_length(length);
        if let Some(map_name) = attr(item, "map") {
            let (map, _) = maps.get(map_name).ok_or_else(|| {
                self.error_attr(
                    item,
                    "map",
                    ManifestErrorKind::UnknownMap {
                        name: map_name.to_owned(),
                    },
                )
            })?;
            if !builder.maps.iter().any(|known| Arc::ptr_eq(known, map)) {
                builder.maps.push(Arc::clone(map));
            }
            field = field.with_map(Arc::clone(&map.name));
        }
        Ok(field)
    }

    fn count(
        &self,
        item: Node<'_, '_>,
        scopes: &[Vec<(String, u16)>],
    ) -> Result<Count, ManifestError> {
        let Some(text) = attr(item, "count") else {
            return Ok(Count::One);
        };
        Ok(match self.reference(item, "count", text, scopes)? {
            Reference::Fixed(count) => Count::Fixed(count),
            Reference::Field(index) => Count::FromField(index),
        })
    }

    /// A `count` or `length`: a number, or the name of the nearest earlier data item in the
    /// item's structure or an enclosing one (CountType, LengthType: "the actual count or the
    /// name of another data item that contains the count").
    fn reference(
        &self,
        item: Node<'_, '_>,
        attribute: &'static str,
        text: &str,
        scopes: &[Vec<(String, u16)>],
    ) -> Result<Reference, ManifestError> {
        let trimmed = text.trim();
        if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
            let value = parse_number(trimmed)
                .and_then(|value| u16::try_from(value).ok())
                .ok_or_else(|| {
                    self.error_attr(
                        item,
                        attribute,
                        ManifestErrorKind::BadNumber {
                            attribute,
                            value: text.to_owned(),
                            max: u64::from(u16::MAX),
                        },
                    )
                })?;
            return Ok(Reference::Fixed(value));
        }
        scopes
            .iter()
            .rev()
            .find_map(|scope| {
                scope
                    .iter()
                    .rev()
                    .find(|(name, _)| name == trimmed)
                    .map(|(_, index)| *index)
            })
            .map(Reference::Field)
            .ok_or_else(|| {
                self.error_attr(
                    item,
                    attribute,
                    ManifestErrorKind::NoSuchField {
                        attribute,
                        name: text.to_owned(),
                    },
                )
            })
    }

    fn event(
        &self,
        node: Node<'_, '_>,
        scope: &ProviderScope<'_>,
    ) -> Result<ManifestEvent, ManifestError> {
        self.required(node, "value")?;
        let id = self.number(node, "value", u64::from(u16::MAX))?;
        let version = self.number(node, "version", u64::from(u8::MAX))?;
        let line = self.line_of(node);
        let mut schema = EventSchema::new(SchemaOrigin {
            source: self.source,
            place: format!("{}:{line}", self.place),
        });
        schema.provider_name = Some(Arc::clone(scope.name));
        let symbol = attr(node, "symbol").map(Name::from);
        schema.event_name = attr(node, "name")
            .map(Name::from)
            .or_else(|| symbol.clone());

        let mut task_value = 0;
        let mut task_opcodes = None;
        if let Some(task_name) = attr(node, "task") {
            let task = scope.tasks.get(task_name).ok_or_else(|| {
                self.error_attr(
                    node,
                    "task",
                    ManifestErrorKind::UnknownTask {
                        name: task_name.to_owned(),
                    },
                )
            })?;
            task_value = task.defined.value;
            schema.task_name = Some(Arc::clone(&task.defined.name));
            task_opcodes = Some(&task.opcodes);
        }
        let mut opcode_value = 0;
        if let Some(opcode_name) = attr(node, "opcode") {
            let (value, shown) = task_opcodes
                .and_then(|local| local.get(opcode_name))
                .or_else(|| scope.opcodes.get(opcode_name))
                .map(|defined| (defined.value, Arc::clone(&defined.name)))
                .or_else(|| builtin(WIN_OPCODES, opcode_name))
                .ok_or_else(|| {
                    self.error_attr(
                        node,
                        "opcode",
                        ManifestErrorKind::UnknownOpcode {
                            name: opcode_name.to_owned(),
                        },
                    )
                })?;
            opcode_value = value;
            schema.opcode_name = Some(shown);
        }
        let mut level_value = 0;
        if let Some(level_name) = attr(node, "level") {
            let (value, shown) = scope
                .levels
                .get(level_name)
                .map(|defined| (defined.value, Arc::clone(&defined.name)))
                .or_else(|| builtin(WIN_LEVELS, level_name))
                .ok_or_else(|| {
                    self.error_attr(
                        node,
                        "level",
                        ManifestErrorKind::UnknownLevel {
                            name: level_name.to_owned(),
                        },
                    )
                })?;
            level_value = value;
            schema.level_name = Some(shown);
        }
        let mut keywords = 0u64;
        if let Some(list) = attr(node, "keywords") {
            for keyword_name in list.split_whitespace() {
                let (mask, shown) = scope
                    .keywords
                    .get(keyword_name)
                    .map(|defined| (defined.value, Arc::clone(&defined.name)))
                    .or_else(|| builtin(WIN_KEYWORDS, keyword_name))
                    .ok_or_else(|| {
                        self.error_attr(
                            node,
                            "keywords",
                            ManifestErrorKind::UnknownKeyword {
                                name: keyword_name.to_owned(),
                            },
                        )
                    })?;
                keywords |= mask;
                schema.keyword_names.push(shown);
            }
        }
        if let Some(tid) = attr(node, "template") {
            let template = scope.templates.get(tid).ok_or_else(|| {
                self.error_attr(
                    node,
                    "template",
                    ManifestErrorKind::UnknownTemplate {
                        tid: tid.to_owned(),
                    },
                )
            })?;
            schema.fields.clone_from(&template.fields);
            schema.maps.clone_from(&template.maps);
        }
        let message = self.message(node, scope.strings)?;
        Ok(ManifestEvent {
            id: narrow(id.unwrap_or(0)),
            version: narrow(version.unwrap_or(0)),
            task: narrow(task_value),
            opcode: narrow(opcode_value),
            level: narrow(level_value),
            keywords,
            symbol,
            message,
            schema,
        })
    }
}

/// A checked number narrowed to its field's type (the checks bound it first).
fn narrow<T: TryFrom<u64> + Default>(value: u64) -> T {
    T::try_from(value).unwrap_or_default()
}

/// What the events of a provider refer to by name.
struct ProviderScope<'s> {
    name: &'s Name,
    tasks: &'s HashMap<String, Task>,
    opcodes: &'s HashMap<String, Defined>,
    levels: &'s HashMap<String, Defined>,
    keywords: &'s HashMap<String, Defined>,
    templates: &'s HashMap<String, Template>,
    strings: &'s HashMap<&'s str, &'s str>,
}

struct TemplateBuilder<'a, 'i> {
    fields: Vec<FieldSchema<Name>>,
    /// The element of each field, for errors.
    nodes: Vec<Node<'a, 'i>>,
    maps: Vec<Arc<ValueMap>>,
}

enum Reference {
    Fixed(u16),
    Field(u16),
}

/// The `win:` opcodes of winmeta.xml (`WINEVENT_OPCODE_*`, winmeta.h): win:Info 0, win:Start
/// 1, win:Stop 2, win:DC_Start 3, win:DC_Stop 4, win:Extension 5, win:Reply 6, win:Resume 7,
/// win:Suspend 8, win:Send 9, win:Receive 240.
const WIN_OPCODES: &[(&str, u64)] = &[
    ("win:Info", 0),
    ("win:Start", 1),
    ("win:Stop", 2),
    ("win:DC_Start", 3),
    ("win:DC_Stop", 4),
    ("win:Extension", 5),
    ("win:Reply", 6),
    ("win:Resume", 7),
    ("win:Suspend", 8),
    ("win:Send", 9),
    ("win:Receive", 240),
];

/// The `win:` levels of winmeta.xml (`WINEVENT_LEVEL_*`): win:LogAlways 0, win:Critical 1,
/// win:Error 2, win:Warning 3, win:Informational 4, win:Verbose 5.
const WIN_LEVELS: &[(&str, u64)] = &[
    ("win:LogAlways", 0),
    ("win:Critical", 1),
    ("win:Error", 2),
    ("win:Warning", 3),
    ("win:Informational", 4),
    ("win:Verbose", 5),
];

/// The `win:` name of a level (`win:Informational` for 4), as winmeta.xml names levels 0 to
/// 5; `None` for a level it does not name.
pub fn win_level_name(level: u8) -> Option<&'static str> {
    WIN_LEVELS
        .iter()
        .find(|(_, value)| *value == u64::from(level))
        .map(|(name, _)| *name)
}

/// The `win:` keywords of winmeta.xml, with the masks of winmeta.h
/// (`WINEVENT_KEYWORD_RESPONSE_TIME 0x0001000000000000` ... `EVENTLOG_CLASSIC
/// 0x0080000000000000`).
const WIN_KEYWORDS: &[(&str, u64)] = &[
    ("win:ResponseTime", 0x0001_0000_0000_0000),
    ("win:WDIContext", 0x0002_0000_0000_0000),
    ("win:WDIDiag", 0x0004_0000_0000_0000),
    ("win:SQM", 0x0008_0000_0000_0000),
    ("win:AuditFailure", 0x0010_0000_0000_0000),
    ("win:AuditSuccess", 0x0020_0000_0000_0000),
    ("win:CorrelationHint", 0x0040_0000_0000_0000),
    ("win:EventlogClassic", 0x0080_0000_0000_0000),
];

fn builtin(table: &[(&str, u64)], name: &str) -> Option<(u64, Name)> {
    table
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(known, value)| (*value, Name::from(*known)))
}

/// The input type a manifest names, with the out-type and length the name implies.
///
/// The `win:` names are winmeta.xml's (InputType complex type, learn.microsoft.com), numbered
/// as TDH numbers them; `win:CountedUnicodeString`, `win:CountedAnsiString` and
/// `win:CountedBinary` are `TDH_INTYPE_MANIFEST_COUNTED*` (22, 23, 25). The `trace:` names are
/// the classic (MOF) types TDH numbers from 300 (`trace:CountedString` ... `trace:WBEMSid`,
/// tdh.h) and the MOF extensions PerfView's manifests of kernel events write
/// (`trace:SizeT`, `trace:Port`, `trace:IPAddr`, `trace:IPAddrV4`, `trace:IPAddrV6`,
/// `trace:WmiTime`, `trace:Guid`, `trace:UnicodeChar`, `trace:WBEMSid` in
/// kerneltraceeventparser.man.xml). Names are matched without regard to case: the
/// documentation's own examples write `win:boolean` and `win:Uint16`, PerfView's
/// `win:hexInt32`.
fn in_type(name: &str) -> Option<(InType, OutType, Option<Length>)> {
    const TABLE: &[(&str, InType, OutType)] = &[
        ("win:UnicodeString", InType::UNICODE_STRING, OutType::NULL),
        ("win:AnsiString", InType::ANSI_STRING, OutType::NULL),
        ("win:Int8", InType::INT8, OutType::NULL),
        ("win:UInt8", InType::UINT8, OutType::NULL),
        ("win:Int16", InType::INT16, OutType::NULL),
        ("win:UInt16", InType::UINT16, OutType::NULL),
        ("win:Int32", InType::INT32, OutType::NULL),
        ("win:UInt32", InType::UINT32, OutType::NULL),
        ("win:Int64", InType::INT64, OutType::NULL),
        ("win:UInt64", InType::UINT64, OutType::NULL),
        ("win:Float", InType::FLOAT, OutType::NULL),
        ("win:Double", InType::DOUBLE, OutType::NULL),
        ("win:Boolean", InType::BOOLEAN, OutType::NULL),
        ("win:Binary", InType::BINARY, OutType::NULL),
        ("win:GUID", InType::GUID, OutType::NULL),
        ("win:Pointer", InType::POINTER, OutType::NULL),
        ("win:FILETIME", InType::FILETIME, OutType::NULL),
        ("win:SYSTEMTIME", InType::SYSTEMTIME, OutType::NULL),
        ("win:SID", InType::SID, OutType::NULL),
        ("win:HexInt32", InType::HEXINT32, OutType::NULL),
        ("win:HexInt64", InType::HEXINT64, OutType::NULL),
        // TraceParserGen's manifests give these as in-types too.
        ("win:HexInt8", InType::UINT8, OutType::HEX_INT8),
        ("win:HexInt16", InType::UINT16, OutType::HEX_INT16),
        (
            "win:CountedUnicodeString",
            InType::MANIFEST_COUNTED_STRING,
            OutType::NULL,
        ),
        (
            "win:CountedString",
            InType::MANIFEST_COUNTED_STRING,
            OutType::NULL,
        ),
        (
            "win:CountedAnsiString",
            InType::MANIFEST_COUNTED_ANSI_STRING,
            OutType::NULL,
        ),
        (
            "win:CountedBinary",
            InType::MANIFEST_COUNTED_BINARY,
            OutType::NULL,
        ),
        ("trace:CountedString", InType::COUNTED_STRING, OutType::NULL),
        (
            "trace:CountedAnsiString",
            InType::COUNTED_ANSI_STRING,
            OutType::NULL,
        ),
        (
            "trace:ReversedCountedString",
            InType::REVERSED_COUNTED_STRING,
            OutType::NULL,
        ),
        (
            "trace:ReversedCountedAnsiString",
            InType::REVERSED_COUNTED_ANSI_STRING,
            OutType::NULL,
        ),
        (
            "trace:NonNullTerminatedString",
            InType::NON_NULL_TERMINATED_STRING,
            OutType::NULL,
        ),
        (
            "trace:NonNullTerminatedAnsiString",
            InType::NON_NULL_TERMINATED_ANSI_STRING,
            OutType::NULL,
        ),
        ("trace:UnicodeChar", InType::UNICODE_CHAR, OutType::NULL),
        ("trace:AnsiChar", InType::ANSI_CHAR, OutType::NULL),
        ("trace:SizeT", InType::SIZET, OutType::NULL),
        ("trace:HexDump", InType::HEXDUMP, OutType::NULL),
        ("trace:WBEMSid", InType::WBEM_SID, OutType::NULL),
        ("trace:Port", InType::UINT16, OutType::PORT),
        ("trace:IPAddr", InType::UINT32, OutType::IPV4),
        ("trace:IPAddrV4", InType::UINT32, OutType::IPV4),
        ("trace:WmiTime", InType::UINT64, OutType::ETW_TIME),
        ("trace:Guid", InType::GUID, OutType::NULL),
    ];
    if name.eq_ignore_ascii_case("trace:IPAddrV6") {
        // An IN6_ADDR: 16 bytes (Event Tracing MOF Qualifiers, IPAddrV6).
        return Some((InType::BINARY, OutType::IPV6, Some(Length::Fixed(16))));
    }
    TABLE
        .iter()
        .find(|(known, _, _)| known.eq_ignore_ascii_case(name.trim()))
        .map(|(_, in_type, out_type)| (*in_type, *out_type, None))
}

/// The output type a manifest names: the `xs:` and `win:` names of winmeta.xml (OutputType
/// complex type, learn.microsoft.com), numbered as TDH numbers them (`TDH_OUTTYPE_*`), matched
/// without regard to case (the documentation writes both `xs:dateTime` and `xs:datetime`).
fn out_type(name: &str) -> Option<OutType> {
    const TABLE: &[(&str, OutType)] = &[
        ("xs:string", OutType::STRING),
        ("xs:dateTime", OutType::DATETIME),
        ("xs:byte", OutType::BYTE),
        ("xs:unsignedByte", OutType::UNSIGNED_BYTE),
        ("xs:short", OutType::SHORT),
        ("xs:unsignedShort", OutType::UNSIGNED_SHORT),
        ("xs:int", OutType::INT),
        ("xs:unsignedInt", OutType::UNSIGNED_INT),
        ("xs:long", OutType::LONG),
        ("xs:unsignedLong", OutType::UNSIGNED_LONG),
        ("xs:float", OutType::FLOAT),
        ("xs:double", OutType::DOUBLE),
        ("xs:boolean", OutType::BOOLEAN),
        ("xs:GUID", OutType::GUID),
        ("xs:hexBinary", OutType::HEX_BINARY),
        ("win:HexInt8", OutType::HEX_INT8),
        ("win:HexInt16", OutType::HEX_INT16),
        ("win:HexInt32", OutType::HEX_INT32),
        ("win:HexInt64", OutType::HEX_INT64),
        ("win:PID", OutType::PID),
        ("win:TID", OutType::TID),
        ("win:Port", OutType::PORT),
        ("win:IPv4", OutType::IPV4),
        ("win:IPv6", OutType::IPV6),
        ("win:SocketAddress", OutType::SOCKET_ADDRESS),
        ("win:CIMDateTime", OutType::CIM_DATETIME),
        ("win:ETWTIME", OutType::ETW_TIME),
        ("win:Xml", OutType::XML),
        ("win:ErrorCode", OutType::ERROR_CODE),
        ("win:Win32Error", OutType::WIN32_ERROR),
        ("win:NTSTATUS", OutType::NTSTATUS),
        ("win:HResult", OutType::HRESULT),
        (
            "win:DateTimeCultureInsensitive",
            OutType::CULTURE_INSENSITIVE_DATETIME,
        ),
        ("win:Json", OutType::JSON),
        ("win:Utf8", OutType::UTF8),
        ("win:Pkcs7WithTypeInfo", OutType::PKCS7_WITH_TYPE_INFO),
    ];
    TABLE
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name.trim()))
        .map(|(_, out_type)| *out_type)
}

/// A decimal number, or a hexadecimal one after `0x` (the manifest's numbers: `value="10"`,
/// `mask="0x1"`).
fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

/// An attribute's value by its name, without regard to case (the documentation's own
/// examples write `outtype`).
fn attr<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attribute(name)
        .or_else(|| find_attribute(node, name).map(|found| found.value()))
}

fn find_attribute<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<roxmltree::Attribute<'a, 'i>> {
    node.attributes()
        .find(|found| found.name().eq_ignore_ascii_case(name))
}

/// The child elements of `node` called `name` (by local name: the manifest's elements are in
/// its default namespace).
fn elements<'a, 'i: 'a>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    node.children()
        .filter(move |child| child.is_element() && child.tag_name().name() == name)
}

/// The `<inner>` elements of every `<outer>` child of `node`.
fn grandchildren<'a, 'i: 'a>(
    node: Node<'a, 'i>,
    outer: &'static str,
    inner: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    elements(node, outer).flat_map(move |holder| elements(holder, inner))
}

/// The strings of `<localization>`: those of the `en-US` resources when there are several
/// cultures, else of the first. An ID given twice keeps its first string.
fn string_table<'a>(root: Node<'a, '_>) -> HashMap<&'a str, &'a str> {
    let resources: Vec<_> = elements(root, "localization")
        .flat_map(|localization| elements(localization, "resources"))
        .collect();
    let chosen = resources
        .iter()
        .find(|resources| {
            attr(**resources, "culture")
                .is_some_and(|culture| culture.eq_ignore_ascii_case("en-US"))
        })
        .or_else(|| resources.first());
    let mut strings = HashMap::new();
    if let Some(resources) = chosen {
        for string in grandchildren(*resources, "stringTable", "string") {
            if let (Some(id), Some(value)) = (attr(string, "id"), attr(string, "value")) {
                strings.entry(id).or_insert(value);
            }
        }
    }
    strings
}
