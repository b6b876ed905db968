//! `etwc schemas FILE`: which schemas describe a trace's events, and what is left undecoded.
//!
//! The schemas are those `etwc etl` decodes with ([`Registry::for_trace`]): the files
//! given with `--manifest` and `--mof`, and what a first pass learns from the trace (its
//! `MetaData/EventInfo` events, its EventSource manifests); then the file is walked once more
//! and each event is matched with its schema ([`Registry::identify`]) and its data walked with
//! it ([`Identified::check`], without rendering the values). The report lists:
//!
//! 1. every schema the trace carries or was given, with the events it decoded (perhaps none),
//!    and the kernel's built-in classes and TraceLogging event descriptions that decoded
//!    events: TraceLogging carries its schema in each event, so its schemas are counted per
//!    distinct provider, event name and field count;
//! 2. the events no schema describes, counted by provider (GUID, or kernel group) and reason
//!    (the [`Undecoded`](etw_classic_decode::Undecoded) message, which names the key looked up);
//! 3. what the trace's own descriptions could not give ([`Registry::problems`]).
//!
//! | JSON key | value |
//! |---|---|
//! | `file`, `events`, `decoded_events`, `undecoded_events` | the path; the events read, those a schema described, the others |
//! | `schemas` | one object per schema: `source` (`tracelogging`, `eventsource-manifest`, `eventinfo`, `manifest`, `mof`, `kernel`), `provider` (its name, else its GUID), `event` (its name, `null` when the schema gives none), `fields` (structures and their members each count), `events` (events it described), `events_with_errors` (whose fields stopped early), `events_with_bytes_left` (whose data goes on after the last field), `first_error`, `key` (what it is looked up by), `place` (where it was read) |
//! | `undecoded` | one object per provider and reason: `provider` (GUID, `kernel:GROUP`, or the kind), `provider_name` (a name the trace's other schemas give that GUID), `reason`, `events` |
//! | `problems` | messages, each naming its place |

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use etw_classic::payload::kernel::{KernelEvent, PROVIDER_NAME};
use etw_classic::read::ReaderBuffer;
use etw_classic::{EtlReader, Guid};
use etw_classic_decode::buffers::{self, for_each_decoded_buffer};
use etw_classic_decode::facts::Facts;
use etw_classic_decode::{Checked, EventSchema, Identified, Registry, SchemaKey, SchemaSource};
use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use etw_classic_decode::headers::kind_name;
use etw_classic_decode::report::{describe, Problems};

/// `etwc schemas`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The .etl file (read twice: standard input cannot be)
    pub file: String,

    /// An instrumentation manifest (.man or .xml) describing providers' events, or a folder of
    /// them; repeatable
    #[arg(long, value_name = "PATH")]
    pub manifest: Vec<PathBuf>,

    /// Classic MOF text (.mof) describing event classes, or a folder of them; repeatable
    #[arg(long, value_name = "PATH")]
    pub mof: Vec<PathBuf>,

    /// Print one JSON object instead of tables
    #[arg(long)]
    pub json: bool,
}

/// What identifies one row of the schema table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum RowKey {
    /// A schema of the registry, by its address.
    Registry(usize),
    /// A built-in kernel class: class GUID, event type, version.
    Kernel(Guid, u8, u8),
    /// TraceLogging: the provider GUID and name, the event name, the field count.
    TraceLogging(Option<Guid>, Option<String>, String, usize),
}

/// The events one schema described.
#[derive(Clone, Debug, Default)]
struct Counts {
    events: u64,
    with_errors: u64,
    with_bytes_left: u64,
    first_error: Option<String>,
    /// Where it was first met (TraceLogging rows, which no file or registry place names).
    first_place: Option<String>,
    /// The kernel event of a kernel row.
    kernel: Option<&'static KernelEvent>,
}

impl Counts {
    /// Adds the counts of the same schema's `later` events.
    fn add_later(&mut self, later: Self) {
        self.events += later.events;
        self.with_errors += later.with_errors;
        self.with_bytes_left += later.with_bytes_left;
        if self.first_error.is_none() {
            self.first_error = later.first_error;
        }
        if self.first_place.is_none() {
            self.first_place = later.first_place;
            self.kernel = self.kernel.or(later.kernel);
        }
    }

    fn add(&mut self, walked: &Checked, place: impl FnOnce() -> String) {
        self.events += 1;
        if let Some(error) = &walked.error {
            self.with_errors += 1;
            if self.first_error.is_none() {
                self.first_error = Some(format!("{}: {error}", place()));
            }
        } else if walked.rest > 0 {
            self.with_bytes_left += 1;
        }
    }
}

