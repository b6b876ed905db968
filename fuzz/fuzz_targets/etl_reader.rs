//! Arbitrary bytes read as an .etl file: its buffers, its logfile header, and every buffer's
//! events, compressed buffers decompressed into a fixed 64 KiB scratch array on the stack.
//!
//! Laws checked:
//! - `EtlBuffers` yields buffers numbered 0, 1, 2... whose file offsets start at 0 and strictly
//!   increase, each the next one's start (`BufferSize` bytes on); each buffer's bytes are the
//!   file slice at its offset, `BufferSize` (at least 0x48) long, under the header read there,
//!   and `EtlBuffer::parse` of the file from that offset gives the same buffer;
//! - the walk ends without an error exactly at the end of the file; otherwise it ends with
//!   `EtlBufferTruncated` or `EtlBufferSizeOutOfRange`, carrying a file offset inside the file
//!   and the counts the bytes there give (the same error as `EtlBuffer::parse` there), and then
//!   yields `None` for ever;
//! - `EtlFile::parse` runs the documented steps (first buffer, `TraceBuffer::parse`, its first
//!   event, `TraceLogfileHeader::parse_event`, `BufferSize` within `0x48..=MAX_BUFFER_SIZE`)
//!   and fails with the error of the first step that fails; on success `buffers()` is the same
//!   walk as `EtlBuffers::new` and the fields are those the steps read;
//! - `EtlBuffer::trace_buffer` of an uncompressed buffer is `TraceBuffer::parse` of its bytes;
//!   of a compressed one it is either the events decompressed to exactly `Offset - 0x48` bytes
//!   (the same bytes a larger output gets), or `BufferOffsetOutOfRange` when `Offset` is below
//!   0x48 or beyond the scratch, `DecompressedLengthMismatch` (with the buffer's file offset)
//!   when the stream decodes to fewer bytes, or the decompressor's own error for the stream
//!   into `Offset - 0x48` bytes, with an offset inside the stream (or at its end, for the length
//!   bytes of a long match that are missing altogether);
//! - every buffer's events are then walked, delivered and added to one instance tree across
//!   the file, with the laws of `trace_buffer_walk`.
//!
//! Inputs are meant to be run with `-max_len=262144`: room for the logfile buffer and a few
//! real 64 KiB buffers, or for a dozen compressed ones.
#![no_main]

use etw_classic::plain_lz77::decompress;
use etw_classic::{
    Error, EtlBuffer, EtlBuffers, EtlFile, TraceBuffer, TraceLogfileHeader, WmiBufferHeader,
    MAX_BUFFER_SIZE,
};
use etw_classic_fuzz::{check_buffer, TreeCheck};
use libfuzzer_sys::fuzz_target;

/// Scratch space for one decompressed buffer: the 64 KiB `BufferSize` of the real traces.
const SCRATCH: usize = 64 << 10;
/// Instances the tree has room for, across the whole file.
const TREE_CAPACITY: usize = 16;

