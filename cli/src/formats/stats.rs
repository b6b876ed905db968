//! `--summary` and `--stats`: nothing per event, a report at the end.
//!
//! `--stats` counts the events by kind, by provider (the GUID, or the kernel group of
//! `HookId`), by provider name and by event name (`provider/event`, as the event's schema
//! names them; an event no schema names is counted under its provider GUID or kernel group,
//! as in the counts by provider), and by process id; and gives the first and last time.

use std::collections::HashMap;
use std::io::{self, Write};

use etw_classic::wire::UtcDateTime;
use serde_json::{json, Map, Value};

use super::{FileInfo, Format, Tally};
use etw_classic_decode::facts::Source;
use etw_classic_decode::DecodedEvent;

/// What a file whose `BuffersWritten` is 0 gets as a note in a text report.
const UNFLUSHED_NOTE: &str = "the logfile header's BuffersWritten is 0 (a session still running \
                              or not stopped cleanly): read to the end of the file";

/// `--summary`: the number of buffers and events, and the events of each kind.
pub struct Summary {
    pub json: bool,
}

impl Format for Summary {
    type Item = ();
    const PRINTS_EVENTS: bool = false;
    const SHOWS_MEANING: bool = false;
    const SHOWS_TIME: bool = false;

    fn prepare(&self, _: &DecodedEvent<'_, '_>, _: &mut Vec<u8>) {}

    fn emit(&mut self, (): (), _: &[u8], _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn end(&mut self, tally: &Tally, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        let kinds: Map<String, Value> = tally
            .kinds()
            .into_iter()
            .map(|(kind, count)| (kind, json!(count)))
            .collect();
        if self.json {
            let mut line = json!({
                "buffers": tally.buffers,
                "events": tally.events(),
                "kinds": kinds,
            });
            if file.unflushed {
                line["buffers_written_was_zero"] = json!(true);
            }
            writeln!(out, "{line}")
        } else {
            writeln!(out, "{} buffers, {} events", tally.buffers, tally.events())?;
            if file.unflushed {
                writeln!(out, "{UNFLUSHED_NOTE}")?;
            }
            for (kind, count) in tally.kinds() {
                writeln!(out, "{kind:>15} {count:>8}")?;
            }
            Ok(())
        }
    }
}

/// What `--stats` keeps of one event.
pub struct Record {
    source: Option<Source>,
    process_id: Option<u32>,
    filetime: Option<i64>,
    /// The provider's name and the event's `provider/event` name, or where the schema gives
    /// none, the provider GUID or kernel group (`None` without either).
    names: Option<(String, String)>,
}

/// `--stats`: the events counted by kind, by provider, by provider and event name and by
/// process, and their time span.
#[derive(Default)]
pub struct Stats {
    json: bool,
    providers: HashMap<Source, u64>,
    without_provider: u64,
    provider_names: HashMap<String, u64>,
    event_names: HashMap<String, u64>,
    processes: HashMap<u32, u64>,
    without_process: u64,
    first: Option<i64>,
    last: Option<i64>,
    without_time: u64,
}

impl Stats {
    pub fn new(json: bool) -> Self {
        Self {
            json,
            ..Self::default()
        }
    }
}

/// `counts` from the largest count down, equal counts by key.
fn by_count<K: Ord + Clone>(counts: &HashMap<K, u64>) -> Vec<(K, u64)> {
    let mut counts: Vec<(K, u64)> = counts
        .iter()
        .map(|(key, count)| (key.clone(), *count))
        .collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
}

/// The names `--stats` counts an event under: its provider's name and its `provider/event`
/// name as its schema gives them ([`DecodedEvent::identified`], which does not decode the
/// fields); the provider GUID or kernel group (`kernel:PROCESS`) for the part the schema does
/// not name; `None` for an event with no provider at all.
fn names(event: &DecodedEvent<'_, '_>) -> Option<(String, String)> {
    let identified = event.identified().ok();
    let provider = identified
        .and_then(|found| found.provider_name().map(str::to_owned))
        .or_else(|| event.facts().source.map(|source| source.to_string()))?;
    let event = match identified.and_then(|found| found.event_name()) {
        Some(event) => format!("{provider}/{event}"),
        None => provider.clone(),
    };
    Some((provider, event))
}

/// 100 ns intervals as seconds with seven fractional digits.
fn seconds(intervals: i64) -> String {
    let sign = if intervals < 0 { "-" } else { "" };
    let intervals = intervals.unsigned_abs();
    format!(
        "{sign}{}.{:07}",
        intervals / 10_000_000,
        intervals % 10_000_000
    )
}

impl Format for Stats {
    type Item = Record;
    const PRINTS_EVENTS: bool = false;

