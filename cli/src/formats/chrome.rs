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
//! - `pid`, `tid`: the event's process and thread ids. Events whose header has none
//!   (`PERFINFO`) go to the pseudo-process [`NO_PROCESS`] (named by a `process_name` metadata
//!   event), on a thread per processor (`tid` = the processor, named `processor N` by a
//!   `thread_name` metadata event).
//! - `ph`: `i` (an instant event, `"s":"t"`: thread scope) for every event, except classic
//!   (`FULL_HEADER`, `INSTANCE`) events whose `Class.Type` is `EVENT_TRACE_TYPE_START` (1),
//!   which open a span (`B`), and `EVENT_TRACE_TYPE_END` (2), which close the span of the same
//!   provider last opened on the same thread (`E`). An end with no such span open on its thread
//!   is an instant event; the spans still open at the end of the trace are closed there, at the
//!   time of the last event, with `"args":{"closed_at_end_of_trace":true}`. So `B` and `E` are
//!   balanced and nested on every thread.
//! - `name`: `GUID id N` (`EVENT_HEADER`), `GUID TYPE` (classic; the span of a start and end is
//!   named by the GUID alone), `kernel:GROUP type N` (kernel events), otherwise the kind.
//! - `cat`: the provider GUID, `kernel:GROUP` for kernel events, otherwise the kind.
//! - `args`: the event's JSON line (`--format json`).

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};

use etw_classic::{wire::UtcDateTime, Event, EventType};
use serde_json::{json, Value};

use super::{EventContext, FileInfo, Format, Tally};
use crate::etl::{dated_event_json, kind_name};
use etw_classic_decode::facts::{Facts, Source};

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
    /// The name of the span a start opens or an end closes: the provider GUID.
    span: String,
}

/// A span open on a thread: its name and when it opened.
struct Open {
    span: String,
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
}

/// Microseconds from `origin` to `filetime`, with the digit of the 100 ns.
fn ts(origin: i64, filetime: i64) -> String {
    let intervals = i128::from(filetime) - i128::from(origin);
    let sign = if intervals < 0 { "-" } else { "" };
    let intervals = intervals.unsigned_abs();
    format!("{sign}{}.{}", intervals / 10, intervals % 10)
}

impl Chrome {
    /// Writes one trace event object.
    fn write(&mut self, out: &mut dyn Write, event: &Value) -> io::Result<()> {
        let comma = if self.written { ",\n" } else { "" };
        self.written = true;
        write!(out, "{comma}{event}")
    }

    /// The metadata events naming `pid` and `tid`, the first time they are met.
    fn name(&mut self, out: &mut dyn Write, pid: u32, tid: u32) -> io::Result<()> {
        if pid != NO_PROCESS {
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

    fn prepare(&self, context: &EventContext<'_>, event: &Event<'_>, bytes: &mut Vec<u8>) -> Item {
        let facts = Facts::of(event);
        let kind = kind_name(event.header_type);
        let (pid, tid) = match facts.process_id {
            Some(pid) => (pid, facts.thread_id.unwrap_or(u32::from(context.processor))),
            None => (NO_PROCESS, u32::from(context.processor)),
        };
        let cat = facts
            .source
            .map_or_else(|| kind.clone(), |source| source.to_string());
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
        // Writing to a Vec<u8> cannot fail.
        let _ = write!(bytes, "{}", Value::Object(dated_event_json(context, event)));
        Item {
            filetime: context.filetime.unwrap_or_default(),
            pid,
            tid,
            name,
            span: cat.clone(),
            cat,
            edge,
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
        self.name(out, item.pid, item.tid)?;
        let stack = self.open.entry((item.pid, item.tid)).or_default();
        let edge = match item.edge {
            Edge::End => match stack.last() {
                Some(open) if open.span == item.span && open.filetime <= item.filetime => {
                    stack.pop();
                    Edge::End
                }
                _ => Edge::Instant,
            },
            Edge::Begin => {
                stack.push(Open {
                    span: item.span.clone(),
                    filetime: item.filetime,
                });
                Edge::Begin
            }
            Edge::Instant => Edge::Instant,
        };
        match edge {
            Edge::Begin => self.write_event(out, &item, &item.span, "B", args),
            Edge::End => self.write_event(out, &item, &item.span, "E", args),
            Edge::Instant => self.write_event(out, &item, &item.name, "i", args),
        }
    }

    fn end(&mut self, tally: &Tally, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        let open = std::mem::take(&mut self.open);
        for ((pid, tid), stack) in open {
            for span in stack.into_iter().rev() {
                let item = Item {
                    filetime: self.last.unwrap_or(span.filetime).max(span.filetime),
                    pid,
                    tid,
                    name: span.span.clone(),
                    cat: span.span.clone(),
                    edge: Edge::End,
                    span: span.span,
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
