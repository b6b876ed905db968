//! The decoded event: one event of a trace with everything the outputs show of it, borrowed
//! from its buffer and from the [`Registry`] that names it, and decoded only as far as an output
//! asks.
//!
//! | part | from |
//! |---|---|
//! | `buffer`, `processor` | the buffer that holds it: its index in file order, its processor |
//! | [`event`](DecodedEvent::event) | the event in its buffer: offset, kind (header type), size, bytes ([`Event::kind`] decodes its header) |
//! | [`facts`](DecodedEvent::facts) | what its header says: provider or kernel group, process and thread ids, descriptor, payload |
//! | [`timestamp`](DecodedEvent::timestamp), [`filetime`](DecodedEvent::filetime), [`time`](DecodedEvent::time) | its raw timestamp, and the same through the file's clock ([`TraceClock`]) |
//! | [`identified`](DecodedEvent::identified) | its schema, which names provider, event, task and opcode ([`Registry::identify`]) |
//! | [`process_name`](DecodedEvent::process_name), [`thread_name`](DecodedEvent::thread_name) | the names the trace's kernel events give its process and thread |
//! | [`meaning`](DecodedEvent::meaning) | its names and the fields of its payload, ready to be walked into any [`Sink`] |
//!
//! Every output writes from it: [`describe`](DecodedEvent::describe) gives the event's JSON
//! line to a [`Sink`] (the JSON lines, the Chrome trace's `args`, the Python module's dicts);
//! the table, CSV and statistics take the parts they show.

use std::cell::OnceCell;

use etw_classic::payload::kernel::KernelFields;
use etw_classic::payload::FieldSchema;
use etw_classic::read::TraceClock;
use etw_classic::wire::UtcDateTime;
use etw_classic::{Bitness, Event, HeaderType};

use crate::facts::Facts;
use crate::headers;
use crate::registry::{tracelogging_fields, EventNameParts, Identified, Registry, Undecoded};
use crate::render::{describe_fields, FieldsEnd, FieldsJson};
use crate::schema::{EventSchema, Name};
use crate::sink::{Described, Sink, ValueBuilder};

/// The FILETIME of `event` through `clock`, if it has a timestamp and there is a clock.
pub fn filetime_of(event: &Event<'_>, clock: Option<TraceClock>) -> Option<i64> {
    // Without a clock, the timestamp is not even read.
    clock.and_then(|clock| clock.to_filetime(event.timestamp()?))
}

/// One event with what the outputs show of it; what needs work (the header's facts, the
/// schema) is found on first use and kept.
#[derive(Debug)]
pub struct DecodedEvent<'e, 'r> {
    /// The index of the buffer that holds it, in file order.
    pub buffer: usize,
    /// The processor of that buffer.
    pub processor: u16,
    /// The event in its buffer.
    pub event: Event<'e>,
    /// Its FILETIME (its raw timestamp through the file's clock), if it has one.
    pub filetime: Option<i64>,
    /// The schemas and process names of the trace.
    pub registry: &'r Registry,
    facts: OnceCell<Facts<'e>>,
    identified: OnceCell<Result<Identified<'r, 'e>, Undecoded>>,
}

impl<'e, 'r> DecodedEvent<'e, 'r> {
    /// `event` of buffer `buffer` on `processor`, dated `filetime` ([`filetime_of`]), named
    /// by `registry`.
    #[inline]
    pub fn new(
        buffer: usize,
        processor: u16,
        event: Event<'e>,
        filetime: Option<i64>,
        registry: &'r Registry,
    ) -> Self {
        Self {
            buffer,
            processor,
            event,
            filetime,
            registry,
            facts: OnceCell::new(),
            identified: OnceCell::new(),
        }
    }

    /// The header type.
    pub fn kind(&self) -> HeaderType {
        self.event.header_type
    }

    /// The header type's name as the outputs show it ([`headers::kind_name`]).
    pub fn kind_name(&self) -> String {
        headers::kind_name(self.event.header_type)
    }

    /// The raw timestamp of its header, if it has one.
    pub fn timestamp(&self) -> Option<i64> {
        self.event.timestamp()
    }

    /// The time as a UTC date, if the event has one.
    pub fn time(&self) -> Option<UtcDateTime> {
        self.filetime.map(UtcDateTime::from_filetime)
    }

