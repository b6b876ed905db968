//! `EtlWriter` (the `std` feature): a session's buffers streamed to a `Write + Seek` read back
//! through `EtlFile` with every event, and the logfile header's buffer rewritten at the end
//! with the final counts.
#![cfg(feature = "std")]

use std::io::{self, Cursor, Seek, SeekFrom, Write};

use etw_classic::{
    read::TraceClock, wire::VersionDetail, Bitness, Class, ClockType, CodecError, EtlFile,
    EtlHeader, EtlWriter, EtlWriterError, EventData, EventInstanceHeader, EventType, Guid, Level,
    Provider, Session, SteppingContext, TimesOrFlags, TraceBuffer, WnodeFlags,
};

const BUFFER_SIZE: usize = 512;
const CLASS: Guid = Guid::from_fields(0x0123_4567, 0x89ab, 0xcdef, [1, 2, 3, 4, 5, 6, 7, 8]);
/// 2026-11-21 00:00:00 UTC as a FILETIME.
const START: i64 = 134_396_928_000_000_000;

fn header(bitness: Bitness) -> EtlHeader<'static> {
    let mut header = EtlHeader::new(bitness, BUFFER_SIZE as u32);
    header.cpu_speed_in_mhz = 48;
    header.start_time = START;
    header.boot_time = START - 5;
    header.version = VersionDetail {
        major_version: 10,
        minor_version: 0,
        sub_version: 0,
        sub_minor_version: 0,
    };
    header.logger_id = 3;
    header.logger_name = "stream";
    header.log_file_name = "stream.etl";
    header
}