/// One line of the schema table.
struct Row {
    source: SchemaSource,
    provider: String,
    event: Option<String>,
    fields: usize,
    counts: Counts,
    key: Value,
    key_text: String,
    place: String,
}

/// The report, built by walking the file.
struct Census {
    rows: FxHashMap<RowKey, Counts>,
    undecoded: FxHashMap<(String, String), u64>,
    events: u64,
    problems: Problems,
}

/// Where an event is, for messages.
fn place_of(path: &str, buffer: usize, file_offset: usize, offset: usize) -> String {
    format!("{path}: buffer {buffer} (file offset {file_offset:#x}) event offset {offset:#x}")
}

impl Census {
    fn new() -> Self {
        Self {
            rows: FxHashMap::default(),
            undecoded: FxHashMap::default(),
            events: 0,
            problems: Problems::default(),
        }
    }

    /// Counts every event of the file at `path`: each buffer on one of the machine's cores
    /// ([`for_each_decoded_buffer`]), the buffers' counts then added up in file order, so that
    /// the first error and first place of each row are the file's first.
    fn walk(registry: &Registry, path: &str) -> Result<Self, String> {
        let mut census = Self::new();
        let mut reader = EtlReader::open(path).map_err(|error| describe(path, &error))?;
        let count = |buffer: &ReaderBuffer<'_>| Self::of_buffer(registry, path, buffer);
        for_each_decoded_buffer(&mut reader, buffers::threads(), count, |buffer| {
            match buffer {
                Ok((_, counted)) => census.add(counted),
                Err(error) => census.problems.push(describe(path, &error)),
            }
            true
        });
        Ok(census)
    }

    /// Adds the counts of `later`, which comes after what was counted so far.
    fn add(&mut self, later: Self) {
        self.events += later.events;
        for (key, counts) in later.rows {
            self.rows.entry(key).or_default().add_later(counts);
        }
        for (key, events) in later.undecoded {
            *self.undecoded.entry(key).or_default() += events;
        }
        self.problems.append(later.problems);
    }

    /// The counts of one buffer's events.
    fn of_buffer(registry: &Registry, path: &str, buffer: &ReaderBuffer<'_>) -> Self {
        let mut census = Self::new();
        let position = buffer.position;
        for event in buffer.events() {
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    census.problems.push(format!("{path}: {error}"));
                    break;
                }
            };
            census.events += 1;
            let facts = Facts::of(&event);
            let place = || place_of(path, position.index, position.file_offset, event.offset);
            let label = || {
                facts
                    .source
                    .map_or_else(|| kind_name(event.header_type), |source| source.to_string())
            };
            let identified = registry.identify(&facts);
            let walked = identified
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|found| found.check(&facts).map(|walked| (found, walked)));
            match walked {
                Ok((found, walked)) => {
                    let (key, kernel) = match found {
                        Identified::Schema(schema) => (
                            RowKey::Registry(std::ptr::from_ref(schema.schema()).addr()),
                            None,
                        ),
                        Identified::Kernel(event) => (
                            RowKey::Kernel(event.class, event.event_type, event.version),
                            Some(*event),
                        ),
                        Identified::TraceLogging { event, provider } => (
                            RowKey::TraceLogging(
                                facts.provider(),
                                provider.map(str::to_owned),
                                event.name.to_owned(),
                                walked.fields,
                            ),
                            None,
                        ),
                        // `check` refuses a description; counted undecoded all the same.
                        Identified::Description(description) => {
                            *census
                                .undecoded
                                .entry((label(), description.what.to_owned()))
                                .or_default() += 1;
                            continue;
                        }
                    };
                    let counts = census.rows.entry(key).or_default();
                    if counts.first_place.is_none() {
                        counts.first_place = Some(place());
                        counts.kernel = kernel;
                    }
                    counts.add(&walked, place);
                }
                Err(why) => {
                    *census
                        .undecoded
                        .entry((label(), why.to_string()))
                        .or_default() += 1;
                }
            }
        }
        census
    }
}

/// The GUID or kernel group text of a schema key's provider or class, and the key's other
/// members as JSON and as text.
fn describe_key(key: &SchemaKey) -> (Guid, Value, String) {
    match *key {
        SchemaKey::Descriptor {
            provider,
            id,
            version,
        } => (
            provider,
            json!({"provider": provider.to_string(), "id": id, "version": version}),
            format!("id {id} version {version}"),
        ),
        SchemaKey::Classic {
            class,
            event_type,
            version,
        } => (
            class,
            json!({"class": class.to_string(), "type": event_type, "version": version}),
            format!("class {class} type {event_type} version {version}"),
        ),
    }
}

