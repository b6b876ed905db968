//! The README's bad-input table, one test per row. Each kind of malformed input gets a specific
//! error that carries the offset where it applies, and the caller's output holds nothing beyond
//! what the error says. Every entry point the input can reach is tried: the fixed-header
//! decoders, the event walker, the consumer, the .etl reader, the decompressor, the provider and
//! the session.

use etw_classic::{
    read::{BufferPosition, EtlBuffer, InstanceKey, Lz77Error, MAX_BUFFER_SIZE},
    wire::{BufferFlags, VersionDetail},
    write::{InstanceRole, SessionStats},
    Bitness, Class, ClockType, CodecError, EtlFile, EtlHeader, EventData, EventInstanceGuidHeader,
    EventInstanceHeader, EventInstanceInfo, EventTraceHeader, EventType, Events, Guid, GuidOrPtr,
    HeaderType, InstanceTree, Layout, Level, MarkerFlags, Provider, ReadError, ReadErrorKind,
    Session, SteppingContext, SystemTraceHeader, TimesOrFlags, TraceBuffer, TraceError, Traced,
    WmiBufferHeader, WnodeFlags,
};

const BUFFER_SIZE: usize = 0x200;
const CLASS: Guid = Guid::from_fields(0x5eed_0001, 0xbad, 0x1, [2, 3, 4, 5, 6, 7, 8, 9]);
/// What output buffers hold before a call, to see what the call wrote.
const UNTOUCHED: u8 = 0xA5;

// ---------------------------------------------------------------------------------------------
// Input built by hand, following the layout tables.

/// The reader's error for the buffer at `file_offset` of a file of `BUFFER_SIZE` buffers.
fn at_buffer(file_offset: usize, kind: ReadErrorKind) -> ReadError {
    let index = file_offset / BUFFER_SIZE;
    ReadError::new(Some(BufferPosition { index, file_offset }), kind)
}

/// A `size`-byte event whose first four bytes are `Size`, `HeaderType` and `MarkerFlags` (a
/// size-first header), zero after them.
fn event(size: u16, header_type: HeaderType, marker: u8) -> Vec<u8> {
    let mut bytes = vec![0; usize::from(size).max(4)];
    bytes[0..2].copy_from_slice(&size.to_le_bytes());
    bytes[2] = header_type.0;
    bytes[3] = marker;
    bytes
}

/// Events laid out as a trace buffer holds them: each at the next multiple of 8, zero padding.
fn packed(events: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for event in events {
        bytes.extend_from_slice(event);
        bytes.resize(bytes.len().next_multiple_of(8), 0);
    }
    bytes
}

/// A `BUFFER_SIZE` buffer: header with `Offset` after `events`, the events, 0xFF after them.
fn buffer(events: &[u8]) -> Vec<u8> {
    let header = WmiBufferHeader {
        buffer_size: BUFFER_SIZE as u32,
        offset: u32::try_from(0x48 + events.len()).unwrap(),
        ..Default::default()
    };
    let mut bytes = vec![0xFF; BUFFER_SIZE];
    bytes[..0x48].copy_from_slice(&header.to_bytes());
    bytes[0x48..0x48 + events.len()].copy_from_slice(events);
    bytes
}

/// A FULL_HEADER64 event of 0x38 bytes, the first event of the hand-made buffers below.
fn good_event() -> Vec<u8> {
    event(0x38, HeaderType::FULL_HEADER64, 0xC0)
}

// ---------------------------------------------------------------------------------------------
// A provider and a session, and a written .etl file.

struct Tracer {
    session: Session<BUFFER_SIZE, 2>,
    provider: Provider<2>,
    class: u64,
    context: SteppingContext,
}

impl Tracer {
    fn new() -> Self {
        let mut provider = Provider::new(Bitness::Bits64);
        let class = provider.register(CLASS).unwrap();
        Self {
            session: Session::new(7, Level::VERBOSE),
            provider,
            class,
            context: SteppingContext {
                now: 1_000,
                step: 10,
                ..Default::default()
            },
        }
    }

    fn instance_header(&self, data_len: usize) -> EventInstanceHeader {
        EventInstanceHeader {
            size: u16::try_from(EventInstanceHeader::LEN + data_len).unwrap_or(u16::MAX),
            class: Class::new(EventType::INFO, Level::INFORMATION, 1),
            reg_handle: self.class,
            times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
            ..Default::default()
        }
    }

    fn trace(
        &mut self,
        header: &EventInstanceHeader,
        data: EventData<'_>,
        info: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
    ) -> Result<Traced, TraceError> {
        self.provider.trace_event_instance(
            &mut self.session,
            header,
            data,
            info,
            parent,
            &mut self.context,
        )
    }

    /// One valid instance event with `data_len` bytes of data.
    fn trace_valid(&mut self, data_len: usize) -> Traced {
        let info = self.provider.create_instance_id(self.class).unwrap();
        let header = self.instance_header(data_len);
        self.trace(
            &header,
            EventData::Inline(&vec![0x5A; data_len]),
            &info,
            None,
        )
        .unwrap()
    }

    /// Everything the session holds: its counters, then every buffer once flushed at a fixed
    /// time, in order.
    fn contents(mut self) -> (SessionStats, Vec<u8>) {
        self.session.flush(0x7777);
        let mut bytes = Vec::new();
        self.session
            .drain(|buffer| {
                bytes.extend_from_slice(buffer);
                Ok::<(), ()>(())
            })
            .unwrap();
        (self.session.stats(), bytes)
    }
}