/// Walks `EtlBuffers::new(data)`; returns the buffers and the error it ended with.
fn check_buffers(data: &[u8]) -> (Vec<EtlBuffer<'_>>, Option<Error>) {
    let mut walk = EtlBuffers::new(data);
    let mut buffers: Vec<EtlBuffer<'_>> = Vec::new();
    let mut next_offset = 0;
    loop {
        match walk.next() {
            None => {
                assert_eq!(next_offset, data.len(), "the walk ended inside the file");
                assert!(walk.next().is_none());
                return (buffers, None);
            }
            Some(Ok(buffer)) => {
                let at = buffer.file_offset;
                assert_eq!(buffer.index, buffers.len());
                assert_eq!(at, next_offset, "buffers do not follow each other");
                if let Some(previous) = buffers.last() {
                    assert!(
                        at > previous.file_offset,
                        "offsets do not strictly increase"
                    );
                }
                let len = buffer.header.buffer_size as usize;
                assert!(len >= WmiBufferHeader::LEN && at + len <= data.len());
                assert_eq!(buffer.bytes.len(), len);
                assert_eq!(
                    buffer.bytes.as_ptr(),
                    data[at..].as_ptr(),
                    "the buffer is not the file's bytes at its offset"
                );
                assert_eq!(
                    buffer.header,
                    WmiBufferHeader::from_bytes(buffer.bytes[..0x48].try_into().unwrap())
                );
                assert_eq!(
                    buffer.is_compressed(),
                    buffer.header.buffer_flag.0 & 0x40 != 0
                );
                assert_eq!(EtlBuffer::parse(&data[at..], buffer.index, at), Ok(buffer));
                next_offset = at + len;
                buffers.push(buffer);
            }
            Some(Err(error)) => {
                let at = next_offset;
                assert!(at < data.len(), "{error:?} past the end of the file");
                let rest = &data[at..];
                match error {
                    Error::EtlBufferTruncated {
                        file_offset,
                        needed,
                        available,
                    } => {
                        assert_eq!((file_offset, needed), (at, WmiBufferHeader::LEN));
                        assert_eq!(available, rest.len());
                        assert!(available < needed);
                    }
                    Error::EtlBufferSizeOutOfRange {
                        file_offset,
                        buffer_size,
                        min,
                        max,
                    } => {
                        assert_eq!(
                            (file_offset, min, max),
                            (at, WmiBufferHeader::LEN, rest.len())
                        );
                        assert_eq!(
                            buffer_size,
                            u32::from_le_bytes(rest[..4].try_into().unwrap())
                        );
                        let size = buffer_size as usize;
                        assert!(size < min || size > max, "{error:?}: the size fits");
                    }
                    other => panic!("not an error of the buffer walk: {other:?}"),
                }
                assert_eq!(EtlBuffer::parse(rest, buffers.len(), at), Err(error));
                assert!(walk.next().is_none(), "the walk went on after an error");
                assert!(walk.next().is_none(), "the walk went on after an error");
                return (buffers, Some(error));
            }
        }
    }
}

