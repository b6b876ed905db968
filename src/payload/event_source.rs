//! The envelope of the manifests .NET EventSources write into the stream (`ManifestData`
//! events), read in place.
//!
//! An EventSource that is not self-describing sends its manifest as events of its own
//! provider: id 0xFFFE, opcode 0xFE, task 0xFFFE, version 1, each holding an 8-byte envelope
//! and one chunk of the UTF-8 XML manifest (dotnet/runtime `EventSource.cs`, `SendManifest`;
//! perfview `ManifestEnvelope.cs`; PAYLOADS.md §3). Seen in net.4.5.2.x64 (buffer 19 offset
//! 1064, provider `a8a71ac1-…`): `01 01 00 5b 0100 0000 "<instrumentationManifest …"`.
//!
//! This module reads one event's envelope and chunk; putting the chunks of one manifest back
//! together (per provider, process and thread) needs memory and is done outside the `no_std`
//! core.

use crate::wire::EventDescriptor;

/// The id of a `ManifestData` event (`EventSource.cs`: `ManifestEventID = 0xFFFE`).
pub const MANIFEST_EVENT_ID: u16 = 0xFFFE;

/// The opcode of a `ManifestData` event (0xFE).
pub const MANIFEST_OPCODE: u8 = 0xFE;

/// The task of a `ManifestData` event (0xFFFE).
pub const MANIFEST_TASK: u16 = 0xFFFE;

/// Whether an event with this descriptor is a `ManifestData` event: id 0xFFFE, opcode 0xFE
/// and task 0xFFFE, the three TraceEvent checks (perfview `DynamicTraceEventParser.cs`,
/// `CheckForDynamicManifest`); the version is not checked.
pub const fn is_manifest_data(descriptor: &EventDescriptor) -> bool {
    descriptor.id == MANIFEST_EVENT_ID
        && descriptor.opcode == MANIFEST_OPCODE
        && descriptor.task == MANIFEST_TASK
}

open_code! {
    /// `ManifestEnvelope.Format`: how the chunks encode the manifest.
    pub struct ManifestFormat(u8) {
        /// `SimpleXmlFormat`: the UTF-8 text of the XML manifest.
        SIMPLE_XML = 1,
    }
}

/// What is wrong with a `ManifestData` event's envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EnvelopeErrorKind {
    /// The data is not longer than the 8-byte envelope: no chunk (TraceEvent refuses an event
    /// of 8 bytes or fewer).
    TooShort {
        /// Bytes of data.
        len: usize,
    },
    /// `Magic` is not 0x5B, "which marks this as an envelope" (`ManifestEnvelope.cs`).
    Magic {
        /// The byte found.
        found: u8,
    },
    /// `TotalChunks` is 0.
    NoChunks,
    /// `ChunkNumber` is not below `TotalChunks`.
    ChunkOutOfRange {
        /// `ChunkNumber`.
        chunk: u16,
        /// `TotalChunks`.
        total: u16,
    },
}

/// Where and why a `ManifestData` event's envelope could not be read: the offset of the
/// member at fault in the event's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EnvelopeError {
    /// The member's offset in the event's data.
    pub offset: usize,
    /// What is wrong.
    pub kind: EnvelopeErrorKind,
}

impl EnvelopeError {
    /// The envelope member at fault, as `ManifestEnvelope.cs` names it.
    pub const fn member(&self) -> &'static str {
        match self.kind {
            EnvelopeErrorKind::TooShort { .. } => "ChunkNumber",
            EnvelopeErrorKind::Magic { .. } => "Magic",
            EnvelopeErrorKind::NoChunks => "TotalChunks",
            EnvelopeErrorKind::ChunkOutOfRange { .. } => "ChunkNumber",
        }
    }
}

impl core::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "ManifestEnvelope.{} at data offset {}: ",
            self.member(),
            self.offset
        )?;
        match self.kind {
            EnvelopeErrorKind::TooShort { len } => write!(
                f,
                "the event has {len} bytes of data, not more than the 8-byte envelope"
            ),
            EnvelopeErrorKind::Magic { found } => write!(f, "expected 0x5b, found {found:#04x}"),
            EnvelopeErrorKind::NoChunks => f.write_str("TotalChunks is 0"),
            EnvelopeErrorKind::ChunkOutOfRange { chunk, total } => {
                write!(f, "chunk {chunk} of {total}: not below TotalChunks")
            }
        }
    }
}

impl core::error::Error for EnvelopeError {}

/// The 8-byte envelope before each chunk of a manifest in a `ManifestData` event
/// (perfview `ManifestEnvelope.cs`).
///
/// | off | size | member |
/// |---|---|---|
/// | 0 | 1 | `Format` (1: simple XML) |
/// | 1 | 1 | `MajorVersion` (1) |
/// | 2 | 1 | `MinorVersion` (0) |
/// | 3 | 1 | `Magic` (0x5B) |
/// | 4 | 2 | `TotalChunks` |
/// | 6 | 2 | `ChunkNumber` (from 0) |
///
/// ```
/// use etw_classic::payload::{ManifestEnvelope, ManifestFormat};
/// let data = b"\x01\x01\x00\x5b\x01\x00\x00\x00<instrumentationManifest/>";
/// let (envelope, chunk) = ManifestEnvelope::parse(data)?;
/// assert_eq!(envelope.format, ManifestFormat::SIMPLE_XML);
/// assert_eq!((envelope.chunk_number, envelope.total_chunks), (0, 1));
/// assert_eq!(chunk, b"<instrumentationManifest/>");
/// # Ok::<(), etw_classic::payload::EnvelopeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ManifestEnvelope {
    /// `Format`.
    pub format: ManifestFormat,
    /// `MajorVersion`.
    pub major_version: u8,
    /// `MinorVersion`.
    pub minor_version: u8,
    /// `Magic`.
    pub magic: u8,
    /// `TotalChunks`: how many events the manifest takes.
    pub total_chunks: u16,
    /// `ChunkNumber`: which of them this is, from 0.
    pub chunk_number: u16,
}