/// Runs `bad` on a session holding one event, expects it to fail with `expected`, and checks
/// that the session then holds exactly what a twin session that never saw the call holds.
fn assert_refused_and_nothing_written(
    expected: TraceError,
    bad: impl FnOnce(&mut Tracer) -> Result<Traced, TraceError>,
) {
    let mut twin = Tracer::new();
    twin.trace_valid(8);
    let mut tracer = Tracer::new();
    tracer.trace_valid(8);
    assert_eq!(bad(&mut tracer), Err(expected));
    assert_eq!(
        tracer.contents(),
        twin.contents(),
        "{expected}: the session changed"
    );
}

/// A 64-bit .etl file of three buffers: the logfile header's, then two of instance events.
fn etl_file() -> Vec<u8> {
    let mut tracer = Tracer::new();
    for _ in 0..6 {
        tracer.trace_valid(0x30);
    }
    let (_, buffers) = tracer.contents();
    assert_eq!(buffers.len(), 2 * BUFFER_SIZE);
    let mut file = vec![0; BUFFER_SIZE];
    {
        let mut header = EtlHeader::new(Bitness::Bits64, BUFFER_SIZE as u32);
        header.buffers_written = 3;
        header.events_lost = 0;
        header.buffers_lost = 0;
        header.number_of_processors = 1;
        header.cpu_speed_in_mhz = 100;
        header.timer_resolution = 156_250;
        header.clock_type = ClockType::SYSTEM_TIME;
        header.perf_freq = 10_000_000;
        header.start_time = 1_000;
        header.end_time = 2_000;
        header.boot_time = 500;
        header.version = VersionDetail::default();
        header.provider_version = 1;
        header.logger_id = 7;
        header.logger_name = "bad";
        header.log_file_name = "bad.etl";
        header
    }
    .write_first_buffer(&mut file)
    .unwrap();
    file.extend_from_slice(&buffers);
    file
}

/// Every length in the truncation sweeps; under Miri, which interprets each of the
/// thousands of parses, every 7th (all lengths modulo 8 are still met).
const SWEEP_STEP: usize = if cfg!(miri) { 7 } else { 1 };

/// The offset of the `TRACE_LOGFILE_HEADER` in an .etl file: after the first buffer's header
/// and the `SYSTEM_TRACE_HEADER`.
const LOGFILE_HEADER_AT: usize = 0x48 + 0x20;

// ---------------------------------------------------------------------------------------------
// The rows.

#[test]
fn truncated_input_at_every_length() {
    // Every fixed struct at every length is tests/truncation.rs; here the readers of whole
    // buffers and files.
    let file = etl_file();
    for len in (0..=file.len()).step_by(SWEEP_STEP) {
        let cut = &file[..len];
        let parsed = EtlFile::parse(cut);
        if len < 0x48 {
            assert_eq!(
                parsed.unwrap_err(),
                at_buffer(
                    0,
                    ReadErrorKind::BufferHeaderTruncated {
                        needed: 0x48,
                        available: len
                    }
                )
            );
            continue;
        }
        if len < BUFFER_SIZE {
            assert_eq!(
                parsed.unwrap_err(),
                at_buffer(
                    0,
                    ReadErrorKind::BufferSizeOutOfRange {
                        buffer_size: BUFFER_SIZE as u32,
                        min: 0x48,
                        max: len,
                    }
                )
            );
            continue;
        }
        let buffers: Vec<_> = parsed.unwrap().buffers().collect();
        let (whole, rest) = (len / BUFFER_SIZE, len % BUFFER_SIZE);
        // A cut between two buffers, before the 3 BuffersWritten counts, is reported too.
        let ends_early = rest == 0 && whole < 3;
        assert_eq!(
            buffers.len(),
            whole + usize::from(rest > 0 || ends_early),
            "cut at {len:#x}"
        );
        for (index, buffer) in buffers.iter().take(whole).enumerate() {
            let buffer = buffer.as_ref().unwrap();
            assert_eq!(
                (buffer.index, buffer.file_offset),
                (index, index * BUFFER_SIZE)
            );
        }
        if rest > 0 {
            let file_offset = whole * BUFFER_SIZE;
            let expected = if rest < 0x48 {
                at_buffer(
                    file_offset,
                    ReadErrorKind::BufferHeaderTruncated {
                        needed: 0x48,
                        available: rest,
                    },
                )
            } else {
                at_buffer(
                    file_offset,
                    ReadErrorKind::BufferSizeOutOfRange {
                        buffer_size: BUFFER_SIZE as u32,
                        min: 0x48,
                        max: rest,
                    },
                )
            };
            assert_eq!(buffers[whole], Err(expected), "cut at {len:#x}");
        }
        if ends_early {
            let expected = ReadError::new(
                Some(BufferPosition {
                    index: whole,
                    file_offset: len,
                }),
                ReadErrorKind::FileEndsBeforeBuffersWritten {
                    buffers: whole,
                    buffers_written: 3,
                },
            );
            assert_eq!(buffers[whole], Err(expected), "cut at {len:#x}");
        }
    }

    // One buffer cut at every length: the header, then `Offset`.
    let buffer = &file[BUFFER_SIZE..2 * BUFFER_SIZE];
    let offset = WmiBufferHeader::from_bytes(buffer[..0x48].try_into().unwrap()).offset;
    for len in 0..BUFFER_SIZE {
        let expected = if len < 0x48 {
            ReadErrorKind::Codec(CodecError::Truncated {
                layout: Layout::WmiBufferHeader,
                needed: 0x48,
                found: len,
            })
        } else if len < offset as usize {
            ReadErrorKind::BufferOffsetOutOfRange {
                offset,
                min: 0x48,
                max: len,
            }
        } else {
            assert!(TraceBuffer::parse(&buffer[..len]).is_ok());
            continue;
        };
        assert_eq!(
            TraceBuffer::parse(&buffer[..len]).unwrap_err(),
            ReadError::from(expected)
        );
    }

    // Its events cut at every length: the whole events before the cut, then the one cut short.
    let events = TraceBuffer::parse(buffer).unwrap().event_bytes();
    let whole: Vec<(usize, u16)> = Events::new(events)
        .map(|event| event.map(|event| (event.offset, event.size)).unwrap())
        .collect();
    assert_eq!(whole.len(), 3);
    for len in 0..=events.len() {
        let mut walk = Events::new(&events[..len]);
        for &(offset, size) in &whole {
            let end = offset + usize::from(size);
            if end <= len {
                let event = walk.next().unwrap().unwrap();
                assert_eq!((event.offset, event.size), (offset, size));
            } else if len >= offset + 4 {
                assert_eq!(
                    walk.next(),
                    Some(Err(ReadErrorKind::EventSizeBeyondBuffer {
                        offset,
                        header_type: HeaderType::INSTANCE64,
                        size,
                        available: len - offset,
                    }
                    .into()))
                );
                break;
            } else {
                // Fewer than four bytes: no header can start there, the walk ends.
                break;
            }
        }
        assert!(walk.next().is_none(), "cut at {len:#x}");
    }
}

