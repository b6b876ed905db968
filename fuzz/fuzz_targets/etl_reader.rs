//! Arbitrary bytes read as an .etl file: its buffers, its logfile header, and every buffer's
//! events, compressed buffers decompressed into a fixed 64 KiB scratch array on the stack.
//!
//! What the library gives is compared with reference models written from the layouts and
//! rules (`etw_classic_fuzz::model`, citing `../shared/reference/LAYOUTS.md`,
//! `EVENT-HEADERS.md` and [MS-XCA]):
//! - `EtlBuffers` yields the buffers `model::etl_buffers` finds, each `BufferSize` (u32 @0,
//!   at least 0x48) bytes after the previous one, numbered 0, 1, 2..., each the file slice at
//!   its offset with its header decoded at the offsets of `WMI_BUFFER_HEADER`, and
//!   `EtlBuffer::parse` of the file from that offset gives the same buffer; the walk ends
//!   cleanly exactly at the end of the file, or with the same `EtlBufferTruncated` or
//!   `EtlBufferSizeOutOfRange` as the rules, then yields `None` for ever;
//! - `EtlFile::parse` gives what the rules' steps give (first buffer, its header and `Offset`,
//!   its first event, the `SYSTEM` logfile header event with `HookId` 0, the
//!   `TRACE_LOGFILE_HEADER` of the layout the header type names, the names after it, a
//!   `BufferSize` within `0x48..=MAX_BUFFER_SIZE`): each member read at its offset on success,
//!   otherwise one of the errors the failing step allows; `buffers()` is the same walk as
//!   `EtlBuffers::new`, but for a walk that ends cleanly before the buffers the logfile
//!   header's `BuffersWritten` counts (unless 0, or `LogFileMode` has
//!   `EVENT_TRACE_FILE_MODE_CIRCULAR`), which ends with `FileEndsBeforeBuffersWritten`;
//! - `EtlBuffer::trace_buffer` of an uncompressed buffer is `model::trace_buffer`; of a
//!   compressed one, the stream after the header decoded by the rules of [MS-XCA] 2.4.4
//!   (`model::lz77`) into `Offset - 0x48` bytes: the same events when it fills them exactly,
//!   `DecompressedLengthMismatch` (with the buffer's file offset) when it decodes to fewer,
//!   one of the errors the rules allow for a corrupt stream, or `BufferOffsetOutOfRange` when
//!   `Offset` is below 0x48 or beyond the scratch; except that a stream the rules do not decode
//!   to `Offset - 0x48` bytes is decoded by `lznt1::decompress` when the `State` low word is 2
//!   and by `xpress_huffman::decompress` when it is 4 (each checked by its own target), with the
//!   same events, the same error, or `DecompressedLengthMismatch`;
//! - every buffer's events are then walked, delivered and added to one instance tree across
//!   the file, with the checks of `trace_buffer_walk`.
//!
//! Inputs are meant to be run with `-max_len=262144`: room for the logfile buffer and a few
//! real 64 KiB buffers, or for a dozen compressed ones.
#![no_main]

use etw_classic::{
    lznt1,
    read::{EtlBuffer, EtlBuffers},
    xpress_huffman, Bitness, EtlFile, ReadError, ReadErrorKind, TraceBuffer, TraceLogfileHeader,
};
use etw_classic_fuzz::model::{self, le32, BUFFER_HEADER_LEN, MAX_BUFFER_SIZE};
use etw_classic_fuzz::{check_buffer, TreeCheck};
use libfuzzer_sys::fuzz_target;

/// Scratch space for one decompressed buffer: the 64 KiB `BufferSize` of the real traces.
const SCRATCH: usize = 64 << 10;
/// Instances the tree has room for, across the whole file.
const TREE_CAPACITY: usize = 16;