impl ManifestEnvelope {
    /// Bytes of the envelope.
    pub const LEN: usize = 8;
    /// `Magic`: "always 0x5B, which marks this as an envelope (with 1/256 probability of
    /// random collision)" (`ManifestEnvelope.cs`).
    pub const MAGIC: u8 = 0x5B;
    /// The largest chunk the writer sends (`ManifestEnvelope.MaxChunkSize`); it halves a chunk
    /// that makes the event too big. Not checked on reading.
    pub const MAX_CHUNK_SIZE: usize = 0xFF00;

    /// The envelope of these bytes, whatever they hold.
    pub const fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let [format, major_version, minor_version, magic, t0, t1, c0, c1] = *bytes;
        Self {
            format: ManifestFormat(format),
            major_version,
            minor_version,
            magic,
            total_chunks: u16::from_le_bytes([t0, t1]),
            chunk_number: u16::from_le_bytes([c0, c1]),
        }
    }

    /// The envelope's bytes.
    pub const fn to_bytes(&self) -> [u8; Self::LEN] {
        let [t0, t1] = self.total_chunks.to_le_bytes();
        let [c0, c1] = self.chunk_number.to_le_bytes();
        [
            self.format.0,
            self.major_version,
            self.minor_version,
            self.magic,
            t0,
            t1,
            c0,
            c1,
        ]
    }

    /// Reads the envelope at the start of a `ManifestData` event's data, and the chunk after
    /// it, with TraceEvent's checks (perfview `DynamicTraceEventParser.cs`,
    /// `PartialManifestInfo.AddChunk`): more than 8 bytes, `Magic` 0x5B, `TotalChunks` not 0
    /// and `ChunkNumber` below it. `Format` and the versions are not checked here.
    ///
    /// # Errors
    /// The first of those checks that fails, with the offset of its member.
    pub fn parse(data: &[u8]) -> Result<(Self, &[u8]), EnvelopeError> {
        let (head, chunk) = match data.split_first_chunk::<{ Self::LEN }>() {
            Some((head, chunk)) if !chunk.is_empty() => (head, chunk),
            _ => {
                return Err(EnvelopeError {
                    offset: 0,
                    kind: EnvelopeErrorKind::TooShort { len: data.len() },
                })
            }
        };
        let envelope = Self::from_bytes(head);
        if envelope.magic != Self::MAGIC {
            return Err(EnvelopeError {
                offset: 3,
                kind: EnvelopeErrorKind::Magic {
                    found: envelope.magic,
                },
            });
        }
        if envelope.total_chunks == 0 {
            return Err(EnvelopeError {
                offset: 4,
                kind: EnvelopeErrorKind::NoChunks,
            });
        }
        if envelope.chunk_number >= envelope.total_chunks {
            return Err(EnvelopeError {
                offset: 6,
                kind: EnvelopeErrorKind::ChunkOutOfRange {
                    chunk: envelope.chunk_number,
                    total: envelope.total_chunks,
                },
            });
        }
        Ok((envelope, chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_names_its_member() {
        let good = *b"\x01\x01\x00\x5b\x02\x00\x01\x00<";
        let (envelope, chunk) = ManifestEnvelope::parse(&good).unwrap();
        assert_eq!((envelope.total_chunks, envelope.chunk_number), (2, 1));
        assert_eq!(chunk, b"<");
        assert_eq!(envelope.to_bytes()[..], good[..8]);
        for len in 0..=8 {
            let error = ManifestEnvelope::parse(good.get(..len).unwrap()).unwrap_err();
            assert_eq!(error.kind, EnvelopeErrorKind::TooShort { len });
        }
        let mut bad = good;
        bad[3] = 0x5c;
        let error = ManifestEnvelope::parse(&bad).unwrap_err();
        assert_eq!((error.offset, error.member()), (3, "Magic"));
        let mut bad = good;
        bad[4] = 0;
        let error = ManifestEnvelope::parse(&bad).unwrap_err();
        assert_eq!((error.offset, error.kind), (4, EnvelopeErrorKind::NoChunks));
        let mut bad = good;
        bad[6] = 2;
        let error = ManifestEnvelope::parse(&bad).unwrap_err();
        assert_eq!(
            error.kind,
            EnvelopeErrorKind::ChunkOutOfRange { chunk: 2, total: 2 }
        );
    }

    #[test]
    fn manifest_data_is_told_by_id_opcode_and_task() {
        let mut descriptor = EventDescriptor {
            id: 0xFFFE,
            version: 1,
            opcode: 0xFE,
            task: 0xFFFE,
            ..EventDescriptor::default()
        };
        assert!(is_manifest_data(&descriptor));
        descriptor.version = 0;
        assert!(is_manifest_data(&descriptor));
        descriptor.task = 0xFFFD;
        assert!(!is_manifest_data(&descriptor));
    }
}
