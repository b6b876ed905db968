//! An .etl file written from session buffers reads back through `EtlFile` with every buffer
//! and event identical; the first buffer's bytes are checked at the layout offsets by hand.

use etw_classic::{
    wire::{BufferType, VersionDetail},
    Bitness, Class, ClockType, CodecError, EtlFile, EtlHeader, EventData, EventInstanceHeader,
    EventType, Guid, Layout, Level, Provider, Session, SteppingContext, TimesOrFlags, WnodeFlags,
};

const BUFFER_SIZE: usize = 0x400;
const CLASS: Guid = Guid::from_fields(0xfeed_beef, 1, 2, [3, 4, 5, 6, 7, 8, 9, 10]);

fn header(bitness: Bitness, buffers_written: u32) -> EtlHeader<'static> {
    let mut header = EtlHeader::new(bitness, BUFFER_SIZE as u32);
    header.buffers_written = buffers_written;
    header.events_lost = 2;
    header.buffers_lost = 1;
    header.number_of_processors = 1;
    header.cpu_speed_in_mhz = 120;
    header.timer_resolution = 156_250;
    header.clock_type = ClockType::SYSTEM_TIME;
    header.perf_freq = 10_000_000;
    header.start_time = 1_000;
    header.end_time = 9_000;
    header.boot_time = 500;
    header.version = VersionDetail {
        major_version: 10,
        minor_version: 0,
        sub_version: 0,
        sub_minor_version: 0,
    };
    header.provider_version = 7;
    header.logger_id = 5;
    header.logger_name = "boot";
    header.log_file_name = "boot.etl";
    header
}

/// A session's sealed buffers holding `count` instance events.
fn traced_buffers(bitness: Bitness, count: u8) -> Vec<[u8; BUFFER_SIZE]> {
    let mut session = Session::<BUFFER_SIZE, 2>::new(5, Level::VERBOSE);
    let mut provider = Provider::<1>::new(bitness);
    let class = provider.register(CLASS).unwrap();
    let mut context = SteppingContext {
        now: 1_000,
        step: 100,
        ..Default::default()
    };
    let mut stored = Vec::new();
    for index in 0..count {
        let info = provider.create_instance_id(class).unwrap();
        let data = vec![index; usize::from(index) * 3];
        let header = EventInstanceHeader {
            size: u16::try_from(0x38 + data.len()).unwrap(),
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
                &mut context,
            )
            .unwrap();
        session
            .drain(|buffer| {
                stored.push(*buffer);
                Ok::<(), ()>(())
            })
            .unwrap();
    }
    session.flush(context.now);
    session
        .drain(|buffer| {
            stored.push(*buffer);
            Ok::<(), ()>(())
        })
        .unwrap();
    stored
}

#[test]
fn written_file_reads_back_identical() {
    for bitness in [Bitness::Bits32, Bitness::Bits64] {
        let buffers = traced_buffers(bitness, 40);
        assert!(buffers.len() > 2);
        let written = u32::try_from(buffers.len() + 1).unwrap();
        let mut file = vec![0u8; BUFFER_SIZE];
        assert_eq!(
            header(bitness, written)
                .write_first_buffer(&mut file)
                .unwrap(),
            BUFFER_SIZE
        );
        for buffer in &buffers {
            file.extend_from_slice(buffer);
        }

        let etl = EtlFile::parse(&file).unwrap();
        assert_eq!(etl.bitness(), bitness);
        assert_eq!(etl.buffer_size(), BUFFER_SIZE);
        assert_eq!(etl.first_buffer.buffer_type, BufferType::HEADER);
        let logfile = etl.logfile_header;
        assert_eq!(logfile.buffers_written(), written);
        assert_eq!(logfile.events_lost(), 2);
        assert_eq!(logfile.buffers_lost(), 1);
        assert_eq!(logfile.cpu_speed_in_mhz(), 120);
        assert_eq!(
            logfile.pointer_size(),
            u32::try_from(bitness.pointer_len()).unwrap()
        );
        assert_eq!(logfile.reserved_flags(), ClockType::SYSTEM_TIME);
        assert_eq!(
            (
                logfile.start_time(),
                logfile.end_time(),
                logfile.boot_time()
            ),
            (1_000, 9_000, 500)
        );
        assert_eq!(etl.names.logger_name, "boot");
        assert_eq!(etl.names.log_file_name, "boot.etl");
        assert!(etl.names.terminated);

        let read: Vec<_> = etl.buffers().map(Result::unwrap).collect();
        assert_eq!(read.len(), buffers.len() + 1);
        let mut scratch = vec![0u8; BUFFER_SIZE];
        let mut events = 0;
        for (buffer, original) in read[1..].iter().zip(&buffers) {
            assert_eq!(buffer.bytes, original, "stored unchanged");
            let trace_buffer = buffer.trace_buffer(&mut scratch).unwrap();
            for event in trace_buffer.classic_events(bitness) {
                let event = event.unwrap();
                let index = u8::try_from(events).unwrap();
                assert_eq!(
                    event.event_trace.header().class.event_type,
                    EventType(index)
                );
                assert_eq!(event.data, vec![index; usize::from(index) * 3]);
                assert_eq!(
                    event.event_trace.instance_header().instance_id,
                    u32::from(index) + 1
                );
                events += 1;
            }
        }
        assert_eq!(events, 40);
    }
}