#[test]
fn size_smaller_than_the_header() {
    let mut full = event(0x2F, HeaderType::FULL_HEADER64, 0xC0);
    full.resize(0x30, 0);
    assert_eq!(
        EventTraceHeader::parse(&full).unwrap_err(),
        CodecError::SizeBelowHeader {
            layout: Layout::EventTraceHeader,
            header_len: 0x30,
            size: 0x2F
        }
    );
    let mut instance = event(0x47, HeaderType::INSTANCE32, 0xC0);
    instance.resize(0x48, 0);
    assert_eq!(
        EventInstanceGuidHeader::parse_event(&instance).unwrap_err(),
        CodecError::SizeBelowHeader {
            layout: Layout::EventInstanceGuidHeader,
            header_len: 0x48,
            size: 0x47,
        }
    );
    let system = SystemTraceHeader {
        header_type: HeaderType::SYSTEM64,
        flags: MarkerFlags(0xC0),
        size: 0x1F,
        ..Default::default()
    };
    assert_eq!(
        SystemTraceHeader::parse(&system.to_bytes()).unwrap_err(),
        CodecError::SizeBelowHeader {
            layout: Layout::SystemTraceHeader,
            header_len: 0x20,
            size: 0x1F
        }
    );

    // In a buffer, at the event's offset; the events before it are read.
    for (bad, min_size) in [
        (event(0x47, HeaderType::INSTANCE64, 0xC0), 0x48),
        (event(0, HeaderType::FULL_HEADER32, 0xC0), 0x30),
        (event(2, HeaderType::ERROR, 0xC0), 4),
    ] {
        let mut bytes = packed(&[good_event()]);
        bytes.extend_from_slice(&bad);
        bytes.resize(0x100, 0);
        let mut walk = Events::new(&bytes);
        assert_eq!(walk.next().unwrap().unwrap().offset, 0);
        assert_eq!(
            walk.next(),
            Some(Err(ReadErrorKind::EventSizeBelowHeader {
                offset: 0x38,
                header_type: HeaderType(bad[2]),
                min_size,
                size: u16::from_le_bytes([bad[0], bad[1]]),
            }
            .into()))
        );
        assert_eq!(walk.next(), None, "the walk ends after an error");
    }

    // The provider: Size must be the header plus the data.
    assert_refused_and_nothing_written(
        TraceError::WrongSize {
            expected: 0x38 + 4,
            found: 0x37,
        },
        |tracer| {
            let info = tracer.provider.create_instance_id(tracer.class).unwrap();
            let mut header = tracer.instance_header(4);
            header.size = 0x37;
            tracer.trace(&header, EventData::Inline(&[1; 4]), &info, None)
        },
    );
}

