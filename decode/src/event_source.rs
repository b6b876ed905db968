//! EventSource manifests written into the stream: the chunks of `ManifestData` events put
//! back together into the manifest's XML text.
//!
//! The rules are TraceEvent's (perfview `DynamicTraceEventParser.cs`,
//! `CheckForDynamicManifest` and `PartialManifestInfo.AddChunk`; PAYLOADS.md §3):
//! - one stream per (provider GUID, process id, thread id) ([`StreamKey`]);
//! - a chunk must have a good envelope ([`ManifestEnvelope::parse`]: more than 8 bytes,
//!   `Magic` 0x5B, `ChunkNumber` below a non-zero `TotalChunks`); a bad one drops the stream
//!   in progress;
//! - a stream starts only at chunk 0 (other chunks without a stream are ignored, "to allow for
//!   resyncing at 0");
//! - a stream is dropped when a chunk's number is out of its range, repeats one already
//!   received, or its format or versions differ from chunk 0's; the chunk that dropped it is
//!   not used;
//! - the manifest is complete when every chunk is there, in any order after chunk 0; it is
//!   the chunks' bytes in chunk order.
//!
//! Two things are added: a stream whose chunks say different `TotalChunks` is dropped
//! (TraceEvent only checks the chunk number against the first chunk's count), and only
//! `Format` 1 (`SimpleXmlFormat`) is started, the text must be UTF-8, as the writer makes it
//! (`Encoding.UTF8`), and is handed out as a `String`.
//!
//! Memory is bounded: the chunks of incomplete streams are held up to a cap in bytes
//! ([`ManifestReassembly::DEFAULT_CAP`], 16 MiB, or [`ManifestReassembly::with_cap`]), each
//! chunk counted as its bytes plus [`CHUNK_OVERHEAD`] and each stream as [`STREAM_OVERHEAD`]
//! more, so that many small chunks cannot hold more memory than the cap says. A chunk that
//! would take the total past the cap drops its stream ([`Refusal::OverCap`]); the caller can
//! report it. The chunk that completes a manifest is not held, so a manifest of one chunk
//! never counts. TraceEvent forgets a partial manifest after ten seconds of wall-clock time;
//! here an incomplete stream stays until it completes, is dropped, or is listed at the end by
//! [`ManifestReassembly::incomplete`].
//!
//! Which manifests to use is the caller's choice: TraceEvent ignores the one the .NET runtime
//! writes from .NET 6 for `Microsoft-Windows-DotNETRuntime`, which it knows already.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use etw_classic::payload::{EnvelopeError, ManifestEnvelope, ManifestFormat};
use etw_classic::Guid;

/// Bytes each held chunk counts for, beyond its own, in the cap of
/// [`ManifestReassembly`]: its place in the stream's map and its allocation.
pub const CHUNK_OVERHEAD: usize = 64;

/// Bytes each incomplete stream counts for, beyond its chunks, in the cap of
/// [`ManifestReassembly`].
pub const STREAM_OVERHEAD: usize = 256;

/// What a manifest stream is told apart by: the provider, and the process and thread that
/// write it (TraceEvent's "acts as a stream ID").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamKey {
    /// The EventSource's provider GUID (the `EVENT_HEADER`'s `ProviderId`).
    pub provider: Guid,
    /// `ProcessId`.
    pub process_id: u32,
    /// `ThreadId`.
    pub thread_id: u32,
}

impl fmt::Display for StreamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "provider {} process {} thread {}",
            self.provider, self.process_id, self.thread_id
        )
    }
}

