//! `--format table`: one text line per event, its position, kind, size and time, the members
//! of its header that say what it is, then its meaning as PerfView prints an event
//! (`provider/event key=value ...`).

use std::fmt::Write as _;
use std::io;

use etw_classic::wire::UtcDateTime;
use etw_classic::{Event, EventKind};
use etw_classic_decode::headers::kind_name;
use etw_classic_decode::DecodedEvent;
use serde_json::Value;

use super::{FileInfo, Format};

/// `--format table`.
pub struct Table;

impl Format for Table {
    type Item = ();
    const WRITES_AS_PREPARED: bool = true;

    fn begin(&mut self, file: &FileInfo<'_>, out: &mut dyn io::Write) -> io::Result<()> {
        writeln!(out, "{}", file_line(file))
    }

    fn prepare(&self, event: &DecodedEvent<'_, '_>, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(event_line(event).trim_end().as_bytes());
        bytes.push(b'\n');
    }

    fn emit(&mut self, (): (), bytes: &[u8], out: &mut dyn io::Write) -> io::Result<()> {
        out.write_all(bytes)
    }
}

/// One event's text line (its end trimmed by the caller).
pub fn event_line(event: &DecodedEvent<'_, '_>) -> String {
    let time = event.time().map(|time| time.to_string());
    let mut line = header_line(event.buffer, &event.event, time.as_deref().unwrap_or("-"));
    meaning_text(event, &mut line);
    line
}

/// Width of an ISO 8601 time with seven fractional digits, `2021-04-18T10:20:35.2722435Z`.
const TIME_WIDTH: usize = 28;

/// One text line for an event: position, kind, size, time and the fields that say what it is.
fn header_line(buffer: usize, event: &Event<'_>, time: &str) -> String {
    let position = format!(
        "buffer {buffer:>4} offset {:#07x} {:<15} size {:>5} {time:<TIME_WIDTH$}",
        event.offset,
        kind_name(event.header_type),
        event.size
    );
    let header = match event.kind() {
        EventKind::Full { header, .. } => header,
        EventKind::Instance { header, .. } => {
            let trace = header.header;
            return format!(
                "{position}  {} type {} level {} version {} tid {} pid {} raw_timestamp {} kernel_time {} user_time {} \
                 instance {} parent {} {}",
                trace.guid.guid(),
                trace.class.event_type.0,
                level_text(trace.class.level.0),
                trace.class.version,
                trace.thread_id,
                trace.process_id,
                trace.timestamp,
                trace.times.kernel_time(),
                trace.times.user_time(),
                header.instance_id,
                header.parent_instance_id,
                header.parent_guid
            );
        }
        EventKind::EventHeader { header, body } => {
            let descriptor = header.event_descriptor;
            let items = match body.split() {
                Ok((items, _)) => items.len().to_string(),
                Err(error) => format!("error ({error})"),
            };
            return format!(
                "{position}  {} id {} version {} level {} opcode {} task {} keyword {:#x} tid {} \
                 pid {} raw_timestamp {} kernel_time {} user_time {} items {items}",
                header.provider_id,
                descriptor.id,
                descriptor.version,
                level_text(descriptor.level.0),
                descriptor.opcode,
                descriptor.task,
                descriptor.keyword,
                header.thread_id,
                header.process_id,
                header.timestamp,
                header.times.kernel_time(),
                header.times.user_time()
            );
        }
        _ => return position,
    };
    format!(
        "{position}  {} type {} level {} version {} tid {} pid {} raw_timestamp {} kernel_time {} user_time {}",
        header.guid.guid(),
        header.class.event_type.0,
        level_text(header.class.level.0),
        header.class.version,
        header.thread_id,
        header.process_id,
        header.timestamp,
        header.times.kernel_time(),
        header.times.user_time()
    )
}

/// A level as winmeta.xml names it (`win:Verbose` for 5), or its number when it names none.
fn level_text(level: u8) -> String {
    etw_classic_decode::manifest::win_level_name(level)
        .map_or_else(|| level.to_string(), str::to_owned)
}

/// Appends an event's meaning to its text line: `provider/event key=value ...`, as PerfView
/// prints an event, with any decoding error after the fields.
fn meaning_text(event: &DecodedEvent<'_, '_>, line: &mut String) {
    let meaning = match event.meaning() {
        Ok(meaning) => meaning,
        Err(why) => {
            // A description (MetaData/EventInfo, ManifestData): its names, no fields.
            if let Some([provider, name, ..]) = why.names() {
                let _ = write!(
                    line,
                    "  {}/{}",
                    provider.unwrap_or("?"),
                    name.unwrap_or("?")
                );
            }
            return;
        }
    };
    let _ = write!(
        line,
        "  {}/{}",
        meaning.identified.provider_name().unwrap_or("?"),
        meaning.identified.event_name().as_deref().unwrap_or("?")
    );
    if let Some(process) = event.process_name() {
        let _ = write!(line, " process={process}");
    }
    let fields = meaning.fields.to_json();
    for (key, value) in &fields.fields {
        match value {
            Value::String(text) => {
                let _ = write!(line, " {key}={text}");
            }
            Value::Object(object) if object.contains_key("name") && object.len() == 2 => {
                let name = object
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let _ = write!(line, " {key}={name}");
            }
            other => {
                let _ = write!(line, " {key}={other}");
            }
        }
    }
    if let Some(error) = fields.error {
        let _ = write!(line, " (fields stop: {error})");
    }
}

/// The first text line: the logfile header.
pub fn file_line(file: &FileInfo<'_>) -> String {
    let header = &file.header;
    format!(
        "logfile header: logger {:?}, file {:?}, {} logger, buffer size {}, {} buffers \
         written, {} events lost, {} buffers lost, clock {:?}, timer resolution {} \
         (100 ns), start {}, end {}, perf freq {}",
        file.logger_name,
        file.log_file_name,
        file.bitness,
        header.buffer_size(),
        header.buffers_written(),
        header.events_lost(),
        header.buffers_lost(),
        header.reserved_flags(),
        header.timer_resolution(),
        UtcDateTime::from_filetime(header.start_time()),
        UtcDateTime::from_filetime(header.end_time()),
        header.perf_freq()
    )
}