    /// What its header says of it.
    pub fn facts(&self) -> &Facts<'e> {
        self.facts.get_or_init(|| Facts::of(&self.event))
    }

    /// The schema that describes it, or why none does: enough to name it.
    pub fn identified(&self) -> Result<&Identified<'r, 'e>, &Undecoded> {
        self.identified
            .get_or_init(|| self.registry.identify(self.facts()))
            .as_ref()
    }

    /// The provider's name as its schema gives it.
    pub fn provider_name(&self) -> Option<&str> {
        self.identified().ok().and_then(Identified::provider_name)
    }

    /// The event's name as its schema gives it.
    pub fn event_name(&self) -> Option<String> {
        self.identified().ok().and_then(Identified::event_name)
    }

    /// The name the trace gives its process.
    pub fn process_name(&self) -> Option<&'r Name> {
        let registry: &'r Registry = self.registry;
        self.facts()
            .process_id
            .and_then(|pid| registry.process_name(pid))
    }

    /// The name the trace gives its thread.
    pub fn thread_name(&self) -> Option<&'r Name> {
        let registry: &'r Registry = self.registry;
        self.facts()
            .thread_id
            .and_then(|tid| registry.thread_name(tid))
    }

    /// Its names and fields, or why it has no fields (no schema, metadata that does not
    /// read, an event that is itself a description).
    pub fn meaning(&self) -> Result<Meaning<'r, 'e>, Undecoded> {
        let identified = self.identified().map_err(Clone::clone)?;
        let facts = self.facts();
        let data = facts.payload.unwrap_or_default();
        let bitness = facts.bitness.unwrap_or(Bitness::Bits64);
        let fields = match identified {
            Identified::Schema(schema) => FieldSet::Schema(schema.schema()),
            Identified::Kernel(event) => FieldSet::Kernel(event.fields_for(data.len(), bitness)),
            Identified::TraceLogging { event, .. } => {
                FieldSet::TraceLogging(tracelogging_fields(event)?)
            }
            Identified::Description(description) => return Err(description.undecoded()),
        };
        Ok(Meaning {
            identified: *identified,
            fields: Fields {
                set: fields,
                data,
                bitness,
            },
        })
    }

    /// Describes the event's JSON line to `sink`, one object: `buffer`, `offset`, `kind`, the
    /// keys of its header ([`headers::event_members`]), `processor`, `filetime`, `time`, then
    /// its meaning ([`describe_meaning`](Self::describe_meaning)).
    pub fn describe<S: Sink>(&self, sink: &mut S) {
        sink.begin_object();
        headers::position(sink, self.buffer, &self.event);
        headers::event_members(sink, &self.event);
        sink.put_u64("processor", self.processor.into());
        sink.put_opt_i64("filetime", self.filetime);
        sink.key("time");
        match self.time() {
            Some(time) => sink.utc(&time),
            None => sink.null(),
        }
        self.describe_meaning(sink);
        sink.end_object();
    }

    /// The keys that give the event its meaning, from its schema:
    ///
    /// | key | value |
    /// |---|---|
    /// | `provider_name`, `event_name`, `task_name`, `opcode_name` | names, `null` when unknown |
    /// | `level_name`, `keyword_names` | only when the schema names them |
    /// | `process_name` | the name of the event's process, `null` when the trace does not name it |
    /// | `fields` | the fields in schema order (arrays as lists, structures as objects, a mapped value as `{"value": n, "name": ...}`); `null` when no schema describes the event |
    /// | `fields_error` | only when decoding stopped before the last field: which field, where, what was expected |
    /// | `fields_left` | only when bytes are left after the last field: how many |
    /// | `undecoded` | only when no schema describes the event, or the event is itself a description (`MetaData/EventInfo`, `ManifestData`, which keep their names): why |
    pub fn describe_meaning<S: Sink>(&self, sink: &mut S) {
        let process = self.process_name().map(|name| &**name);
        match self.meaning() {
            Ok(meaning) => {
                let identified = &meaning.identified;
                sink.put_opt_str("provider_name", identified.provider_name());
                sink.key("event_name");
                match identified.event_name_parts() {
                    Some(EventNameParts {
                        first,
                        second: None,
                    }) => sink.str(first),
                    Some(parts) => sink.display(&parts),
                    None => sink.null(),
                }
                sink.put_opt_str("task_name", identified.task_name());
                sink.put_opt_str("opcode_name", identified.opcode_name());
                if let Some(level) = identified.level_name() {
                    sink.put_str("level_name", level);
                }
                let keywords = identified.keyword_names();
                if !keywords.is_empty() {
                    sink.key("keyword_names");
                    sink.begin_array();
                    for keyword in keywords {
                        sink.str(keyword);
                    }
                    sink.end_array();
                }
                sink.put_opt_str("process_name", process);
                fields_members(sink, &meaning);
            }
            Err(why) => {
                // A description (MetaData/EventInfo, ManifestData) has names but no fields.
                let names = why.names().unwrap_or_default();
                for (key, name) in ["provider_name", "event_name", "task_name", "opcode_name"]
                    .into_iter()
                    .zip(names)
                {
                    sink.put_opt_str(key, name);
                }
                sink.put_opt_str("process_name", process);
                undecoded_members(sink, &why);
            }
        }
    }

    /// The last keys of [`describe_meaning`](Self::describe_meaning), without the names: what
    /// the payload says (`fields`, and `fields_error`, `fields_left` or `undecoded` when they
    /// apply), as members of the object open.
    pub fn describe_payload<S: Sink>(&self, sink: &mut S) {
        match self.meaning() {
            Ok(meaning) => fields_members(sink, &meaning),
            Err(why) => undecoded_members(sink, &why),
        }
    }

    /// The event's JSON line, without its line end, appended to `out`: [`describe`](Self::describe)
    /// through a [`JsonWriter`](crate::sink::JsonWriter).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        self.describe(&mut crate::sink::JsonWriter::new(out));
    }
}