#[test]
fn size_larger_than_the_bytes_present() {
    let full = event(0x40, HeaderType::FULL_HEADER64, 0xC0);
    assert_eq!(
        EventTraceHeader::parse_event(&full[..0x3F]).unwrap_err(),
        CodecError::SizeBeyondInput {
            layout: Layout::EventTraceHeader,
            size: 0x40,
            available: 0x3F
        }
    );
    let instance = event(0x50, HeaderType::INSTANCE64, 0xC0);
    assert_eq!(
        EventInstanceGuidHeader::parse_event(&instance[..0x48]).unwrap_err(),
        CodecError::SizeBeyondInput {
            layout: Layout::EventInstanceGuidHeader,
            size: 0x50,
            available: 0x48,
        }
    );

    // In a buffer: `Offset` ends the events, so an event running past it is refused even
    // though the buffer's fill follows.
    let events = packed(&[good_event(), event(0x80, HeaderType::INSTANCE64, 0xC0)]);
    let mut bytes = buffer(&events);
    bytes[0x30..0x34].copy_from_slice(&(0x48u32 + 0x38 + 0x60).to_le_bytes());
    let trace_buffer = TraceBuffer::parse(&bytes).unwrap();
    let results: Vec<_> = trace_buffer.events().collect();
    assert_eq!(
        results[1],
        Err(ReadErrorKind::EventSizeBeyondBuffer {
            offset: 0x38,
            header_type: HeaderType::INSTANCE64,
            size: 0x80,
            available: 0x60,
        }
        .into())
    );
    assert_eq!(results.len(), 2);

    // A buffer of an .etl file whose BufferSize runs past the end of the file.
    let mut file = etl_file();
    file.truncate(2 * BUFFER_SIZE + 0x100);
    let results: Vec<_> = EtlFile::parse(&file).unwrap().buffers().collect();
    assert_eq!(
        results[2],
        Err(at_buffer(
            2 * BUFFER_SIZE,
            ReadErrorKind::BufferSizeOutOfRange {
                buffer_size: BUFFER_SIZE as u32,
                min: 0x48,
                max: 0x100,
            }
        ))
    );
}

#[test]
fn size_at_or_above_buffer_size_minus_72() {
    let limit = BUFFER_SIZE - 72;
    // In the buffer an instance event is 0x48 + data: so 0x38 + data in the caller's header.
    for data_len in [limit - 0x48, limit - 0x48 + 1, limit] {
        assert_refused_and_nothing_written(
            TraceError::EventTooLarge {
                size: 0x48 + data_len,
                limit,
            },
            |tracer| {
                let info = tracer.provider.create_instance_id(tracer.class).unwrap();
                let header = tracer.instance_header(data_len);
                tracer.trace(&header, EventData::Inline(&vec![1; data_len]), &info, None)
            },
        );
    }
    // One byte less is written, in a buffer of its own.
    let mut tracer = Tracer::new();
    assert_eq!(
        tracer.trace_valid(limit - 0x48 - 1),
        Traced::Written {
            slot: 0,
            offset: 0x48,
            size: u16::try_from(limit - 1).unwrap()
        }
    );
}

#[test]
fn wrong_or_missing_marker_bits() {
    for marker in [0x00, 0x40, 0x80, 0x3F] {
        let full = event(0x30, HeaderType::FULL_HEADER64, marker);
        assert_eq!(
            EventTraceHeader::parse(&full).unwrap_err(),
            CodecError::NotATraceHeader {
                layout: Layout::EventTraceHeader,
                found: MarkerFlags(marker)
            }
        );
        let instance = event(0x48, HeaderType::INSTANCE64, marker);
        assert_eq!(
            EventInstanceGuidHeader::parse(&instance).unwrap_err(),
            CodecError::NotATraceHeader {
                layout: Layout::EventInstanceGuidHeader,
                found: MarkerFlags(marker),
            }
        );
    }

    // In a buffer: without TRACE_HEADER_FLAG (0x80 of byte 3) no event starts there.
    let mut bytes = packed(&[good_event(), event(0x30, HeaderType::FULL_HEADER64, 0x40)]);
    bytes.resize(0x100, 0);
    let mut walk = Events::new(&bytes);
    assert!(walk.next().unwrap().is_ok());
    assert_eq!(
        walk.next(),
        Some(Err(ReadErrorKind::NotAnEventHeader {
            offset: 0x38,
            found: 0x4014_0030
        }
        .into()))
    );
    assert_eq!(walk.next(), None);

    // An .etl file whose first event has lost its marker.
    let mut file = etl_file();
    file[0x48 + 3] = 0x00;
    let found = u32::from_le_bytes(file[0x48..0x4C].try_into().unwrap());
    assert_eq!(
        EtlFile::parse(&file).unwrap_err(),
        at_buffer(0, ReadErrorKind::NotAnEventHeader { offset: 0, found })
    );
    // With 0x80 but not 0x40 the walker takes it, the logfile header decoder does not.
    file[0x48 + 3] = 0x80;
    assert_eq!(
        EtlFile::parse(&file).unwrap_err(),
        at_buffer(
            0,
            ReadErrorKind::Codec(CodecError::NotATraceHeader {
                layout: Layout::SystemTraceHeader,
                found: MarkerFlags(0x80)
            })
        )
    );

    // The provider writes the marker itself: HeaderType and MarkerFlags are reserved input.
    let mut tracer = Tracer::new();
    let info = tracer.provider.create_instance_id(tracer.class).unwrap();
    let mut header = tracer.instance_header(0);
    header.header_type = HeaderType(0x77);
    header.marker_flags = MarkerFlags(0x01);
    tracer
        .trace(&header, EventData::Inline(&[]), &info, None)
        .unwrap();
    let (_, bytes) = tracer.contents();
    assert_eq!(&bytes[0x48..0x4C], &[0x48, 0x00, 0x15, 0xC0]);
}

