//! EventSource manifests put back together from `ManifestData` chunks, on any sequence of
//! chunks, compared with a model of TraceEvent's rules (perfview `DynamicTraceEventParser.cs`,
//! `PartialManifestInfo.AddChunk`; PAYLOADS.md §3) and the documented additions (a changed
//! `TotalChunks` drops, only format 1 starts, UTF-8 text, the cap on held bytes).
//!
//! Input: one byte for the cap (× 64 bytes, 0xFF for the default), then steps. A step is a
//! byte whose bits 0-1 pick one of four streams and bit 2 says how the chunk is made: set,
//! three bytes (`TotalChunks`, `ChunkNumber`, a byte whose bit 0 bumps `MinorVersion`, bit 1
//! sets `Format` 2, bit 2 the magic 0x5C) make an envelope, and the chunk's text follows;
//! clear, the event data follows whole. Then a little-endian `u16` length and that many
//! bytes (or what is left). Laws:
//! - nothing panics; each outcome is the model's (pending with the same counts, complete
//!   with the same text, ignored or dropped for the same reason with the same chunks lost);
//! - every refusal carries the step's place; an envelope error names a member inside the
//!   8-byte envelope;
//! - the bytes held never pass the cap and are the model's;
//! - the whole run is deterministic.
#![no_main]

use std::collections::{BTreeMap, HashMap};

use etw_classic::Guid;
use etw_classic_decode::event_source::{
    ManifestReassembly, Pushed, Refusal, StreamKey, CHUNK_OVERHEAD, STREAM_OVERHEAD,
};
use libfuzzer_sys::fuzz_target;