/// `fields`, then `fields_error` and `fields_left` when decoding stopped early or left bytes.
fn fields_members<S: Sink>(sink: &mut S, meaning: &Meaning<'_, '_>) {
    sink.key("fields");
    let end = sink.map_object(&meaning.fields);
    if let Some(error) = end.error {
        sink.put_str("fields_error", &error);
    }
    if end.rest > 0 {
        sink.put_u64("fields_left", end.rest as u64);
    }
}

/// `fields` as `null` and why no schema decodes the event.
fn undecoded_members<S: Sink>(sink: &mut S, why: &Undecoded) {
    sink.put_null("fields");
    sink.put_display("undecoded", why);
}

/// An event's names (its schema, [`Identified`]) and the fields of its payload.
#[derive(Debug)]
pub struct Meaning<'r, 'e> {
    /// The schema that names it.
    pub identified: Identified<'r, 'e>,
    /// Its fields, to be walked.
    pub fields: Fields<'r, 'e>,
}

/// The fields of one event's payload: its schema's field list and the data they decode, walked
/// into a [`Sink`] each time they are described.
#[derive(Debug)]
pub struct Fields<'r, 'e> {
    set: FieldSet<'r, 'e>,
    data: &'e [u8],
    bitness: Bitness,
}

/// A schema's fields, as each source holds them.
// A kernel class's fields are a table, or a copy of its last few entries sized to the data:
// held on the stack for one event, where a box would cost an allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum FieldSet<'r, 'e> {
    Schema(&'r EventSchema),
    Kernel(KernelFields),
    TraceLogging(Vec<FieldSchema<&'e str>>),
}

impl Fields<'_, '_> {
    /// The fields as a map, with how the walk ended.
    pub fn to_json(&self) -> FieldsJson {
        let mut builder = ValueBuilder::new();
        let end = self.describe(&mut builder);
        FieldsJson {
            fields: builder.finish_object(),
            error: end.error,
            rest: end.rest,
        }
    }
}

impl Described for Fields<'_, '_> {
    type End = FieldsEnd;

    /// The fields as one object ([`describe_fields`]).
    fn describe<S: Sink>(&self, sink: &mut S) -> FieldsEnd {
        let (data, bitness) = (self.data, self.bitness);
        match &self.set {
            FieldSet::Schema(schema) => {
                describe_fields(sink, &schema.fields, |name| schema.map(name), data, bitness)
            }
            FieldSet::Kernel(fields) => describe_fields(sink, fields, |_| None, data, bitness),
            FieldSet::TraceLogging(fields) => {
                describe_fields(sink, fields, |_| None, data, bitness)
            }
        }
    }
}