#[test]
fn unknown_header_type() {
    for header_type in [0x00, 0x16, 0x30, 0xFF] {
        let full = event(0x30, HeaderType(header_type), 0xC0);
        assert_eq!(
            EventTraceHeader::parse(&full).unwrap_err(),
            CodecError::WrongHeaderType {
                layout: Layout::EventTraceHeader,
                expected_32: HeaderType::FULL_HEADER32,
                expected_64: HeaderType::FULL_HEADER64,
                found: HeaderType(header_type),
            }
        );
        // In a buffer: a type with no known place for `Size` stops the walk at its offset.
        let mut bytes = packed(&[good_event(), full]);
        bytes.resize(0x100, 0);
        let mut walk = Events::new(&bytes);
        assert!(walk.next().unwrap().is_ok());
        assert_eq!(
            walk.next(),
            Some(Err(ReadErrorKind::UnknownEventHeaderType {
                offset: 0x38,
                header_type: HeaderType(header_type),
            }
            .into()))
        );
        assert_eq!(walk.next(), None);
    }
    // A header type the walker knows but the decoder does not take: an instance header where
    // a full header is expected.
    assert_eq!(
        EventTraceHeader::parse(&event(0x48, HeaderType::INSTANCE64, 0xC0)).unwrap_err(),
        CodecError::WrongHeaderType {
            layout: Layout::EventTraceHeader,
            expected_32: HeaderType::FULL_HEADER32,
            expected_64: HeaderType::FULL_HEADER64,
            found: HeaderType::INSTANCE64,
        }
    );
    // The first event of an .etl file must be the SYSTEM32/SYSTEM64 logfile header.
    let mut file = etl_file();
    file[0x48 + 2] = HeaderType::COMPACT64.0;
    assert_eq!(
        EtlFile::parse(&file).unwrap_err(),
        at_buffer(
            0,
            ReadErrorKind::Codec(CodecError::WrongHeaderType {
                layout: Layout::SystemTraceHeader,
                expected_32: HeaderType::SYSTEM32,
                expected_64: HeaderType::SYSTEM64,
                found: HeaderType::COMPACT64,
            })
        )
    );
}

#[test]
fn end_mark_and_ff_fill() {
    // 0xFFFFFFFF where a header would start ends the walk without an error; nothing after it
    // is read, not even a valid event.
    let mut bytes = packed(&[good_event()]);
    bytes.extend_from_slice(&[0xFF; 8]);
    bytes.extend_from_slice(&good_event());
    let offsets: Vec<_> = Events::new(&bytes)
        .map(|event| event.unwrap().offset)
        .collect();
    assert_eq!(offsets, [0]);

    // A buffer's 0xFF fill after `Offset` is never walked: the events end at `Offset`.
    let events = packed(&[good_event(), good_event()]);
    let trace_buffer_bytes = buffer(&events);
    assert!(trace_buffer_bytes[0x48 + events.len()..]
        .iter()
        .all(|&b| b == 0xFF));
    let trace_buffer = TraceBuffer::parse(&trace_buffer_bytes).unwrap();
    assert_eq!(trace_buffer.event_bytes().len(), events.len());
    assert_eq!(trace_buffer.events().count(), 2);
    // With `Offset` at the end of the buffer, the walk meets the end mark in the fill.
    let mut whole = trace_buffer_bytes.clone();
    whole[0x30..0x34].copy_from_slice(&(BUFFER_SIZE as u32).to_le_bytes());
    let offsets: Vec<_> = TraceBuffer::parse(&whole)
        .unwrap()
        .events()
        .map(|event| event.unwrap().offset)
        .collect();
    assert_eq!(offsets, [0, 0x38]);

    // Fill read as a header: marker 0xFF has 0xC0, header type 0xFF is no header's.
    let fill = [0xFF; 0x58];
    assert_eq!(
        EventInstanceGuidHeader::parse(&fill).unwrap_err(),
        CodecError::WrongHeaderType {
            layout: Layout::EventInstanceGuidHeader,
            expected_32: HeaderType::INSTANCE32,
            expected_64: HeaderType::INSTANCE64,
            found: HeaderType(0xFF),
        }
    );
    // Fill where an .etl buffer should start: BufferSize 0xFFFFFFFF, past the end of the file.
    let mut file = etl_file();
    file.extend_from_slice(&[0xFF; 0x80]);
    let results: Vec<_> = EtlFile::parse(&file).unwrap().buffers().collect();
    assert_eq!(results.len(), 4);
    assert_eq!(
        results[3],
        Err(at_buffer(
            3 * BUFFER_SIZE,
            ReadErrorKind::BufferSizeOutOfRange {
                buffer_size: u32::MAX,
                min: 0x48,
                max: 0x80,
            }
        ))
    );
}