    fn prepare(&self, event: &DecodedEvent<'_, '_>, _: &mut Vec<u8>) -> Record {
        let facts = event.facts();
        Record {
            source: facts.source,
            process_id: facts.process_id,
            filetime: event.filetime,
            names: names(event),
        }
    }

    fn emit(&mut self, record: Record, _: &[u8], _: &mut dyn Write) -> io::Result<()> {
        match record.source {
            Some(source) => *self.providers.entry(source).or_default() += 1,
            None => self.without_provider += 1,
        }
        if let Some((provider, event)) = record.names {
            *self.provider_names.entry(provider).or_default() += 1;
            *self.event_names.entry(event).or_default() += 1;
        }
        match record.process_id {
            Some(process_id) => *self.processes.entry(process_id).or_default() += 1,
            None => self.without_process += 1,
        }
        match record.filetime {
            Some(filetime) => {
                self.first = Some(self.first.map_or(filetime, |first| first.min(filetime)));
                self.last = Some(self.last.map_or(filetime, |last| last.max(filetime)));
            }
            None => self.without_time += 1,
        }
        Ok(())
    }

    fn end(&mut self, tally: &Tally, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        let time = |filetime: Option<i64>| {
            filetime.map(|filetime| UtcDateTime::from_filetime(filetime).to_string())
        };
        let duration = self
            .first
            .zip(self.last)
            .map(|(first, last)| last.saturating_sub(first));
        let providers = by_count(&self.providers);
        let processes = by_count(&self.processes);
        let provider_names = by_count(&self.provider_names);
        let event_names = by_count(&self.event_names);
        if self.json {
            let mut object = json!({
                "buffers": tally.buffers,
                "events": tally.events(),
            });
            object["kinds"] = Value::Object(
                tally
                    .kinds()
                    .into_iter()
                    .map(|(kind, count)| (kind, json!(count)))
                    .collect(),
            );
            object["providers"] = Value::Object(
                providers
                    .iter()
                    .map(|(source, count)| (source.to_string(), json!(count)))
                    .collect(),
            );
            object["events_without_provider"] = json!(self.without_provider);
            object["provider_names"] = Value::Object(
                provider_names
                    .iter()
                    .map(|(name, count)| (name.clone(), json!(count)))
                    .collect(),
            );
            object["event_names"] = Value::Object(
                event_names
                    .iter()
                    .map(|(name, count)| (name.clone(), json!(count)))
                    .collect(),
            );
            object["processes"] = Value::Object(
                processes
                    .iter()
                    .map(|(process_id, count)| (process_id.to_string(), json!(count)))
                    .collect(),
            );
            object["events_without_process"] = json!(self.without_process);
            object["first_time"] = json!(time(self.first));
            object["last_time"] = json!(time(self.last));
            object["first_filetime"] = json!(self.first);
            object["last_filetime"] = json!(self.last);
            object["duration_100ns"] = json!(duration);
            // Parsed from the exact decimal, so that the float is the nearest to it.
            object["duration_seconds"] =
                json!(duration.and_then(|duration| seconds(duration).parse::<f64>().ok()));
            object["events_without_time"] = json!(self.without_time);
            if file.unflushed {
                object["buffers_written_was_zero"] = json!(true);
            }
            return writeln!(out, "{object}");
        }
        writeln!(out, "{} buffers, {} events", tally.buffers, tally.events())?;
        if file.unflushed {
            writeln!(out, "{UNFLUSHED_NOTE}")?;
        }
        match (time(self.first), time(self.last), duration) {
            (Some(first), Some(last), Some(duration)) => writeln!(
                out,
                "time: first {first}, last {last}, duration {} s",
                seconds(duration)
            )?,
            _ => writeln!(out, "time: no event has a time")?,
        }
        if self.without_time != 0 {
            writeln!(out, "{:>8} events without a time", self.without_time)?;
        }
        writeln!(out, "kinds:")?;
        for (kind, count) in tally.kinds() {
            writeln!(out, "{count:>8} {kind}")?;
        }
        writeln!(out, "providers (kernel events by group):")?;
        for (source, count) in &providers {
            writeln!(out, "{count:>8} {source}")?;
        }
        if self.without_provider != 0 {
            writeln!(out, "{:>8} (none)", self.without_provider)?;
        }
        writeln!(out, "provider names (unnamed by GUID or kernel group):")?;
        for (name, count) in &provider_names {
            writeln!(out, "{count:>8} {name}")?;
        }
        writeln!(out, "event names (provider/event):")?;
        for (name, count) in &event_names {
            writeln!(out, "{count:>8} {name}")?;
        }
        writeln!(out, "processes:")?;
        for (process_id, count) in &processes {
            writeln!(out, "{count:>8} {process_id}")?;
        }
        if self.without_process != 0 {
            writeln!(out, "{:>8} (none)", self.without_process)?;
        }
        Ok(())
    }
}