/// Why a chunk was not used, or a stream was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The envelope is bad (too short, bad magic, no chunks, chunk number not below the
    /// count), with the member and its offset.
    Envelope(EnvelopeError),
    /// A chunk other than 0 with no stream in progress.
    NotStarted {
        /// Its `ChunkNumber`.
        chunk: u16,
    },
    /// Chunk 0 of a format other than 1 (`SimpleXmlFormat`).
    UnknownFormat(ManifestFormat),
    /// The chunk's format or versions differ from chunk 0's.
    VersionChanged {
        /// Chunk 0's `Format`, `MajorVersion`, `MinorVersion`.
        was: (u8, u8, u8),
        /// This chunk's.
        now: (u8, u8, u8),
    },
    /// The chunk's `TotalChunks` differs from chunk 0's.
    TotalChanged {
        /// Chunk 0's `TotalChunks`.
        was: u16,
        /// This chunk's.
        now: u16,
    },
    /// The chunk's number was received already.
    Repeated {
        /// Its `ChunkNumber`.
        chunk: u16,
    },
    /// Holding the chunk would take the bytes held by incomplete streams past the cap.
    OverCap {
        /// Bytes the chunk would add (its own, [`CHUNK_OVERHEAD`], and [`STREAM_OVERHEAD`]
        /// for a new stream).
        needed: usize,
        /// Bytes held before it, by every incomplete stream.
        held: usize,
        /// The cap.
        cap: usize,
    },
    /// Every chunk is there, but their bytes are not UTF-8.
    NotUtf8 {
        /// The length of the valid UTF-8 before the first bad byte.
        valid_up_to: usize,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Envelope(error) => write!(f, "{error}"),
            Self::NotStarted { chunk } => write!(
                f,
                "chunk {chunk} with no manifest in progress (a manifest starts at chunk 0)"
            ),
            Self::UnknownFormat(format) => write!(
                f,
                "ManifestEnvelope.Format {}: only 1 (simple XML) is read",
                format.0
            ),
            Self::VersionChanged { was, now } => write!(
                f,
                "format and version {}.{}.{} differ from chunk 0's {}.{}.{}",
                now.0, now.1, now.2, was.0, was.1, was.2
            ),
            Self::TotalChanged { was, now } => write!(
                f,
                "TotalChunks {now} differs from chunk 0's {was}"
            ),
            Self::Repeated { chunk } => write!(f, "chunk {chunk} was received already"),
            Self::OverCap { needed, held, cap } => write!(
                f,
                "holding {needed} more bytes would take the {held} bytes held by incomplete manifests past the cap of {cap}"
            ),
            Self::NotUtf8 { valid_up_to } => write!(
                f,
                "the manifest's bytes are not UTF-8 after byte {valid_up_to}"
            ),
        }
    }
}

/// A manifest put back together from its chunks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamManifest<P> {
    /// The stream it came from.
    pub key: StreamKey,
    /// `MajorVersion` and `MinorVersion` of its envelopes.
    pub version: (u8, u8),
    /// How many chunks it took.
    pub chunks: u16,
    /// The XML text: every chunk's bytes in chunk order.
    pub xml: String,
    /// The place of the chunk that completed it, as the caller gave it.
    pub place: P,
}

/// What [`ManifestReassembly::push`] did with a chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pushed<P> {
    /// The chunk is held; the stream waits for more.
    Pending {
        /// The stream.
        key: StreamKey,
        /// Chunks received so far.
        received: u16,
        /// `TotalChunks`.
        total: u16,
    },
    /// The chunk completed a manifest.
    Complete(StreamManifest<P>),
    /// The chunk was not used, and no stream was in progress for its key.
    Ignored {
        /// The stream.
        key: StreamKey,
        /// The chunk's place.
        place: P,
        /// Why.
        reason: Refusal,
    },
    /// The stream in progress was dropped, with every chunk it held; the chunk was not used.
    Dropped {
        /// The stream.
        key: StreamKey,
        /// The chunk's place.
        place: P,
        /// Why.
        reason: Refusal,
        /// How many chunks the stream held.
        chunks_lost: u16,
    },
}

/// A stream still waiting for chunks ([`ManifestReassembly::incomplete`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IncompleteStream {
    /// The stream.
    pub key: StreamKey,
    /// Chunks received.
    pub received: u16,
    /// `TotalChunks`.
    pub total: u16,
    /// Bytes it counts for in the cap.
    pub held: usize,
}

#[derive(Debug)]
struct Stream {
    /// Chunk 0's `Format`, `MajorVersion`, `MinorVersion`.
    version: (u8, u8, u8),
    total: u16,
    chunks: BTreeMap<u16, Vec<u8>>,
    /// What it counts for in the cap.
    held: usize,
}