#[test]
fn size_0xffff() {
    // The largest Size a header can hold is read as any other.
    let mut full = event(0xFFFF, HeaderType::FULL_HEADER64, 0xC0);
    full.push(0xEE);
    let (_, data, rest) = EventTraceHeader::parse_event(&full).unwrap();
    assert_eq!((data.len(), rest), (0xFFFF - 0x30, &[0xEE][..]));
    assert_eq!(
        EventTraceHeader::parse_event(&full[..0xFFFE]).unwrap_err(),
        CodecError::SizeBeyondInput {
            layout: Layout::EventTraceHeader,
            size: 0xFFFF,
            available: 0xFFFE
        }
    );

    // The walker: the event fits 64 KiB of events, and the next one would start past them.
    let mut events = full[..0xFFFF].to_vec();
    events.push(0);
    let results: Vec<_> = Events::new(&events).collect();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].as_ref().unwrap().size, 0xFFFF);
    // In a small buffer it runs past the events.
    let mut bytes = packed(&[good_event()]);
    bytes.extend_from_slice(&[0xFF, 0xFF, HeaderType::INSTANCE64.0, 0xC0]);
    bytes.resize(0x100, 0);
    assert_eq!(
        Events::new(&bytes).nth(1),
        Some(Err(ReadErrorKind::EventSizeBeyondBuffer {
            offset: 0x38,
            header_type: HeaderType::INSTANCE64,
            size: 0xFFFF,
            available: 0x100 - 0x38,
        }
        .into()))
    );

    // The provider: a caller's EVENT_INSTANCE_HEADER of Size 0xFFFF becomes 0x1000F bytes in
    // the buffer (0x48-byte header), which no Size can hold: refused even in big buffers.
    let mut provider = Provider::<1>::new(Bitness::Bits64);
    let class = provider.register(CLASS).unwrap();
    let info = provider.create_instance_id(class).unwrap();
    let mut session = Session::<0x20000, 1>::new(1, Level::VERBOSE);
    let header = EventInstanceHeader {
        size: 0xFFFF,
        reg_handle: class,
        times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    let data = vec![0; 0xFFFF - 0x38];
    let mut context = SteppingContext::default();
    assert_eq!(
        provider.trace_event_instance(
            &mut session,
            &header,
            EventData::Inline(&data),
            &info,
            None,
            &mut context
        ),
        Err(TraceError::EventTooLarge {
            size: 0x1000F,
            limit: 0x10000
        })
    );
    assert_eq!(
        (session.current_fill(), session.stats().events_written),
        (0, 0)
    );
    // A full header of Size 0xFFFF is 0xFFFF bytes in the buffer too, and is written.
    let full_header = EventTraceHeader {
        size: 0xFFFF,
        guid: GuidOrPtr::from_guid(CLASS),
        times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    let data = vec![0; 0xFFFF - 0x30];
    assert_eq!(
        provider.trace_event(
            &mut session,
            &full_header,
            EventData::Inline(&data),
            &mut context
        ),
        Ok(Traced::Written {
            slot: 0,
            offset: 0x48,
            size: 0xFFFF
        })
    );
}

#[test]
fn more_than_16_mof_fields() {
    let fields: Vec<Vec<u8>> = (0..17u8).map(|index| vec![index; 3]).collect();
    let slices: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
    let mof_header = |tracer: &Tracer, count: usize| {
        let mut header = tracer.instance_header(16 * count);
        header
            .times
            .set_flags(WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR);
        header
    };
    assert_refused_and_nothing_written(TraceError::TooManyMofFields { count: 17 }, |tracer| {
        let info = tracer.provider.create_instance_id(tracer.class).unwrap();
        let header = mof_header(tracer, 17);
        tracer.trace(&header, EventData::MofFields(&slices), &info, None)
    });
    // TraceEvent has the same limit.
    assert_refused_and_nothing_written(TraceError::TooManyMofFields { count: 17 }, |tracer| {
        let header = EventTraceHeader {
            size: u16::try_from(0x30 + 16 * 17).unwrap(),
            guid: GuidOrPtr::from_guid(CLASS),
            times: TimesOrFlags::from_client_context(
                0,
                WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR,
            ),
            ..Default::default()
        };
        tracer.provider.trace_event(
            &mut tracer.session,
            &header,
            EventData::MofFields(&slices),
            &mut tracer.context,
        )
    });
    // Sixteen are written, their data gathered after the header.
    let mut tracer = Tracer::new();
    let info = tracer.provider.create_instance_id(tracer.class).unwrap();
    let header = mof_header(&tracer, 16);
    assert_eq!(
        tracer.trace(&header, EventData::MofFields(&slices[..16]), &info, None),
        Ok(Traced::Written {
            slot: 0,
            offset: 0x48,
            size: 0x48 + 16 * 3
        })
    );
}

#[test]
fn zero_handles_and_instance_ids() {
    let zero_handle = EventInstanceInfo::new(Bitness::Bits64, 0, 1).unwrap();
    let zero_id =
        |tracer: &Tracer| EventInstanceInfo::new(Bitness::Bits64, tracer.class, 0).unwrap();
    for (role, instance_id) in [(InstanceRole::Event, 1), (InstanceRole::Parent, 1)] {
        assert_refused_and_nothing_written(
            TraceError::EmptyInstanceInfo {
                role,
                reg_handle: 0,
                instance_id,
            },
            |tracer| {
                let good = tracer.provider.create_instance_id(tracer.class).unwrap();
                let header = tracer.instance_header(0);
                match role {
                    InstanceRole::Event => {
                        tracer.trace(&header, EventData::Inline(&[]), &zero_handle, None)
                    }
                    InstanceRole::Parent => {
                        tracer.trace(&header, EventData::Inline(&[]), &good, Some(&zero_handle))
                    }
                }
            },
        );
    }
    assert_refused_and_nothing_written(
        TraceError::EmptyInstanceInfo {
            role: InstanceRole::Event,
            reg_handle: 1,
            instance_id: 0,
        },
        |tracer| {
            let header = tracer.instance_header(0);
            let info = zero_id(tracer);
            tracer.trace(&header, EventData::Inline(&[]), &info, None)
        },
    );
    // A zero RegHandle in the header does not match the instance info's.
    assert_refused_and_nothing_written(
        TraceError::RegHandleMismatch {
            role: InstanceRole::Event,
            in_header: 0,
            in_instance_info: 1,
        },
        |tracer| {
            let info = tracer.provider.create_instance_id(tracer.class).unwrap();
            let mut header = tracer.instance_header(0);
            header.reg_handle = 0;
            tracer.trace(&header, EventData::Inline(&[]), &info, None)
        },
    );
    // Handle 0 is never issued: no instance id for it, and registration starts at 1.
    let mut provider = Provider::<1>::new(Bitness::Bits32);
    assert_eq!(
        provider.create_instance_id(0),
        Err(TraceError::UnknownRegHandle {
            role: InstanceRole::Event,
            reg_handle: 0
        })
    );
    assert_eq!(provider.register(CLASS), Ok(1));
    assert_eq!(provider.create_instance_id(1).unwrap().instance_id(), 1);

    // The consumer keeps what it reads: an InstanceId of 0 is an instance like any other, and
    // a zero ParentInstanceId with a zero ParentGuid means "no parent".
    let mut event = EventInstanceGuidHeader::default();
    event.header.guid = GuidOrPtr::from_guid(CLASS);
    let mut tree = InstanceTree::<2>::new();
    let key = tree.add(&event).unwrap();
    assert_eq!(
        key,
        InstanceKey {
            class_guid: CLASS,
            instance_id: 0
        }
    );
    assert_eq!(tree.get(key).unwrap().parent, None);
    assert_eq!(tree.depth(key), Some(0));
}

/// A compressed buffer of an .etl file: BufferFlag COMPRESSED, the given `Offset` (0x48 plus
/// the decompressed length), then `stream`.
fn compressed_buffer(offset: u32, stream: &[u8]) -> Vec<u8> {
    let header = WmiBufferHeader {
        buffer_size: u32::try_from(0x48 + stream.len()).unwrap(),
        offset,
        buffer_flag: BufferFlags::COMPRESSED,
        ..Default::default()
    };
    let mut bytes = header.to_bytes().to_vec();
    bytes.extend_from_slice(stream);
    bytes
}

#[test]
fn corrupt_compressed_data() {
    const FILE_OFFSET: usize = 0x600;
    // Plain LZ77: a 32-bit flag word (bit 31 first, 1 = match), then literals and matches.
    let literals = |text: &[u8]| [&[0, 0, 0, 0][..], text].concat();
    // (stream, `Offset`, expected error, bytes written before it)
    let cases: [(Vec<u8>, u32, ReadErrorKind, &[u8]); 6] = [
        // A flag word cut short.
        (
            vec![0, 0],
            0x48 + 4,
            ReadErrorKind::Decompress(Lz77Error::FlagsTruncated {
                offset: 0,
                available: 2,
            }),
            b"",
        ),
        // "a", then a match reaching two bytes back with one decoded.
        (
            vec![0, 0, 0, 0x40, b'a', 0x08, 0x00],
            0x48 + 4,
            ReadErrorKind::Decompress(Lz77Error::DistanceBeforeStart {
                offset: 5,
                distance: 2,
                written: 1,
            }),
            b"a",
        ),
        // A match token cut short after "a".
        (
            vec![0, 0, 0, 0x40, b'a', 0x08],
            0x48 + 4,
            ReadErrorKind::Decompress(Lz77Error::MatchTruncated {
                offset: 5,
                available: 1,
            }),
            b"a",
        ),
        // More than `Offset` says: the fifth literal has no room.
        (
            literals(b"abcdef"),
            0x48 + 4,
            ReadErrorKind::Decompress(Lz77Error::OutputTooSmall {
                offset: 8,
                needed: 1,
                available: 0,
            }),
            b"abcd",
        ),
        // Less than `Offset` says.
        (
            literals(b"ab"),
            0x48 + 4,
            ReadErrorKind::DecompressedLengthMismatch {
                expected: 4,
                found: 2,
            },
            b"ab",
        ),
        // `Offset` below the buffer header.
        (
            literals(b"ab"),
            0x40,
            ReadErrorKind::BufferOffsetOutOfRange {
                offset: 0x40,
                min: 0x48,
                max: 0x48 + 0x40,
            },
            b"",
        ),
    ];
    for (stream, offset, expected, written) in cases {
        let bytes = compressed_buffer(offset, &stream);
        let buffer = EtlBuffer::parse(&bytes, 3, FILE_OFFSET).unwrap();
        let position = BufferPosition {
            index: 3,
            file_offset: FILE_OFFSET,
        };
        assert!(buffer.is_compressed());
        let mut scratch = [UNTOUCHED; 0x40];
        let error = buffer.trace_buffer(&mut scratch).unwrap_err();
        assert_eq!(error, ReadError::new(Some(position), expected));
        assert_eq!(&scratch[..written.len()], written, "{expected}");
        assert!(
            scratch[written.len()..].iter().all(|&b| b == UNTOUCHED),
            "{expected}: written past what the error says"
        );
    }
    // Scratch too small for what `Offset` says: refused before anything is decoded.
    let bytes = compressed_buffer(0x48 + 0x41, &literals(b"ab"));
    let mut scratch = [UNTOUCHED; 0x40];
    assert_eq!(
        EtlBuffer::parse(&bytes, 3, FILE_OFFSET)
            .unwrap()
            .trace_buffer(&mut scratch)
            .unwrap_err()
            .kind,
        ReadErrorKind::BufferOffsetOutOfRange {
            offset: 0x48 + 0x41,
            min: 0x48,
            max: 0x48 + 0x40
        }
    );
    assert!(scratch.iter().all(|&b| b == UNTOUCHED));
    // A compressed buffer handed to TraceBuffer::parse directly is refused, not misread.
    assert_eq!(
        TraceBuffer::parse(&bytes).unwrap_err(),
        ReadErrorKind::CompressedBuffer {
            buffer_flag: BufferFlags::COMPRESSED
        }
        .into()
    );
}

#[test]
fn logfile_header_claiming_impossible_sizes() {
    let file = etl_file();
    // BufferSize of TRACE_LOGFILE_HEADER, its first member.
    for buffer_size in [0, 0x47, MAX_BUFFER_SIZE as u32 + 1, u32::MAX] {
        let mut bad = file.clone();
        bad[LOGFILE_HEADER_AT..LOGFILE_HEADER_AT + 4].copy_from_slice(&buffer_size.to_le_bytes());
        assert_eq!(
            EtlFile::parse(&bad).unwrap_err(),
            at_buffer(
                0,
                ReadErrorKind::LogfileBufferSizeOutOfRange {
                    buffer_size,
                    min: 0x48,
                    max: MAX_BUFFER_SIZE
                }
            )
        );
    }
    // Up to 16 MiB is taken (compressed buffers are stored shorter than BufferSize), and the
    // buffers are walked by their own BufferSize, not by the logfile header's counts: the
    // file ends after its three buffers, which are fewer than BuffersWritten says.
    let mut big = file.clone();
    big[LOGFILE_HEADER_AT..LOGFILE_HEADER_AT + 4]
        .copy_from_slice(&(MAX_BUFFER_SIZE as u32).to_le_bytes());
    // BuffersWritten, at 0x24 of TRACE_LOGFILE_HEADER.
    big[LOGFILE_HEADER_AT + 0x24..LOGFILE_HEADER_AT + 0x28]
        .copy_from_slice(&1_000_000u32.to_le_bytes());
    let etl = EtlFile::parse(&big).unwrap();
    assert_eq!(etl.buffer_size(), MAX_BUFFER_SIZE);
    assert_eq!(etl.logfile_header.buffers_written(), 1_000_000);
    let buffers: Vec<_> = etl.buffers().collect();
    assert_eq!(buffers.len(), 4);
    assert!(buffers[..3].iter().all(Result::is_ok));
    assert_eq!(
        buffers[3],
        Err(ReadError::new(
            Some(BufferPosition {
                index: 3,
                file_offset: 3 * BUFFER_SIZE,
            }),
            ReadErrorKind::FileEndsBeforeBuffersWritten {
                buffers: 3,
                buffers_written: 1_000_000,
            },
        ))
    );

    // The logfile header event's Size (at 4 of SYSTEM_TRACE_HEADER): below its header, too
    // short for TRACE_LOGFILE_HEADER, past the buffer's Offset.
    let size_at = 0x48 + 4;
    let offset = u32::from_le_bytes(file[0x30..0x34].try_into().unwrap()) as usize;
    let cases = [
        (
            0x1F,
            ReadErrorKind::EventSizeBelowHeader {
                offset: 0,
                header_type: HeaderType::SYSTEM64,
                min_size: 0x20,
                size: 0x1F,
            },
        ),
        (
            0x20 + 0x117,
            ReadErrorKind::Codec(CodecError::Truncated {
                layout: Layout::TraceLogfileHeader64,
                needed: 0x118,
                found: 0x117,
            }),
        ),
        (
            u16::try_from(offset - 0x48 + 1).unwrap(),
            ReadErrorKind::EventSizeBeyondBuffer {
                offset: 0,
                header_type: HeaderType::SYSTEM64,
                size: u16::try_from(offset - 0x48 + 1).unwrap(),
                available: offset - 0x48,
            },
        ),
    ];
    for (size, expected) in cases {
        let mut bad = file.clone();
        bad[size_at..size_at + 2].copy_from_slice(&u16::to_le_bytes(size));
        assert_eq!(EtlFile::parse(&bad).unwrap_err(), at_buffer(0, expected));
    }
    // The first buffer's Offset past its BufferSize.
    let mut bad = file.clone();
    bad[0x30..0x34].copy_from_slice(&(BUFFER_SIZE as u32 + 1).to_le_bytes());
    assert_eq!(
        EtlFile::parse(&bad).unwrap_err(),
        at_buffer(
            0,
            ReadErrorKind::BufferOffsetOutOfRange {
                offset: BUFFER_SIZE as u32 + 1,
                min: 0x48,
                max: BUFFER_SIZE,
            }
        )
    );
}