/// Walks `EtlBuffers::new(data)` against `model::etl_buffers`; returns the buffers and the
/// error the walk ended with.
fn check_buffers(data: &[u8]) -> (Vec<EtlBuffer<'_>>, Option<ReadError>) {
    let (expected, expected_end) = model::etl_buffers(data);
    let mut walk = EtlBuffers::new(data);
    let mut buffers: Vec<EtlBuffer<'_>> = Vec::new();
    loop {
        match walk.next() {
            None => {
                assert_eq!(buffers.len(), expected.len(), "the walk ended early");
                assert_eq!(
                    expected_end, None,
                    "the walk ended without the rules' error"
                );
                assert!(walk.next().is_none());
                return (buffers, None);
            }
            Some(Ok(buffer)) => {
                let &(at, size) = expected
                    .get(buffers.len())
                    .unwrap_or_else(|| panic!("a buffer the rules do not find: {buffer:?}"));
                assert_eq!((buffer.index, buffer.file_offset), (buffers.len(), at));
                assert_eq!(buffer.bytes.len(), size);
                assert_eq!(
                    buffer.bytes.as_ptr(),
                    data[at..].as_ptr(),
                    "the buffer is not the file's bytes at its offset"
                );
                model::check_wmi_buffer_header(&buffer.header, buffer.bytes);
                assert_eq!(
                    buffer.is_compressed(),
                    model::le16(buffer.bytes, 0x34) & model::BUFFER_FLAG_COMPRESSED != 0
                );
                assert_eq!(EtlBuffer::parse(&data[at..], buffer.index, at), Ok(buffer));
                buffers.push(buffer);
            }
            Some(Err(error)) => {
                assert_eq!(
                    buffers.len(),
                    expected.len(),
                    "{error:?} before the rules' end"
                );
                assert_eq!(Some(error), expected_end, "the walk's error");
                let at = match error {
                    ReadError {
                        buffer: Some(position),
                        kind:
                            ReadErrorKind::BufferHeaderTruncated { .. }
                            | ReadErrorKind::BufferSizeOutOfRange { .. },
                        ..
                    } => position.file_offset,
                    other => panic!("not an error of the buffer walk: {other:?}"),
                };
                assert_eq!(EtlBuffer::parse(&data[at..], buffers.len(), at), Err(error));
                assert!(walk.next().is_none(), "the walk went on after an error");
                assert!(walk.next().is_none(), "the walk went on after an error");
                return (buffers, Some(error));
            }
        }
    }
}

/// The first buffer's bytes, the logfile header event's bytes, and its split.
type FileParts<'a> = (&'a [u8], &'a [u8], model::LogfileEvent<'a>);

/// What the rules' steps make of the file, or the errors the failing step allows.
fn file_steps(data: &[u8]) -> Result<FileParts<'_>, Vec<ReadError>> {
    // Every error of EtlFile::parse names the first buffer.
    let first_buffer = |kind: ReadErrorKind| ReadError::new(Some(model::position(0, 0)), kind);
    // The first buffer, by the buffer walk's rules; an empty file has none.
    let (buffers, end) = model::etl_buffers(data);
    let Some(&(_, size)) = buffers.first() else {
        let error = end.unwrap_or(first_buffer(ReadErrorKind::BufferHeaderTruncated {
            needed: BUFFER_HEADER_LEN,
            available: 0,
        }));
        return Err(vec![error]);
    };
    let first = &data[..size];
    // Its events up to Offset, walked in place.
    let offset = model::trace_buffer(first).map_err(|kind| vec![first_buffer(kind)])?;
    let events = &first[BUFFER_HEADER_LEN..offset];
    // "The first buffer's first event is a SYSTEM header ... carrying TRACE_LOGFILE_HEADER"
    // (LAYOUTS §Trace buffers): the walk's first item.
    let (walked, walk_end) = model::walk(events);
    let event = match (walked.first(), walk_end) {
        (Some(event), _) => &events[..usize::from(event.size)],
        (None, Some(kind)) => return Err(vec![first_buffer(kind)]),
        (None, None) => return Err(vec![first_buffer(ReadErrorKind::MissingLogfileHeader)]),
    };
    let logfile = model::logfile_event(event).map_err(|allowed| {
        allowed
            .into_iter()
            .map(|error| first_buffer(ReadErrorKind::Codec(error)))
            .collect::<Vec<_>>()
    })?;
    // BufferSize (u32 @0 of TRACE_LOGFILE_HEADER) must hold a buffer header and stay within the
    // documented MAX_BUFFER_SIZE.
    let buffer_size = le32(logfile.data, 0);
    let size = buffer_size as usize;
    if !(BUFFER_HEADER_LEN..=MAX_BUFFER_SIZE).contains(&size) {
        return Err(vec![first_buffer(
            ReadErrorKind::LogfileBufferSizeOutOfRange {
                buffer_size,
                min: BUFFER_HEADER_LEN,
                max: MAX_BUFFER_SIZE,
            },
        )]);
    }
    Ok((first, event, logfile))
}