/// Traces `count` instance events whose data is `index` repeated `index` times, with a clock
/// starting at `start` and stepping `step`, and hands each sealed buffer to `store` as soon as
/// it is sealed. Returns the session's final clock reading and how many buffers were stored.
fn trace(
    bitness: Bitness,
    count: u8,
    start: i64,
    step: i64,
    mut store: impl FnMut(&[u8; BUFFER_SIZE]),
) -> (i64, usize) {
    let mut session = Session::<BUFFER_SIZE, 2>::new(3, Level::VERBOSE);
    let mut provider = Provider::<1>::new(bitness);
    let class = provider.register(CLASS).unwrap();
    let mut clock = SteppingContext {
        now: start,
        step,
        thread_id: 9,
        ..Default::default()
    };
    let mut stored = 0;
    let mut hand_over = |session: &mut Session<BUFFER_SIZE, 2>| {
        session
            .drain(|buffer| {
                store(buffer);
                stored += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
    };
    for index in 0..count {
        let info = provider.create_instance_id(class).unwrap();
        let data = vec![index; usize::from(index)];
        let header = EventInstanceHeader {
            size: u16::try_from(EventInstanceHeader::LEN + data.len()).unwrap(),
            class: Class::new(EventType(index), Level::INFORMATION, 1),
            reg_handle: class,
            times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
            ..Default::default()
        };
        provider
            .trace_event_instance(
                &mut session,
                &header,
                EventData::Inline(&data),
                &info,
                None,
                &mut clock,
            )
            .unwrap();
        hand_over(&mut session);
    }
    session.flush(clock.now);
    hand_over(&mut session);
    (clock.now, stored)
}

/// Every classic event of the file: (event type, data, timestamp), in file order.
fn events(file: &EtlFile<'_>) -> Vec<(u8, Vec<u8>, i64)> {
    let mut found = Vec::new();
    for buffer in file.buffers().skip(1) {
        let buffer = TraceBuffer::parse(buffer.unwrap().bytes).unwrap();
        for event in buffer.classic_events(file.bitness()) {
            let event = event.unwrap();
            let header = event.event_trace.header();
            found.push((
                header.class.event_type.0,
                event.data.to_vec(),
                header.timestamp,
            ));
        }
    }
    found
}

#[test]
fn streamed_buffers_read_back_with_every_event_and_the_final_counts() {
    for bitness in [Bitness::Bits32, Bitness::Bits64] {
        let mut writer = EtlWriter::new(Cursor::new(Vec::new()), header(bitness)).unwrap();
        let mut buffers = Vec::new();
        let (end, stored) = trace(bitness, 60, START + 10_000, 10_000, |buffer| {
            writer.write_buffer(buffer).unwrap();
            buffers.push(*buffer);
        });
        assert!(stored > 3, "{stored} buffers");
        assert_eq!(writer.trace_buffers() as usize, stored);
        assert_eq!(writer.latest_timestamp(), Some(end));
        writer.header_mut().events_lost = 4;
        writer.header_mut().buffers_lost = 1;
        let bytes = writer.finish().unwrap().into_inner();

        assert_eq!(bytes.len(), (stored + 1) * BUFFER_SIZE);
        let file = EtlFile::parse(&bytes).unwrap();
        let logfile = file.logfile_header;
        assert_eq!(file.bitness(), bitness);
        assert_eq!(logfile.buffer_size(), 512);
        assert_eq!(logfile.buffers_written() as usize, stored + 1);
        assert_eq!(logfile.events_lost(), 4);
        assert_eq!(logfile.buffers_lost(), 1);
        assert_eq!(logfile.cpu_speed_in_mhz(), 48);
        assert_eq!(logfile.reserved_flags(), ClockType::SYSTEM_TIME);
        assert_eq!(logfile.start_time(), START);
        // The last buffer was sealed at `clock.now` after 60 readings, one per event.
        assert_eq!(logfile.end_time(), START + 61 * 10_000);
        assert_eq!(logfile.boot_time(), START - 5);
        assert_eq!(file.names.logger_name, "stream");
        assert_eq!(file.names.log_file_name, "stream.etl");
        assert_eq!(file.system_header.system_time, START);

        // Every buffer as the session sealed it, every event in order.
        for (index, buffer) in file.buffers().enumerate().skip(1) {
            assert_eq!(buffer.unwrap().bytes, buffers[index - 1]);
        }
        let read = events(&file);
        assert_eq!(read.len(), 60);
        for (index, (event_type, data, timestamp)) in read.into_iter().enumerate() {
            let index_u8 = u8::try_from(index).unwrap();
            assert_eq!(event_type, index_u8);
            assert_eq!(data, vec![index_u8; index]);
            assert_eq!(timestamp, START + 10_000 * (index as i64 + 1));
        }

        // The same bytes as the no_std writer's first buffer followed by the buffers.
        let mut expected_header = header(bitness);
        expected_header.buffers_written = u32::try_from(stored + 1).unwrap();
        expected_header.events_lost = 4;
        expected_header.buffers_lost = 1;
        expected_header.end_time = end;
        let mut expected = vec![0; BUFFER_SIZE];
        expected_header.write_first_buffer(&mut expected).unwrap();
        for buffer in &buffers {
            expected.extend_from_slice(buffer);
        }
        assert_eq!(bytes, expected);
    }
}

#[test]
fn the_first_buffer_says_one_buffer_until_finish_rewrites_it() {
    // The file starts 100 bytes into the stream: the header is rewritten there, not at 0.
    let mut stream = Cursor::new(vec![0xEE; 100]);
    stream.seek(SeekFrom::End(0)).unwrap();
    let mut writer = EtlWriter::new(stream, header(Bitness::Bits32)).unwrap();
    let buffers_written = |bytes: &[u8]| {
        EtlFile::parse(&bytes[100..])
            .unwrap()
            .logfile_header
            .buffers_written()
    };
    assert_eq!(buffers_written(writer.get_ref().get_ref()), 1);
    let mut stored = 0;
    trace(Bitness::Bits32, 30, START, 7, |buffer| {
        writer.write_buffer(buffer).unwrap();
        stored += 1;
        // Not rewritten as buffers come: still 1.
        assert_eq!(buffers_written(writer.get_ref().get_ref()), 1);
    });
    let end_before = writer.get_ref().get_ref().len();
    // An EndTime set by hand is kept.
    writer.header_mut().end_time = START + 1;
    let stream = writer.finish().unwrap();
    assert_eq!(stream.position(), end_before as u64, "left at the end");
    let bytes = stream.into_inner();
    assert_eq!(bytes.len(), 100 + (stored + 1) * BUFFER_SIZE);
    assert!(bytes[..100].iter().all(|&byte| byte == 0xEE));
    assert_eq!(buffers_written(&bytes), u32::try_from(stored + 1).unwrap());
    let file = EtlFile::parse(&bytes[100..]).unwrap();
    assert_eq!(file.logfile_header.end_time(), START + 1);
    assert_eq!(events(&file).len(), 30);
}

#[test]
fn a_file_without_trace_buffers_is_its_first_buffer() {
    let writer = EtlWriter::new(Cursor::new(Vec::new()), header(Bitness::Bits64)).unwrap();
    assert_eq!(writer.latest_timestamp(), None);
    let bytes = writer.finish().unwrap().into_inner();
    assert_eq!(bytes.len(), BUFFER_SIZE);
    let file = EtlFile::parse(&bytes).unwrap();
    assert_eq!(file.logfile_header.buffers_written(), 1);
    assert_eq!(file.logfile_header.end_time(), 0, "no buffer, no end time");
    assert_eq!(file.buffers().count(), 1);
}

#[test]
fn a_cycle_counter_clock_is_anchored_at_the_reference_timestamp() {
    // A 48 MHz cycle counter that read 1_000_000 at START: the events convert back to FILETIMEs
    // through the file's own clock.
    let mut settings = header(Bitness::Bits32);
    settings.clock_type = ClockType::CPU_CYCLE_COUNTER;
    settings.cpu_speed_in_mhz = 48;
    settings.reference_timestamp = Some(1_000_000);
    let mut writer = EtlWriter::new(Cursor::new(Vec::new()), settings).unwrap();
    // 4_800 cycles: 100 µs per event.
    trace(Bitness::Bits32, 20, 1_000_000 + 4_800, 4_800, |buffer| {
        writer.write_buffer(buffer).unwrap();
    });
    // EndTime is not derived from a raw clock: the caller says it.
    let bytes = writer.finish().unwrap().into_inner();
    let file = EtlFile::parse(&bytes).unwrap();
    assert_eq!(file.logfile_header.end_time(), 0);
    assert_eq!(file.system_header.system_time, 1_000_000);
    let clock = TraceClock::from_etl(&file).unwrap();
    let times: Vec<i64> = events(&file)
        .into_iter()
        .map(|(_, _, raw)| clock.to_filetime(raw).unwrap())
        .collect();
    let expected: Vec<i64> = (1..=20).map(|index| START + 1_000 * index).collect();
    assert_eq!(times, expected);
}

#[test]
fn buffers_of_another_size_are_refused_and_nothing_is_written() {
    let mut writer = EtlWriter::new(Cursor::new(Vec::new()), header(Bitness::Bits32)).unwrap();
    let mut buffers = Vec::new();
    trace(Bitness::Bits32, 10, START, 1, |buffer| {
        buffers.push(*buffer)
    });
    let good = buffers[0];

    let error = writer.write_buffer(&good[..256]).unwrap_err();
    assert!(matches!(
        error,
        EtlWriterError::BufferSizeMismatch {
            index: 1,
            buffer_size: 512,
            length: 256,
            header_buffer_size: Some(512)
        }
    ));
    assert_eq!(
        error.to_string(),
        "buffer 1: expected 512 bytes whose header's BufferSize is 512, found 256 bytes whose \
         BufferSize is 512"
    );
    let mut lying = good;
    lying[..4].copy_from_slice(&1024u32.to_le_bytes());
    assert!(matches!(
        writer.write_buffer(&lying).unwrap_err(),
        EtlWriterError::BufferSizeMismatch {
            header_buffer_size: Some(1024),
            length: 512,
            ..
        }
    ));
    assert_eq!(
        writer.write_buffer(&good[..0x40]).unwrap_err().to_string(),
        "buffer 1: expected 512 bytes, found 64, too short for a 72-byte buffer header"
    );
    assert_eq!(writer.trace_buffers(), 0);
    assert_eq!(writer.get_ref().get_ref().len(), BUFFER_SIZE);

    writer.write_buffer(&good).unwrap();
    writer.header_mut().buffer_size = 1024;
    let error = writer.finish().unwrap_err();
    assert!(matches!(
        error,
        EtlWriterError::BufferSizeChanged {
            given: 512,
            found: 1024
        }
    ));
}

#[test]
fn names_too_long_for_the_first_buffer_are_a_codec_error() {
    let long = "n".repeat(200);
    let mut settings = header(Bitness::Bits64);
    settings.logger_name = &long;
    let error = EtlWriter::new(Cursor::new(Vec::new()), settings).unwrap_err();
    assert!(matches!(
        error,
        EtlWriterError::Codec(CodecError::OutputTooSmall { .. })
    ));
    assert!(error
        .to_string()
        .starts_with("cannot write the logfile header's buffer: "));
}

/// A stream whose `fail_at`-th write fails after writing half its bytes.
struct Flaky {
    inner: Cursor<Vec<u8>>,
    writes: usize,
    fail_at: usize,
}

impl Write for Flaky {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        if self.writes == self.fail_at {
            self.inner.write_all(&bytes[..bytes.len() / 2])?;
            return Err(io::Error::other("link dropped"));
        }
        self.inner.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Flaky {
    fn seek(&mut self, position: SeekFrom) -> io::Result<u64> {
        self.inner.seek(position)
    }
}

#[test]
fn a_failed_write_is_not_counted_and_the_next_buffer_takes_its_place() {
    let mut buffers = Vec::new();
    trace(Bitness::Bits32, 30, START, 10, |buffer| {
        buffers.push(*buffer)
    });
    assert!(buffers.len() >= 3);
    let stream = Flaky {
        inner: Cursor::new(Vec::new()),
        writes: 0,
        // The first buffer is write 1; buffer 1 is write 2, buffer 2 write 3.
        fail_at: 3,
    };
    let mut writer = EtlWriter::new(stream, header(Bitness::Bits32)).unwrap();
    writer.write_buffer(&buffers[0]).unwrap();
    let error = writer.write_buffer(&buffers[1]).unwrap_err();
    assert!(matches!(&error, EtlWriterError::Io(io) if io.to_string() == "link dropped"));
    assert_eq!(writer.trace_buffers(), 1);
    for buffer in &buffers[1..] {
        writer.write_buffer(buffer).unwrap();
    }
    let bytes = writer.finish().unwrap().inner.into_inner();
    assert_eq!(bytes.len(), (buffers.len() + 1) * BUFFER_SIZE);
    let file = EtlFile::parse(&bytes).unwrap();
    assert_eq!(
        file.logfile_header.buffers_written() as usize,
        buffers.len() + 1
    );
    for (buffer, original) in file.buffers().skip(1).zip(&buffers) {
        assert_eq!(buffer.unwrap().bytes, original);
    }
    assert_eq!(events(&file).len(), 30);
}