/// `EtlFile::parse`: the documented steps, each failing with its own error.
fn check_file(data: &[u8], buffers: &[EtlBuffer<'_>], end: Option<Error>) {
    let result = EtlFile::parse(data);
    let steps = || {
        let first = match (buffers.first(), end) {
            (Some(first), _) => *first,
            (None, Some(error)) => return Err(error),
            (None, None) => {
                // Only an empty file has no buffer and no error.
                assert!(data.is_empty());
                return Err(Error::EtlBufferTruncated {
                    file_offset: 0,
                    needed: WmiBufferHeader::LEN,
                    available: 0,
                });
            }
        };
        let walk = TraceBuffer::parse(first.bytes)?;
        let event = walk
            .events()
            .next()
            .unwrap_or(Err(Error::MissingLogfileHeader))?;
        let (system, logfile, names, _) = TraceLogfileHeader::parse_event(event.bytes)?;
        let size = logfile.buffer_size() as usize;
        if !(WmiBufferHeader::LEN..=MAX_BUFFER_SIZE).contains(&size) {
            return Err(Error::LogfileBufferSizeOutOfRange {
                buffer_size: logfile.buffer_size(),
                min: WmiBufferHeader::LEN,
                max: MAX_BUFFER_SIZE,
            });
        }
        Ok((first.header, system, logfile, names))
    };
    match (result, steps()) {
        (Ok(file), Ok((first, system, logfile, names))) => {
            assert_eq!(file.first_buffer, first);
            assert_eq!(file.system_header, system);
            assert_eq!(file.logfile_header, logfile);
            assert_eq!(file.names, names);
            assert_eq!(file.bitness(), logfile.bitness());
            assert_eq!(file.buffer_size(), logfile.buffer_size() as usize);
            let again: Vec<_> = file.buffers().collect();
            let expected: Vec<_> = buffers
                .iter()
                .copied()
                .map(Ok)
                .chain(end.map(Err))
                .collect();
            assert_eq!(again, expected, "buffers() is not the walk of the file");
        }
        (Err(error), Err(expected)) => {
            assert_eq!(error, expected, "EtlFile::parse failed at another step");
            if let Error::EtlBufferTruncated { file_offset, .. }
            | Error::EtlBufferSizeOutOfRange { file_offset, .. } = error
            {
                assert_eq!(file_offset, 0);
            }
        }
        (result, expected) => panic!("EtlFile::parse gave {result:?}, the steps {expected:?}"),
    }
}

/// `EtlBuffer::trace_buffer` into `scratch`; returns the buffer ready to walk.
fn check_trace_buffer<'b>(
    buffer: &EtlBuffer<'b>,
    scratch: &'b mut [u8],
) -> Option<TraceBuffer<'b>> {
    let scratch_len = scratch.len();
    let result = buffer.trace_buffer(scratch);
    if !buffer.is_compressed() {
        assert_eq!(result, TraceBuffer::parse(buffer.bytes));
        if let Ok(walk) = &result {
            assert_eq!(
                walk.event_bytes().as_ptr(),
                buffer.bytes[WmiBufferHeader::LEN..].as_ptr()
            );
        }
        return result.ok();
    }

    let stream = &buffer.bytes[WmiBufferHeader::LEN..];
    let offset = buffer.header.offset as usize;
    let expected = offset.checked_sub(WmiBufferHeader::LEN);
    let in_range = expected.filter(|&expected| expected <= scratch_len);
    let Some(expected) = in_range else {
        assert_eq!(
            result,
            Err(Error::BufferOffsetOutOfRange {
                offset: buffer.header.offset,
                min: WmiBufferHeader::LEN,
                max: WmiBufferHeader::LEN + scratch_len,
            })
        );
        return None;
    };
    // The same stream into exactly the room `Offset` gives, and into more.
    let mut exact = vec![0; expected];
    let exact_result = decompress(stream, &mut exact);
    let mut larger = vec![0; expected + 64];
    let larger_result = decompress(stream, &mut larger);
    match result {
        Ok(walk) => {
            assert_eq!(walk.header, buffer.header);
            assert_eq!(
                walk.event_bytes().len(),
                expected,
                "not the length Offset says"
            );
            assert_eq!(exact_result, Ok(expected));
            assert_eq!(larger_result, Ok(expected));
            assert_eq!(walk.event_bytes(), &larger[..expected]);
            Some(walk)
        }
        Err(Error::DecompressedLengthMismatch {
            file_offset,
            expected: claimed,
            found,
        }) => {
            assert_eq!(file_offset, buffer.file_offset);
            assert_eq!(claimed, expected);
            assert!(found < expected);
            assert_eq!(exact_result, Ok(found));
            None
        }
        Err(error) => {
            assert_eq!(exact_result, Err(error), "not the decompressor's error");
            let at = match error {
                Error::Lz77FlagsTruncated { offset, .. }
                | Error::Lz77MatchTruncated { offset, .. }
                | Error::Lz77LengthTruncated { offset, .. }
                | Error::Lz77LengthBelowMinimum { offset, .. }
                | Error::Lz77DistanceBeforeStart { offset, .. }
                | Error::Lz77OutputTooSmall { offset, .. } => offset,
                other => panic!("not an error of a compressed buffer: {other:?}"),
            };
            // Inside the stream, or at its end for length bytes that are missing altogether.
            let at_end_allowed = matches!(error, Error::Lz77LengthTruncated { available: 0, .. });
            assert!(
                at < stream.len() || (at == stream.len() && at_end_allowed),
                "{error:?}: offset outside the stream"
            );
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (buffers, end) = check_buffers(data);
    check_file(data, &buffers, end);

    let mut scratch = [0u8; SCRATCH];
    let mut tree = TreeCheck::<TREE_CAPACITY>::new();
    for buffer in &buffers {
        if let Some(walk) = check_trace_buffer(buffer, &mut scratch) {
            check_buffer(&walk, &mut tree);
        }
    }
    tree.check_queries();
});