/// The rows of every schema the registry holds, and of the built-in and TraceLogging schemas
/// that described events.
fn rows(registry: &Registry, census: &mut Census) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut registry_row = |schema: &EventSchema, guid: Guid, key: Value, key_text: String| {
        let counts = census
            .rows
            .remove(&RowKey::Registry(std::ptr::from_ref(schema).addr()))
            .unwrap_or_default();
        rows.push(Row {
            source: schema.origin.source,
            provider: schema
                .provider_name
                .as_deref()
                .map_or_else(|| guid.to_string(), str::to_owned),
            event: schema.display_name(),
            fields: schema.fields.len(),
            counts,
            key,
            key_text,
            place: schema.origin.place.clone(),
        });
    };
    for (key, schema) in registry.schemas() {
        let (guid, key, key_text) = describe_key(key);
        registry_row(schema, guid, key, key_text);
    }
    for ((class, event_type), schema) in registry.any_version_schemas() {
        let key = json!({"class": class.to_string(), "type": event_type, "version": null});
        let key_text = format!("class {class} type {event_type} any version");
        registry_row(schema, class, key, key_text);
    }
    for (key, counts) in census.rows.drain() {
        match key {
            RowKey::Kernel(class, event_type, version) => {
                let event = counts.kernel;
                rows.push(Row {
                    source: SchemaSource::Kernel,
                    provider: event
                        .map_or(PROVIDER_NAME, |event| event.provider_name)
                        .to_owned(),
                    event: event.map(|event| event.event_name().to_string()),
                    fields: event.map_or(0, |event| event.fields.len()),
                    key: json!({"class": class.to_string(), "type": event_type, "version": version}),
                    key_text: format!("class {class} type {event_type} version {version}"),
                    place: event.map_or_else(String::new, |event| {
                        format!("built in: MOF class {}", event.mof_class)
                    }),
                    counts,
                });
            }
            RowKey::TraceLogging(guid, provider, event, fields) => rows.push(Row {
                source: SchemaSource::TraceLogging,
                provider: provider
                    .or_else(|| guid.map(|guid| guid.to_string()))
                    .unwrap_or_default(),
                event: Some(event),
                fields,
                key: json!({"provider": guid.map(|guid| guid.to_string())}),
                key_text: guid.map_or_else(String::new, |guid| format!("provider {guid}")),
                place: counts
                    .first_place
                    .clone()
                    .map_or_else(String::new, |place| format!("first at {place}")),
                counts,
            }),
            // Every registry schema's row was taken above.
            RowKey::Registry(_) => {}
        }
    }
    rows.sort_by(|a, b| {
        (a.source, &a.provider, &a.event, &a.key_text).cmp(&(
            b.source,
            &b.provider,
            &b.event,
            &b.key_text,
        ))
    });
    rows
}

/// The provider names the registry's schemas give their GUIDs (and the kernel's groups), for
/// the undecoded events.
fn provider_names(registry: &Registry) -> HashMap<String, String> {
    let mut names = HashMap::new();
    let schemas = registry
        .schemas()
        .map(|(key, schema)| (describe_key(key).0, schema))
        .chain(
            registry
                .any_version_schemas()
                .map(|((class, _), schema)| (class, schema)),
        );
    for (guid, schema) in schemas {
        if let Some(name) = &schema.provider_name {
            names.insert(guid.to_string(), name.to_string());
        }
    }
    // The MetaData descriptions, which no schema describes (PerfView's name for them).
    names.insert(
        etw_classic::payload::METADATA_GUID.to_string(),
        etw_classic::payload::kernel::CONTROL_PROVIDER_NAME.to_owned(),
    );
    names
}

/// The undecoded events by provider and reason, the largest count first.
fn undecoded(census: &Census) -> Vec<(&str, &str, u64)> {
    let mut undecoded: Vec<(&str, &str, u64)> = census
        .undecoded
        .iter()
        .map(|((provider, reason), count)| (provider.as_str(), reason.as_str(), *count))
        .collect();
    undecoded.sort_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    undecoded
}

/// The name of `provider` (a GUID or `kernel:GROUP`), if known.
fn name_of<'n>(names: &'n HashMap<String, String>, provider: &str) -> Option<&'n str> {
    if provider.starts_with("kernel:") {
        return Some(PROVIDER_NAME);
    }
    names.get(provider).map(String::as_str)
}