/// The manifests of a trace's `ManifestData` events, put back together chunk by chunk, with
/// the place type `P` of the caller's choosing (a `String` such as `buffer 19 offset 0x428`,
/// or a position).
///
/// ```
/// use etw_classic::Guid;
/// use etw_classic_decode::event_source::{ManifestReassembly, Pushed, StreamKey};
/// let key = StreamKey { provider: Guid::NIL, process_id: 1, thread_id: 2 };
/// let mut manifests = ManifestReassembly::new();
/// let first = b"\x01\x01\x00\x5b\x02\x00\x00\x00<instrumentationManifest>";
/// let second = b"\x01\x01\x00\x5b\x02\x00\x01\x00</instrumentationManifest>";
/// assert!(matches!(manifests.push(key, first, "first"), Pushed::Pending { received: 1, .. }));
/// let Pushed::Complete(manifest) = manifests.push(key, second, "second") else { panic!() };
/// assert_eq!(manifest.xml, "<instrumentationManifest></instrumentationManifest>");
/// assert_eq!(manifest.place, "second");
/// assert_eq!(manifests.held_bytes(), 0);
/// ```
#[derive(Debug)]
pub struct ManifestReassembly {
    streams: HashMap<StreamKey, Stream>,
    held: usize,
    cap: usize,
}

impl Default for ManifestReassembly {
    fn default() -> Self {
        Self::new()
    }
}

impl ManifestReassembly {
    /// The cap of [`new`](Self::new): 16 MiB held by incomplete streams. The largest manifest
    /// in the sample traces is 50,580 bytes; the .NET runtime's own, `ClrEtwAll.man`, is
    /// under 1 MiB of XML.
    pub const DEFAULT_CAP: usize = 16 << 20;

    /// No stream, and the [default cap](Self::DEFAULT_CAP).
    pub fn new() -> Self {
        Self::with_cap(Self::DEFAULT_CAP)
    }

    /// No stream, and at most `cap` bytes held by incomplete streams (as counted in the
    /// module's documentation).
    pub fn with_cap(cap: usize) -> Self {
        Self {
            streams: HashMap::new(),
            held: 0,
            cap,
        }
    }

    /// The cap.
    pub const fn cap(&self) -> usize {
        self.cap
    }

    /// The bytes incomplete streams count for now; never above the cap.
    pub const fn held_bytes(&self) -> usize {
        self.held
    }

