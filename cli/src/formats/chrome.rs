//! `--format chrome`: the JSON object form of the Trace Event Format (the format of Chrome's
//! `about:tracing`, which Perfetto UI and `chrome://tracing` open), written as the events come:
//!
//! ```text
//! {"traceEvents":[
//! {"name":"...","cat":"...","ph":"i","s":"t","ts":12.3,"pid":4,"tid":8,"args":{...}},
//! ...
//! ],"displayTimeUnit":"ns","otherData":{...}}
//! ```
//!
//! - `ts`: microseconds since the logfile header's `StartTime` (the anchor of the file's clock,
//!   which `otherData.start_time` gives as ISO 8601), as a decimal with the one fractional digit
//!   of FILETIME's 100 ns. Relative, not absolute: microseconds since 1601 or 1970 are beyond
//!   the integers a JSON reader's double holds exactly. An event logged before `StartTime` has
//!   a negative `ts`. Events without a timestamp are left out; a file whose clock cannot be
//!   read is refused (`etwc` says why), rather than written as a trace without events.
//! - `pid`, `tid`: the event's process and thread ids. Before the first event of a process
//!   the trace names (by its kernel `Process` events), a `process_name` metadata event
//!   (`"ph":"M"`) gives its name (`PerfView`); before the first event of a thread the trace
//!   names (by its kernel `Thread` events: `SetName`, or `ThreadName` from version 4), a
//!   `thread_name` metadata event. Events whose header has no ids (`PERFINFO`) go to the
//!   pseudo-process [`NO_PROCESS`] (named by a `process_name` metadata event), on a thread per
//!   processor (`tid` = the processor, named `processor N` by a `thread_name` metadata event).
//! - `ph`: `i` (an instant event, `"s":"t"`: thread scope) for every event, except classic
//!   (`FULL_HEADER`, `INSTANCE`) events whose `Class.Type` is `EVENT_TRACE_TYPE_START` (1),
//!   which open a span (`B`), and `EVENT_TRACE_TYPE_END` (2), which close the span of the same
//!   provider last opened on the same thread (`E`). An end with no such span open on its thread
//!   is an instant event; the spans still open at the end of the trace are closed there, at the
//!   time of the last event, with `"args":{"closed_at_end_of_trace":true}`. So `B` and `E` are
//!   balanced and nested on every thread.
//! - `name`: `provider/event` as the event's schema names it (`Windows Kernel/Process/DCStart`,
//!   `Microsoft-Windows-DotNETRuntime/GarbageCollection/GCAllocationTick`; the provider GUID or
//!   kernel group when the schema names no provider). An event no schema names keeps the name
//!   its header gives: `GUID id N` (`EVENT_HEADER`), `GUID TYPE` (classic),
//!   `kernel:GROUP type N` (kernel events), otherwise the kind. A span is named by its start
//!   event's provider and task (`provider/Task`), else its provider, else its GUID.
//! - `cat`: the provider's name when the schema gives one, otherwise the provider GUID,
//!   `kernel:GROUP` for kernel events, or the kind.
//! - `args` (`--chrome-args`): by default where the event is (`buffer`, `offset`), its `kind`,
//!   and what its payload says: `fields`, and `fields_error`, `fields_left` or `undecoded`
//!   as the JSON line gives them (its names are `name` and `cat`, its ids `pid` and `tid`).
//!   `line`: the event's JSON line (`--format json`) without the members that hold its bytes
//!   as hex (`data`, an extended item's `data` and `padding`, a malformed event's `bytes`).
//!   `hex`: the whole JSON line. The bytes as hex made the trace of a 4.9 MB .etl 196 MB.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};

use etw_classic::{wire::UtcDateTime, EventType};
use serde_json::{json, Value};

use super::{FileInfo, Format, Tally};
use crate::etl_args::ChromeArgs;
use etw_classic_decode::facts::Source;
use etw_classic_decode::headers;
use etw_classic_decode::sink::{JsonWriter, Sink};
use etw_classic_decode::{DecodedEvent, Identified, Name};

/// The `pid` of the events whose header names no process.
pub const NO_PROCESS: u32 = u32::MAX;

/// Whether an event opens or closes a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    Instant,
    Begin,
    End,
}

/// One event, prepared: all but its `args` (which are the prepared bytes).
pub struct Item {
    filetime: i64,
    pid: u32,
    tid: u32,
    name: String,
    cat: String,
    edge: Edge,
    /// What a start's span and the end that closes it share: the provider GUID (or kernel
    /// group).
    span: String,
    /// The name of the span a start opens.
    span_name: String,
    /// The names the trace gives the event's process and thread.
    process_name: Option<Name>,
    thread_name: Option<Name>,
}