/// `EtlFile::parse` against the rules' steps.
fn check_file(data: &[u8], buffers: &[EtlBuffer<'_>], end: Option<ReadError>) {
    match (EtlFile::parse(data), file_steps(data)) {
        (Ok(file), Ok((first, event, logfile))) => {
            model::check_wmi_buffer_header(&file.first_buffer, first);
            model::check_system_trace_header(&file.system_header, event);
            let layout = model::logfile_layout(logfile.bitness);
            match (file.logfile_header, logfile.bitness) {
                (TraceLogfileHeader::Bits32(header), Bitness::Bits32) => {
                    model::check_logfile_header32(&header, logfile.data)
                }
                (TraceLogfileHeader::Bits64(header), Bitness::Bits64) => {
                    model::check_logfile_header64(&header, logfile.data)
                }
                (header, bitness) => panic!("{header:?} for a {bitness:?} logger"),
            }
            assert_eq!(file.bitness(), logfile.bitness);
            assert_eq!(file.buffer_size(), le32(logfile.data, 0) as usize);

            let names_bytes = &logfile.data[layout.len..];
            let names = model::names(names_bytes);
            assert!(file
                .names
                .logger_name
                .units()
                .eq(names.logger.iter().copied()));
            assert!(file
                .names
                .log_file_name
                .units()
                .eq(names.file.iter().copied()));
            assert_eq!(file.names.terminated, names.terminated);
            assert_eq!(file.names.rest.len(), names_bytes.len() - names.rest_at);
            if names.terminated {
                assert_eq!(
                    file.names.rest.as_ptr(),
                    names_bytes[names.rest_at..].as_ptr()
                );
            }

            // A walk that ends cleanly, at the end of the file, before the buffers the logfile
            // header's BuffersWritten (u32 @0x24) counts ends with that error, unless the count
            // is 0 or LogFileMode (u32 @0x20) has EVENT_TRACE_FILE_MODE_CIRCULAR (0x2).
            let buffers_written = le32(logfile.data, 0x24);
            let circular = le32(logfile.data, 0x20) & 0x2 != 0;
            let ends_early = (end.is_none()
                && buffers_written != 0
                && !circular
                && buffers_written as usize > buffers.len())
            .then(|| {
                ReadError::new(
                    Some(model::position(buffers.len(), data.len())),
                    ReadErrorKind::FileEndsBeforeBuffersWritten {
                        buffers: buffers.len(),
                        buffers_written,
                    },
                )
            });
            let again: Vec<_> = file.buffers().collect();
            let expected: Vec<_> = buffers
                .iter()
                .copied()
                .map(Ok)
                .chain(end.or(ends_early).map(Err))
                .collect();
            assert_eq!(again, expected, "buffers() is not the walk of the file");
        }
        (Err(error), Err(allowed)) => {
            assert!(
                allowed.contains(&error),
                "EtlFile::parse: {error:?}, rules: {allowed:?}"
            );
        }
        (result, expected) => panic!("EtlFile::parse gave {result:?}, the rules {expected:?}"),
    }
}

/// `EtlBuffer::trace_buffer` into `scratch`, against the rules; returns the buffer ready to walk.
fn check_trace_buffer<'b>(
    buffer: &EtlBuffer<'b>,
    scratch: &'b mut [u8],
) -> Option<TraceBuffer<'b>> {
    let scratch_len = scratch.len();
    let result = buffer.trace_buffer(scratch);
    // Every error of trace_buffer names the buffer; the rules below say what went wrong.
    if let Err(error) = &result {
        assert_eq!(error.buffer, Some(buffer.position()), "{error}");
    }
    if let Ok(walk) = &result {
        assert_eq!(walk.position(), Some(buffer.position()));
    }
    let result = result.map_err(|error| error.kind);
    if !buffer.is_compressed() {
        match model::trace_buffer(buffer.bytes) {
            Ok(end) => {
                let walk = result.expect("a buffer the rules accept");
                let events = walk.event_bytes();
                assert_eq!(events.as_ptr(), buffer.bytes[BUFFER_HEADER_LEN..].as_ptr());
                assert_eq!(events.len(), end - BUFFER_HEADER_LEN);
                return Some(walk);
            }
            Err(expected) => {
                assert_eq!(result.err(), Some(expected), "trace_buffer of {buffer:?}");
                return None;
            }
        }
    }

    // The low word of State (u32 @0x2C) as a COMPRESSION_FORMAT_*, as snail reads it: LZNT1 (2)
    // and XPRESS_HUFF (4) are decoded in that format when the bytes are not Plain LZ77
    // (EVENT-HEADERS §8).
    let format = le32(buffer.bytes, 0x2C) & 0xFFFF;

    // "SavedOffset @0x04 and Offset @0x30 both equal 0x48 + the decompressed length", and the
    // header is stored uncompressed (EVENT-HEADERS §8).
    let stream = &buffer.bytes[BUFFER_HEADER_LEN..];
    let offset = le32(buffer.bytes, 0x30);
    let expected_len = (offset as usize).checked_sub(BUFFER_HEADER_LEN);
    let Some(expected_len) = expected_len.filter(|&len| len <= scratch_len) else {
        assert_eq!(
            result.err(),
            Some(ReadErrorKind::BufferOffsetOutOfRange {
                offset,
                min: BUFFER_HEADER_LEN,
                max: BUFFER_HEADER_LEN + scratch_len,
            })
        );
        return None;
    };
    let decoded = model::lz77(stream, expected_len);
    if (format == 2 || format == 4)
        && (decoded.end.is_err() || decoded.output.len() != expected_len)
    {
        // The format's own decompressor (which its fuzz target checks) into `Offset - 0x48`
        // bytes: the same events, its error, or a length mismatch.
        let mut output = vec![0u8; expected_len];
        let named = if format == 2 {
            lznt1::decompress(stream, &mut output).map_err(ReadErrorKind::Lznt1)
        } else {
            xpress_huffman::decompress(stream, &mut output).map_err(ReadErrorKind::XpressHuffman)
        };
        match (result, named) {
            (Ok(walk), Ok(written)) if written == expected_len => {
                model::check_wmi_buffer_header(&walk.header, buffer.bytes);
                assert_eq!(walk.event_bytes(), &output[..], "the decompressed events");
                return Some(walk);
            }
            (Err(ReadErrorKind::DecompressedLengthMismatch { expected, found }), Ok(written)) => {
                assert_eq!((expected, found), (expected_len, written));
                return None;
            }
            (Err(error), Err(named)) => {
                assert_eq!(error, named, "trace_buffer of {buffer:?}");
                return None;
            }
            (result, named) => panic!("trace_buffer gave {result:?}, the format {named:?}"),
        }
    }
    match (result, decoded.end) {
        (Ok(walk), Ok(())) if decoded.output.len() == expected_len => {
            model::check_wmi_buffer_header(&walk.header, buffer.bytes);
            assert_eq!(
                walk.event_bytes(),
                &decoded.output[..],
                "the decompressed events"
            );
            Some(walk)
        }
        (Err(ReadErrorKind::DecompressedLengthMismatch { expected, found }), Ok(()))
            if decoded.output.len() < expected_len =>
        {
            assert_eq!((expected, found), (expected_len, decoded.output.len()));
            None
        }
        (Err(ReadErrorKind::Decompress(error)), Err(allowed)) => {
            assert!(
                allowed.contains(&error),
                "trace_buffer: {error:?}, rules: {allowed:?}"
            );
            None
        }
        (result, end) => panic!(
            "trace_buffer gave {result:?}; the rules decode {} of {expected_len} bytes, {end:?}",
            decoded.output.len()
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let (buffers, end) = check_buffers(data);
    check_file(data, &buffers, end);

    let mut scratch = [0u8; SCRATCH];
    let mut tree = TreeCheck::<TREE_CAPACITY>::new();
    for buffer in &buffers {
        if let Some(walk) = check_trace_buffer(buffer, &mut scratch) {
            check_buffer(&walk, &buffer.bytes[..BUFFER_HEADER_LEN], &mut tree);
        }
    }
    tree.check_queries();
});