    /// The streams still waiting for chunks, in no particular order.
    pub fn incomplete(&self) -> impl Iterator<Item = IncompleteStream> + '_ {
        self.streams.iter().map(|(key, stream)| IncompleteStream {
            key: *key,
            received: u16::try_from(stream.chunks.len()).unwrap_or(u16::MAX),
            total: stream.total,
            held: stream.held,
        })
    }

    /// Takes the data of one `ManifestData` event (envelope and chunk) of stream `key`, at
    /// `place`, by the rules of the module's documentation.
    pub fn push<P>(&mut self, key: StreamKey, data: &[u8], place: P) -> Pushed<P> {
        let (envelope, chunk) = match ManifestEnvelope::parse(data) {
            Ok(parsed) => parsed,
            Err(error) => return self.refuse(key, place, Refusal::Envelope(error)),
        };
        let version = (
            envelope.format.0,
            envelope.major_version,
            envelope.minor_version,
        );
        let number = envelope.chunk_number;
        let total = envelope.total_chunks;
        let (received, stream_held) = match self.streams.get(&key) {
            None => {
                if number != 0 {
                    return Pushed::Ignored {
                        key,
                        place,
                        reason: Refusal::NotStarted { chunk: number },
                    };
                }
                if envelope.format != ManifestFormat::SIMPLE_XML {
                    return Pushed::Ignored {
                        key,
                        place,
                        reason: Refusal::UnknownFormat(envelope.format),
                    };
                }
                (0u16, None)
            }
            Some(stream) => {
                let reason = if stream.version != version {
                    Some(Refusal::VersionChanged {
                        was: stream.version,
                        now: version,
                    })
                } else if stream.total != total {
                    Some(Refusal::TotalChanged {
                        was: stream.total,
                        now: total,
                    })
                } else if stream.chunks.contains_key(&number) {
                    Some(Refusal::Repeated { chunk: number })
                } else {
                    None
                };
                if let Some(reason) = reason {
                    return self.refuse(key, place, reason);
                }
                (
                    u16::try_from(stream.chunks.len()).unwrap_or(u16::MAX),
                    Some(stream.held),
                )
            }
        };
        let received = received.saturating_add(1);
        if received == total {
            // Complete: the chunks held, and this one, in order.
            let mut chunks = self
                .streams
                .remove(&key)
                .map(|stream| stream.chunks)
                .unwrap_or_default();
            self.held = self.held.saturating_sub(stream_held.unwrap_or(0));
            let length = chunks.values().map(Vec::len).sum::<usize>() + chunk.len();
            let mut bytes = Vec::with_capacity(length);
            for at in 0..total {
                if at == number {
                    bytes.extend_from_slice(chunk);
                } else if let Some(held) = chunks.remove(&at) {
                    bytes.extend_from_slice(&held);
                }
            }
            return match String::from_utf8(bytes) {
                Ok(xml) => Pushed::Complete(StreamManifest {
                    key,
                    version: (envelope.major_version, envelope.minor_version),
                    chunks: total,
                    xml,
                    place,
                }),
                Err(error) => Pushed::Dropped {
                    key,
                    place,
                    reason: Refusal::NotUtf8 {
                        valid_up_to: error.utf8_error().valid_up_to(),
                    },
                    chunks_lost: total,
                },
            };
        }
        let needed =
            chunk
                .len()
                .saturating_add(CHUNK_OVERHEAD)
                .saturating_add(if stream_held.is_none() {
                    STREAM_OVERHEAD
                } else {
                    0
                });
        if self.held.saturating_add(needed) > self.cap {
            let held = self.held;
            return self.refuse(
                key,
                place,
                Refusal::OverCap {
                    needed,
                    held,
                    cap: self.cap,
                },
            );
        }
        let stream = self.streams.entry(key).or_insert_with(|| Stream {
            version,
            total,
            chunks: BTreeMap::new(),
            held: 0,
        });
        stream.chunks.insert(number, chunk.to_vec());
        stream.held = stream.held.saturating_add(needed);
        self.held = self.held.saturating_add(needed);
        Pushed::Pending {
            key,
            received,
            total,
        }
    }

    /// Drops the stream of `key` if there is one, else ignores the chunk.
    fn refuse<P>(&mut self, key: StreamKey, place: P, reason: Refusal) -> Pushed<P> {
        match self.streams.remove(&key) {
            Some(stream) => {
                self.held = self.held.saturating_sub(stream.held);
                Pushed::Dropped {
                    key,
                    place,
                    reason,
                    chunks_lost: u16::try_from(stream.chunks.len()).unwrap_or(u16::MAX),
                }
            }
            None => Pushed::Ignored { key, place, reason },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(thread_id: u32) -> StreamKey {
        StreamKey {
            provider: Guid::from_fields(1, 2, 3, [4; 8]),
            process_id: 7,
            thread_id,
        }
    }

    fn chunk(total: u16, number: u16, text: &str) -> Vec<u8> {
        let mut data = ManifestEnvelope {
            format: ManifestFormat::SIMPLE_XML,
            major_version: 1,
            minor_version: 0,
            magic: 0x5B,
            total_chunks: total,
            chunk_number: number,
        }
        .to_bytes()
        .to_vec();
        data.extend_from_slice(text.as_bytes());
        data
    }

    #[test]
    fn chunks_in_any_order_after_the_first_make_the_manifest() {
        let mut manifests = ManifestReassembly::new();
        assert!(matches!(
            manifests.push(key(1), &chunk(3, 0, "<a>"), 0),
            Pushed::Pending {
                received: 1,
                total: 3,
                ..
            }
        ));
        // Another thread's stream is separate.
        assert!(matches!(
            manifests.push(key(2), &chunk(1, 0, "<b/>"), 1),
            Pushed::Complete(StreamManifest { chunks: 1, .. })
        ));
        assert!(matches!(
            manifests.push(key(1), &chunk(3, 2, "</a>"), 2),
            Pushed::Pending { received: 2, .. }
        ));
        assert_eq!(
            manifests.held_bytes(),
            3 + 4 + 2 * CHUNK_OVERHEAD + STREAM_OVERHEAD
        );
        let Pushed::Complete(manifest) = manifests.push(key(1), &chunk(3, 1, "x"), 3) else {
            panic!("complete");
        };
        assert_eq!(manifest.xml, "<a>x</a>");
        assert_eq!(
            (manifest.place, manifest.chunks, manifest.key),
            (3, 3, key(1))
        );
        assert_eq!(manifests.held_bytes(), 0);
        assert_eq!(manifests.incomplete().count(), 0);
    }

    #[test]
    fn a_stream_starts_only_at_chunk_zero() {
        let mut manifests = ManifestReassembly::new();
        assert_eq!(
            manifests.push(key(1), &chunk(2, 1, "x"), ()),
            Pushed::Ignored {
                key: key(1),
                place: (),
                reason: Refusal::NotStarted { chunk: 1 }
            }
        );
        let mut other = chunk(1, 0, "x");
        other[0] = 2;
        assert!(matches!(
            manifests.push(key(1), &other, ()),
            Pushed::Ignored {
                reason: Refusal::UnknownFormat(ManifestFormat(2)),
                ..
            }
        ));
        assert_eq!(manifests.incomplete().count(), 0);
    }

    #[test]
    fn a_bad_chunk_drops_the_stream_and_is_not_used() {
        let drops = |second: Vec<u8>| {
            let mut manifests = ManifestReassembly::new();
            manifests.push(key(1), &chunk(3, 0, "<a>"), "first");
            let pushed = manifests.push(key(1), &second, "second");
            assert_eq!(manifests.held_bytes(), 0);
            assert_eq!(manifests.incomplete().count(), 0);
            // The stream is gone: chunk 2 alone is ignored.
            assert!(matches!(
                manifests.push(key(1), &chunk(3, 2, "</a>"), "third"),
                Pushed::Ignored {
                    reason: Refusal::NotStarted { chunk: 2 },
                    ..
                }
            ));
            match pushed {
                Pushed::Dropped {
                    reason,
                    chunks_lost: 1,
                    place: "second",
                    ..
                } => reason,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(drops(chunk(3, 0, "<a>")), Refusal::Repeated { chunk: 0 });
        assert_eq!(
            drops(chunk(4, 1, "x")),
            Refusal::TotalChanged { was: 3, now: 4 }
        );
        let mut version = chunk(3, 1, "x");
        version[1] = 2;
        assert_eq!(
            drops(version),
            Refusal::VersionChanged {
                was: (1, 1, 0),
                now: (1, 2, 0)
            }
        );
        let mut magic = chunk(3, 1, "x");
        magic[3] = 0;
        assert!(matches!(drops(magic), Refusal::Envelope(error) if error.offset == 3));
        assert!(matches!(
            drops(chunk(3, 3, "x")),
            Refusal::Envelope(error) if error.member() == "ChunkNumber"
        ));
        assert!(matches!(drops(chunk(3, 1, "")), Refusal::Envelope(_)));
    }

    #[test]
    fn the_cap_drops_the_stream_that_would_pass_it() {
        let first = chunk(3, 0, "0123456789");
        let needed = 10 + CHUNK_OVERHEAD + STREAM_OVERHEAD;
        let mut manifests = ManifestReassembly::with_cap(needed + 5);
        assert!(matches!(
            manifests.push(key(1), &first, 0),
            Pushed::Pending { .. }
        ));
        assert_eq!(manifests.held_bytes(), needed);
        // A second stream does not fit at all: ignored, the first one kept.
        assert_eq!(
            manifests.push(key(2), &first, 1),
            Pushed::Ignored {
                key: key(2),
                place: 1,
                reason: Refusal::OverCap {
                    needed,
                    held: needed,
                    cap: needed + 5
                }
            }
        );
        // The first stream's next chunk does not fit: the stream goes.
        assert!(matches!(
            manifests.push(key(1), &chunk(3, 1, "x"), 2),
            Pushed::Dropped {
                reason: Refusal::OverCap { .. },
                chunks_lost: 1,
                ..
            }
        ));
        assert_eq!(manifests.held_bytes(), 0);
        // A one-chunk manifest is never held, whatever its size.
        let mut small = ManifestReassembly::with_cap(0);
        assert!(matches!(
            small.push(key(1), &chunk(1, 0, "<big/>"), 3),
            Pushed::Complete(_)
        ));
    }

    #[test]
    fn text_that_is_not_utf8_is_dropped_when_complete() {
        let mut manifests = ManifestReassembly::new();
        let mut data = chunk(1, 0, "<a>");
        data.push(0xFF);
        assert!(matches!(
            manifests.push(key(1), &data, ()),
            Pushed::Dropped {
                reason: Refusal::NotUtf8 { valid_up_to: 3 },
                ..
            }
        ));
    }
}