#[test]
fn first_buffer_bytes_at_the_layout_offsets() {
    let mut buffer = vec![0xAAu8; BUFFER_SIZE];
    header(Bitness::Bits64, 3)
        .write_first_buffer(&mut buffer)
        .unwrap();
    let u16_at = |at: usize| u16::from_le_bytes(buffer[at..at + 2].try_into().unwrap());
    let u32_at = |at: usize| u32::from_le_bytes(buffer[at..at + 4].try_into().unwrap());
    // "boot" and "boot.etl" with their NULs: 10 + 18 bytes after 0x20 + 0x118.
    let size: usize = 0x20 + 0x118 + 10 + 18;
    let end = (0x48 + size).next_multiple_of(8);
    assert_eq!(u32_at(0x00), 0x400, "BufferSize");
    assert_eq!(u32_at(0x04), u32::try_from(end).unwrap(), "SavedOffset");
    assert_eq!(u32_at(0x30), u32::try_from(end).unwrap(), "Offset");
    assert_eq!(u16_at(0x34), 1, "BufferFlag: FLUSH_MARKER");
    assert_eq!(u16_at(0x36), 4, "BufferType: HEADER");
    assert_eq!(u32_at(0x48), 0xC002_0002, "SYSTEM64 marker, version 2");
    assert_eq!(usize::from(u16_at(0x4C)), size, "Size");
    assert_eq!(u16_at(0x4E), 0, "HookId: WMI_LOG_TYPE_HEADER");
    let logfile = 0x48 + 0x20;
    assert_eq!(u32_at(logfile), 0x400, "TRACE_LOGFILE_HEADER.BufferSize");
    assert_eq!(u32_at(logfile + 0x24), 3, "BuffersWritten");
    assert_eq!(u32_at(logfile + 0x28), 1, "StartBuffers");
    assert_eq!(u32_at(logfile + 0x2C), 8, "PointerSize");
    assert_eq!(u32_at(logfile + 0x110), 2, "ReservedFlags: system time");
    let names = logfile + 0x118;
    assert_eq!(&buffer[names..names + 10], b"b\0o\0o\0t\0\0\0");
    assert_eq!(
        &buffer[0x48 + size..end],
        vec![0; end - 0x48 - size],
        "zero padding"
    );
    assert!(buffer[end..].iter().all(|&byte| byte == 0xFF), "0xFF fill");
}

#[test]
fn names_too_long_for_the_buffer_are_refused() {
    let long = "x".repeat(400);
    let mut settings = header(Bitness::Bits32, 1);
    settings.logger_name = &long;
    let mut buffer = vec![0x11u8; BUFFER_SIZE];
    let error = settings.write_first_buffer(&mut buffer).unwrap_err();
    assert_eq!(
        error,
        CodecError::OutputTooSmall {
            layout: Layout::TraceLogfileHeader32,
            needed: 0x20 + 0x110 + 802 + 18,
            found: BUFFER_SIZE - 0x48,
        }
    );
    assert!(buffer.iter().all(|&byte| byte == 0x11), "nothing written");
    let mut short = vec![0u8; BUFFER_SIZE - 1];
    assert!(matches!(
        header(Bitness::Bits32, 1).write_first_buffer(&mut short),
        Err(CodecError::OutputTooSmall {
            needed: 0x400,
            found: 0x3FF,
            ..
        })
    ));
}