/// A span open on a thread: what its end must share, its name and category, and when it
/// opened.
struct Open {
    span: String,
    name: String,
    cat: String,
    filetime: i64,
}

/// `--format chrome`.
#[derive(Default)]
pub struct Chrome {
    /// The FILETIME `ts` counts from.
    origin: Option<i64>,
    /// Whether an event has been written (a comma goes before the next).
    written: bool,
    named_processes: HashSet<u32>,
    named_threads: HashSet<(u32, u32)>,
    open: BTreeMap<(u32, u32), Vec<Open>>,
    last: Option<i64>,
    /// What `args` hold (`--chrome-args`).
    args: ChromeArgs,
}

/// The task of the event's schema: the name of the span a start event opens (not a
/// description's, which names no span).
fn task_name<'a>(identified: &'a Identified<'_, '_>) -> Option<&'a str> {
    match identified {
        Identified::Schema(_) | Identified::Kernel(_) => identified.task_name(),
        _ => None,
    }
}

/// Microseconds from `origin` to `filetime`, with the digit of the 100 ns.
fn ts(origin: i64, filetime: i64) -> String {
    let intervals = i128::from(filetime) - i128::from(origin);
    let sign = if intervals < 0 { "-" } else { "" };
    let intervals = intervals.unsigned_abs();
    format!("{sign}{}.{}", intervals / 10, intervals % 10)
}

impl Chrome {
    /// The Chrome trace whose events' `args` hold what `args` says.
    pub fn new(args: ChromeArgs) -> Self {
        Self {
            args,
            ..Self::default()
        }
    }

    /// Writes one trace event object.
    fn write(&mut self, out: &mut dyn Write, event: &Value) -> io::Result<()> {
        let comma = if self.written { ",\n" } else { "" };
        self.written = true;
        write!(out, "{comma}{event}")
    }

    /// The metadata events naming the process and thread of `item`, the first time they are
    /// met: the names the trace gives them, and the pseudo-process of the events without ids.
    fn name(&mut self, out: &mut dyn Write, item: &Item) -> io::Result<()> {
        let (pid, tid) = (item.pid, item.tid);
        if pid != NO_PROCESS {
            if let Some(name) = &item.process_name {
                if self.named_processes.insert(pid) {
                    let event = json!({
                        "name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0,
                        "cat": "", "args": {"name": &**name},
                    });
                    self.write(out, &event)?;
                }
            }
            if let Some(name) = &item.thread_name {
                if self.named_threads.insert((pid, tid)) {
                    let event = json!({
                        "name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid,
                        "cat": "", "args": {"name": &**name},
                    });
                    self.write(out, &event)?;
                }
            }
            return Ok(());
        }
        if self.named_processes.insert(pid) {
            let event = json!({
                "name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "cat": "",
                "args": {"name": "kernel events without a process id, by processor"},
            });
            self.write(out, &event)?;
        }
        if self.named_threads.insert((pid, tid)) {
            let event = json!({
                "name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid, "cat": "",
                "args": {"name": format!("processor {tid}")},
            });
            self.write(out, &event)?;
        }
        Ok(())
    }

    /// Writes one event whose `args` are the JSON text `args`.
    fn write_event(
        &mut self,
        out: &mut dyn Write,
        item: &Item,
        name: &str,
        phase: &str,
        args: &[u8],
    ) -> io::Result<()> {
        let origin = self.origin.unwrap_or(item.filetime);
        let comma = if self.written { ",\n" } else { "" };
        self.written = true;
        write!(
            out,
            "{comma}{{\"name\":{},\"cat\":{},\"ph\":\"{phase}\",{}\"ts\":{},\"pid\":{},\"tid\":{},\
             \"args\":",
            json!(name),
            json!(item.cat),
            if phase == "i" { "\"s\":\"t\"," } else { "" },
            ts(origin, item.filetime),
            item.pid,
            item.tid
        )?;
        out.write_all(args)?;
        out.write_all(b"}")
    }
}

impl Format for Chrome {
    type Item = Item;
    const NEEDS_TIME: bool = true;

    fn begin(&mut self, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        self.origin = file.clock.ok().map(|clock| clock.start_time());
        out.write_all(b"{\"traceEvents\":[\n")
    }