/// Prints the report of `args.file`; an error message if part of the file could not be read
/// (after the report) or a schema file could not be loaded.
pub fn run(args: &Args) -> Result<(), String> {
    let path = args.file.as_str();
    if path == "-" {
        return Err(
            "etwc schemas reads the file twice (once to learn its schemas, once to count what \
             they decode), which standard input cannot be: save it to a file first"
                .to_owned(),
        );
    }
    let file = std::fs::File::open(path).map_err(|error| format!("cannot read {path}: {error}"))?;
    if let Some(what) = crate::read_once(&file) {
        return Err(format!(
            "etwc schemas reads the file twice (once to learn its schemas, once to count what \
             they decode), which {path} cannot be ({what}, whose bytes can be read once): save \
             it to a file first"
        ));
    }
    drop(file);
    let registry = Registry::for_trace(&args.manifest, &args.mof, Some(path))?;
    let mut census = Census::walk(&registry, path)?;
    let rows = rows(&registry, &mut census);
    let names = provider_names(&registry);
    let undecoded = undecoded(&census);
    let decoded: u64 = rows.iter().map(|row| row.counts.events).sum();
    let problems = registry.problems();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = if args.json {
        let schemas: Vec<Value> = rows.iter().map(row_json).collect();
        let undecoded: Vec<Value> = undecoded
            .iter()
            .map(|&(provider, reason, events)| {
                json!({
                    "provider": provider,
                    "provider_name": name_of(&names, provider),
                    "reason": reason,
                    "events": events,
                })
            })
            .collect();
        let mut report = Map::new();
        report.insert("file".into(), json!(path));
        report.insert("events".into(), json!(census.events));
        report.insert("decoded_events".into(), json!(decoded));
        report.insert(
            "undecoded_events".into(),
            json!(census.events.saturating_sub(decoded)),
        );
        report.insert("schemas".into(), Value::Array(schemas));
        report.insert("undecoded".into(), Value::Array(undecoded));
        report.insert("problems".into(), json!(problems));
        writeln!(out, "{}", Value::Object(report))
    } else {
        print_tables(
            &mut out, path, &census, decoded, &rows, &undecoded, &names, &problems,
        )
    };
    written
        .and_then(|()| out.flush())
        .map_err(crate::output_error)?;
    if census.problems.is_empty() {
        Ok(())
    } else {
        Err(census.problems.line())
    }
}

fn row_json(row: &Row) -> Value {
    json!({
        "source": row.source.name(),
        "provider": row.provider,
        "event": row.event,
        "fields": row.fields,
        "events": row.counts.events,
        "events_with_errors": row.counts.with_errors,
        "events_with_bytes_left": row.counts.with_bytes_left,
        "first_error": row.counts.first_error,
        "key": row.key,
        "place": row.place,
    })
}

#[allow(clippy::too_many_arguments)]
fn print_tables(
    out: &mut impl Write,
    path: &str,
    census: &Census,
    decoded: u64,
    rows: &[Row],
    undecoded: &[(&str, &str, u64)],
    names: &HashMap<String, String>,
    problems: &[String],
) -> std::io::Result<()> {
    writeln!(
        out,
        "{path}: {} events, {decoded} described by {} schemas, {} undecoded",
        census.events,
        rows.iter().filter(|row| row.counts.events > 0).count(),
        census.events.saturating_sub(decoded)
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<20} {:>8} {:>6} {:>6} {:>6}  PROVIDER/EVENT  (KEY)",
        "SOURCE", "EVENTS", "ERRORS", "LEFT", "FIELDS"
    )?;
    for row in rows {
        writeln!(
            out,
            "{:<20} {:>8} {:>6} {:>6} {:>6}  {}/{}  ({})",
            row.source.name(),
            row.counts.events,
            row.counts.with_errors,
            row.counts.with_bytes_left,
            row.fields,
            row.provider,
            row.event.as_deref().unwrap_or("?"),
            row.key_text
        )?;
    }
    let with_errors: Vec<&Row> = rows
        .iter()
        .filter(|row| row.counts.first_error.is_some())
        .collect();
    if !with_errors.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "first error of each schema whose fields stopped early:"
        )?;
        for row in with_errors {
            writeln!(
                out,
                "  {}/{}: {}",
                row.provider,
                row.event.as_deref().unwrap_or("?"),
                row.counts.first_error.as_deref().unwrap_or_default()
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "undecoded events (by provider and reason):")?;
    if undecoded.is_empty() {
        writeln!(out, "  none")?;
    }
    for &(provider, reason, count) in undecoded {
        let provider = match name_of(names, provider) {
            Some(name) if !provider.starts_with("kernel:") => format!("{name} ({provider})"),
            _ => provider.to_owned(),
        };
        writeln!(out, "{count:>8}  {provider}: {reason}")?;
    }
    writeln!(out)?;
    writeln!(out, "problems learning the trace's own descriptions:")?;
    if problems.is_empty() {
        writeln!(out, "  none")?;
    }
    for problem in problems {
        writeln!(out, "  {problem}")?;
    }
    Ok(())
}
