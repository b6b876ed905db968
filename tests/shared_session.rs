//! `SharedSession` (feature `critical-section`) with the `std` critical section: several threads
//! trace into one session, as thread mode and interrupt handlers do on a firmware, while another
//! takes the full buffers out; every event is read back exactly once, each thread's in the order
//! it traced them. A call made from inside another on the same session is refused.

use std::sync::atomic::{AtomicBool, Ordering};

use etw_classic::{
    write::{SharedSession, Win32Error},
    Bitness, Class, EventData, EventInstanceHeader, EventType, Guid, Level, Provider, Session,
    SteppingContext, TimesOrFlags, TraceBuffer, TraceError, Traced, WnodeFlags,
};

const CLASS: Guid = Guid::from_fields(0x5e55_1011, 0x2222, 0x3333, [4, 4, 4, 4, 4, 4, 4, 4]);
const BUFFER_SIZE: usize = 0x200;

fn header(reg_handle: u64, data_len: usize) -> EventInstanceHeader {
    EventInstanceHeader {
        size: u16::try_from(EventInstanceHeader::LEN + data_len).unwrap(),
        class: Class::new(EventType::INFO, Level::INFORMATION, 0),
        reg_handle,
        times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    }
}

/// The events of one buffer: (thread, index) from each event's 8 bytes of data.
fn events_of(buffer: &[u8]) -> Vec<(u32, u32)> {
    let buffer = TraceBuffer::parse(buffer).unwrap();
    buffer
        .classic_events(Bitness::Bits32)
        .map(|event| {
            let data = event.unwrap().data;
            (
                u32::from_le_bytes(data[..4].try_into().unwrap()),
                u32::from_le_bytes(data[4..8].try_into().unwrap()),
            )
        })
        .collect()
}

#[test]
fn threads_trace_into_one_session_and_every_event_is_read_back_once_in_order() {
    const THREADS: u32 = 4;
    const EVENTS: u32 = 2_000;
    static SESSION: SharedSession<BUFFER_SIZE, 4> = SharedSession::new(Session::disabled());
    SESSION
        .with(|session| {
            session.set_logger_id(7);
            session.set_enable_level(Level::VERBOSE);
        })
        .unwrap();
    let mut provider = Provider::<1>::new(Bitness::Bits32);
    let class = provider.register(CLASS).unwrap();
    let instance = provider.create_instance_id(class).unwrap();
    let provider = &provider;
    let done = AtomicBool::new(false);

    let read = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut read = Vec::new();
            let mut buffer = [0u8; BUFFER_SIZE];
            loop {
                let finished = done.load(Ordering::Acquire);
                while SESSION.take_oldest_full(&mut buffer).unwrap() {
                    read.extend(events_of(&buffer));
                }
                if finished {
                    return read;
                }
                std::thread::yield_now();
            }
        });
        let writers: Vec<_> = (0..THREADS)
            .map(|thread| {
                scope.spawn(move || {
                    let mut context = SteppingContext {
                        thread_id: thread,
                        step: 1,
                        ..Default::default()
                    };
                    let mut lost = 0;
                    for index in 0..EVENTS {
                        let mut data = [0u8; 8];
                        data[..4].copy_from_slice(&thread.to_le_bytes());
                        data[4..].copy_from_slice(&index.to_le_bytes());
                        match SESSION.trace_event_instance(
                            provider,
                            &header(class, data.len()),
                            EventData::Inline(&data),
                            &instance,
                            None,
                            &mut context,
                        ) {
                            Ok(Traced::Written { .. }) => {}
                            Err(TraceError::NoFreeBuffer { .. }) => lost += 1,
                            other => panic!("unexpected {other:?}"),
                        }
                    }
                    lost
                })
            })
            .collect();
        let lost: u32 = writers.into_iter().map(|w| w.join().unwrap()).sum();
        SESSION.with(|session| session.flush(0)).unwrap();
        done.store(true, Ordering::Release);
        (reader.join().unwrap(), lost)
    });
    let (read, lost) = read;

    let stats = SESSION.with(|session| session.stats()).unwrap();
    assert_eq!(stats.events_lost, lost);
    assert_eq!(stats.events_written + stats.events_lost, THREADS * EVENTS);
    assert_eq!(read.len(), usize::try_from(stats.events_written).unwrap());
    // Each thread's events come back once each, in the order it traced them.
    for thread in 0..THREADS {
        let indexes: Vec<u32> = read
            .iter()
            .filter(|(from, _)| *from == thread)
            .map(|(_, index)| *index)
            .collect();
        assert!(
            indexes.windows(2).all(|pair| pair[0] < pair[1]),
            "thread {thread}"
        );
    }
}

#[test]
fn a_call_from_inside_another_is_refused_not_deadlocked() {
    let shared = SharedSession::new(Session::<BUFFER_SIZE, 2>::new(1, Level::VERBOSE));
    let mut provider = Provider::<1>::new(Bitness::Bits32);
    let class = provider.register(CLASS).unwrap();
    let instance = provider.create_instance_id(class).unwrap();
    let inner = shared
        .with(|_| {
            shared.trace_event_instance(
                &provider,
                &header(class, 0),
                EventData::Inline(&[]),
                &instance,
                None,
                &mut SteppingContext::default(),
            )
        })
        .unwrap();
    assert_eq!(inner, Err(TraceError::SessionBusy));
    assert_eq!(TraceError::SessionBusy.win32_code(), Win32Error::BUSY);
    assert_eq!(
        TraceError::SessionBusy.to_string(),
        "expected the shared session to be free, found it in use by a call of the same context"
    );
    // Nothing was written, and the session works again afterwards.
    assert_eq!(shared.with(|s| s.stats().events_written), Ok(0));
    let traced = shared.trace_event_instance(
        &provider,
        &header(class, 0),
        EventData::Inline(&[]),
        &instance,
        None,
        &mut SteppingContext::default(),
    );
    assert!(matches!(traced, Ok(Traced::Written { offset: 0x48, .. })));
    assert!(format!("{shared:?}").starts_with("SharedSession { session: Session {"));
    let mut out = [0u8; BUFFER_SIZE];
    assert_eq!(shared.take_oldest_full(&mut out), Ok(false));
    assert_eq!(shared.with(|s| s.flush(5)), Ok(true));
    assert_eq!(shared.take_oldest_full(&mut out), Ok(true));
    let buffer = TraceBuffer::parse(&out).unwrap();
    assert_eq!(buffer.classic_events(Bitness::Bits32).count(), 1);
    assert_eq!(shared.with(|s| s.full_count()), Ok(0));
}