    fn prepare(&self, event: &DecodedEvent<'_, '_>, bytes: &mut Vec<u8>) -> Item {
        let facts = event.facts();
        let kind = event.kind_name();
        let (pid, tid) = match facts.process_id {
            Some(pid) => (pid, facts.thread_id.unwrap_or(u32::from(event.processor))),
            None => (NO_PROCESS, u32::from(event.processor)),
        };
        let source = facts
            .source
            .map_or_else(|| kind.clone(), |source| source.to_string());
        let identified = event.identified().ok();
        let provider_name = identified.and_then(|found| found.provider_name().map(str::to_owned));
        let cat = provider_name.clone().unwrap_or_else(|| source.clone());
        let edge = match facts.classic_type {
            Some(EventType::START) => Edge::Begin,
            Some(EventType::END) => Edge::End,
            _ => Edge::Instant,
        };
        let name = match (facts.source, facts.event_id, facts.classic_type) {
            (Some(Source::Provider(guid)), Some(id), _) => format!("{guid} id {id}"),
            (Some(Source::Provider(guid)), None, Some(event_type)) => match event_type.name() {
                Some(type_name) => format!("{guid} {type_name}"),
                None => format!("{guid} type {}", event_type.0),
            },
            (Some(source @ Source::Kernel(_)), _, _) => {
                format!("{source} type {}", facts.opcode.unwrap_or_default())
            }
            (Some(source), _, _) => format!("{source} {kind}"),
            (None, _, _) => kind,
        };
        let name = identified
            .and_then(Identified::event_name)
            .map_or(name, |event| format!("{cat}/{event}"));
        let span_name = match identified.and_then(task_name) {
            Some(task) => format!("{cat}/{task}"),
            None => cat.clone(),
        };
        let mut args = JsonWriter::new(bytes);
        match self.args {
            ChromeArgs::Fields => {
                args.begin_object();
                headers::position(&mut args, event.buffer, &event.event);
                event.describe_payload(&mut args);
                args.end_object();
            }
            ChromeArgs::Line => {
                args.omit_bytes(true);
                event.describe(&mut args);
            }
            ChromeArgs::Hex => event.describe(&mut args),
        }
        Item {
            filetime: event.filetime.unwrap_or_default(),
            pid,
            tid,
            name,
            cat,
            edge,
            span: source,
            span_name,
            process_name: event.process_name().cloned(),
            thread_name: event.thread_name().cloned(),
        }
    }

    fn emit(&mut self, item: Item, args: &[u8], out: &mut dyn Write) -> io::Result<()> {
        if self.origin.is_none() {
            self.origin = Some(item.filetime);
        }
        self.last = Some(
            self.last
                .map_or(item.filetime, |last| last.max(item.filetime)),
        );
        self.name(out, &item)?;
        let stack = self.open.entry((item.pid, item.tid)).or_default();
        let (phase, name) = match item.edge {
            Edge::End => match stack.last() {
                Some(open) if open.span == item.span && open.filetime <= item.filetime => {
                    let open = stack.pop();
                    ("E", open.map(|open| open.name))
                }
                _ => ("i", None),
            },
            Edge::Begin => {
                stack.push(Open {
                    span: item.span.clone(),
                    name: item.span_name.clone(),
                    cat: item.cat.clone(),
                    filetime: item.filetime,
                });
                ("B", Some(item.span_name.clone()))
            }
            Edge::Instant => ("i", None),
        };
        let name = name.as_deref().unwrap_or(&item.name);
        self.write_event(out, &item, name, phase, args)
    }

    fn end(&mut self, tally: &Tally, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        let open = std::mem::take(&mut self.open);
        for ((pid, tid), stack) in open {
            for span in stack.into_iter().rev() {
                let item = Item {
                    filetime: self.last.unwrap_or(span.filetime).max(span.filetime),
                    pid,
                    tid,
                    name: span.name.clone(),
                    cat: span.cat,
                    edge: Edge::End,
                    span_name: span.name,
                    span: span.span,
                    process_name: None,
                    thread_name: None,
                };
                self.write_event(
                    out,
                    &item,
                    &item.name,
                    "E",
                    b"{\"closed_at_end_of_trace\":true}",
                )?;
            }
        }
        let origin = self
            .origin
            .map(|origin| UtcDateTime::from_filetime(origin).to_string());
        let other = json!({
            "source": file.path,
            "logger_name": file.logger_name,
            "start_time": origin,
            "events": tally.events().to_string(),
        });
        write!(
            out,
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{other}}}\n"
        )
    }
}