/// What the model says of a chunk.
#[derive(Debug, PartialEq)]
enum Expected {
    Pending(u16, u16),
    Complete(Vec<u8>),
    Ignored(&'static str),
    Dropped(&'static str, u16),
}

struct ModelStream {
    version: (u8, u8, u8),
    total: u16,
    chunks: BTreeMap<u16, Vec<u8>>,
    held: usize,
}

#[derive(Default)]
struct Model {
    streams: HashMap<u8, ModelStream>,
    held: usize,
    cap: usize,
}

impl Model {
    fn refuse(&mut self, stream: u8, reason: &'static str) -> Expected {
        match self.streams.remove(&stream) {
            Some(dropped) => {
                self.held -= dropped.held;
                Expected::Dropped(reason, dropped.chunks.len() as u16)
            }
            None => Expected::Ignored(reason),
        }
    }

    fn push(&mut self, stream: u8, data: &[u8]) -> Expected {
        // ManifestEnvelope: Format, MajorVersion, MinorVersion, Magic 0x5B, TotalChunks,
        // ChunkNumber; more than 8 bytes; ChunkNumber below a non-zero TotalChunks.
        if data.len() <= 8 || data[3] != 0x5B {
            return self.refuse(stream, "envelope");
        }
        let total = u16::from_le_bytes([data[4], data[5]]);
        let number = u16::from_le_bytes([data[6], data[7]]);
        if total == 0 || number >= total {
            return self.refuse(stream, "envelope");
        }
        let version = (data[0], data[1], data[2]);
        let chunk = &data[8..];
        let new = !self.streams.contains_key(&stream);
        if new {
            if number != 0 {
                return Expected::Ignored("not started");
            }
            if version.0 != 1 {
                return Expected::Ignored("format");
            }
        } else {
            let known = &self.streams[&stream];
            if known.version != version {
                return self.refuse(stream, "version");
            }
            if known.total != total {
                return self.refuse(stream, "total");
            }
            if known.chunks.contains_key(&number) {
                return self.refuse(stream, "repeated");
            }
        }
        let received = self.streams.get(&stream).map_or(0, |s| s.chunks.len()) + 1;
        if received == usize::from(total) {
            let mut chunks = self
                .streams
                .remove(&stream)
                .map(|s| {
                    self.held -= s.held;
                    s.chunks
                })
                .unwrap_or_default();
            chunks.insert(number, chunk.to_vec());
            let text: Vec<u8> = chunks.into_values().flatten().collect();
            return if std::str::from_utf8(&text).is_ok() {
                Expected::Complete(text)
            } else {
                Expected::Dropped("utf8", total)
            };
        }
        let needed = chunk.len() + CHUNK_OVERHEAD + if new { STREAM_OVERHEAD } else { 0 };
        if self.held + needed > self.cap {
            return self.refuse(stream, "cap");
        }
        let entry = self.streams.entry(stream).or_insert(ModelStream {
            version,
            total,
            chunks: BTreeMap::new(),
            held: 0,
        });
        entry.chunks.insert(number, chunk.to_vec());
        entry.held += needed;
        self.held += needed;
        Expected::Pending(received as u16, total)
    }
}

fn reason_name(reason: &Refusal) -> &'static str {
    match reason {
        Refusal::Envelope(error) => {
            assert!(error.offset < 8, "{error}");
            assert!(!error.member().is_empty());
            "envelope"
        }
        Refusal::NotStarted { .. } => "not started",
        Refusal::UnknownFormat(_) => "format",
        Refusal::VersionChanged { .. } => "version",
        Refusal::TotalChanged { .. } => "total",
        Refusal::Repeated { .. } => "repeated",
        Refusal::OverCap { .. } => "cap",
        Refusal::NotUtf8 { .. } => "utf8",
        _ => "other",
    }
}

fn key(stream: u8) -> StreamKey {
    StreamKey {
        provider: Guid::from_fields(u32::from(stream & 1), 0, 0, [0; 8]),
        process_id: 7,
        thread_id: u32::from(stream >> 1),
    }
}

/// The chunks of the input: (stream, event data).
fn steps(mut input: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut steps = Vec::new();
    while let Some((&choice, rest)) = input.split_first() {
        input = rest;
        let stream = choice & 3;
        let mut data = Vec::new();
        if choice & 4 != 0 {
            let Some((&[total, number, flags], rest)) = input.split_first_chunk::<3>() else {
                break;
            };
            input = rest;
            let format = if flags & 2 != 0 { 2 } else { 1 };
            let magic = if flags & 4 != 0 { 0x5C } else { 0x5B };
            data.extend([format, 1, flags & 1, magic, total, 0, number, 0]);
        }
        let Some((length, rest)) = input.split_first_chunk::<2>() else {
            break;
        };
        let length = usize::from(u16::from_le_bytes(*length)).min(rest.len());
        data.extend_from_slice(&rest[..length]);
        input = &rest[length..];
        steps.push((stream, data));
    }
    steps
}

fn run(cap: usize, steps: &[(u8, Vec<u8>)]) -> Vec<Pushed<usize>> {
    let mut reassembly = ManifestReassembly::with_cap(cap);
    let mut model = Model {
        cap,
        ..Model::default()
    };
    let mut outcomes = Vec::new();
    for (place, (stream, data)) in steps.iter().enumerate() {
        let pushed = reassembly.push(key(*stream), data, place);
        let expected = model.push(*stream, data);
        let actual = match &pushed {
            Pushed::Pending {
                key: k,
                received,
                total,
            } => {
                assert_eq!(*k, key(*stream));
                Expected::Pending(*received, *total)
            }
            Pushed::Complete(manifest) => {
                assert_eq!((manifest.key, manifest.place), (key(*stream), place));
                Expected::Complete(manifest.xml.as_bytes().to_vec())
            }
            Pushed::Ignored {
                key: k,
                place: at,
                reason,
            } => {
                assert_eq!((*k, *at), (key(*stream), place));
                assert!(!reason.to_string().is_empty());
                Expected::Ignored(reason_name(reason))
            }
            Pushed::Dropped {
                key: k,
                place: at,
                reason,
                chunks_lost,
            } => {
                assert_eq!((*k, *at), (key(*stream), place));
                assert!(!reason.to_string().is_empty());
                Expected::Dropped(reason_name(reason), *chunks_lost)
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(actual, expected, "step {place}");
        assert!(reassembly.held_bytes() <= cap);
        assert_eq!(reassembly.held_bytes(), model.held);
        assert_eq!(reassembly.incomplete().count(), model.streams.len());
        outcomes.push(pushed);
    }
    outcomes
}

fuzz_target!(|input: &[u8]| {
    let Some((&cap, rest)) = input.split_first() else {
        return;
    };
    let cap = if cap == 0xFF {
        ManifestReassembly::DEFAULT_CAP
    } else {
        usize::from(cap) * 64
    };
    let steps = steps(rest);
    let first = run(cap, &steps);
    let second = run(cap, &steps);
    assert_eq!(first, second, "deterministic");
});
