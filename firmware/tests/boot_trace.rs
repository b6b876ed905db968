//! The boot trace, written on the host, reads back through the library's reader with every
//! event, the instance tree the firmware built (boot → stages → steps), and the counts of the
//! logfile header; the flight recorder's file holds the newest buffers of the streaming trace,
//! in `SequenceNumber` order; the interrupt handler's timer ticks sit between the thread's
//! events, one clock for both.

use std::sync::Mutex;

use etw_classic::{
    read::InstanceKey, wire::TraceLogfileHeader32, EtlFile, EventType, HeaderType, InstanceTree,
    TraceBuffer, TraceLogfileHeader, WmiBufferHeader,
};
use etw_classic_firmware::{
    boot_trace, BootError, BootSummary, CalledDirectly, EtlSink, Interrupt, Mode, BITNESS,
    BOOT_CLASS, BOOT_TIME, BUFFER_COUNT, BUFFER_SIZE, CLOCK_STEP, INTERRUPT_THREAD_ID, LOGGER_ID,
    STAGE_CLASS, STEP_CLASS, THREAD_ID, TIMER_CLASS, WATCHDOG_CLASS,
};

/// The boot in `Mode::Interrupts` traces into the one shared session: its tests take turns.
static SHARED_SESSION: Mutex<()> = Mutex::new(());

struct FileImage(Vec<u8>);

impl EtlSink for FileImage {
    type Error = ();

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), ()> {
        let start = usize::try_from(offset).map_err(|_| ())?;
        let end = start + bytes.len();
        if self.0.len() < end {
            self.0.resize(end, 0);
        }
        self.0[start..end].copy_from_slice(bytes);
        Ok(())
    }
}

fn logfile_header(file: &EtlFile<'_>) -> TraceLogfileHeader32 {
    match file.logfile_header {
        TraceLogfileHeader::Bits32(header) => header,
        other => panic!("a 32-bit logger writes a 32-bit logfile header, not {other:?}"),
    }
}

fn traced(mode: Mode) -> (BootSummary, Vec<u8>) {
    let _turn = (mode == Mode::Interrupts).then(|| SHARED_SESSION.lock().unwrap());
    let mut file = FileImage(Vec::new());
    let summary = boot_trace(mode, &mut file, &mut CalledDirectly).unwrap();
    (summary, file.0)
}

/// What the reader finds in a file.
#[derive(Debug, Default)]
struct ReadBack {
    instance_events: u32,
    plain_events: u32,
    watchdog_kicks: Vec<u32>,
    timer_ticks: Vec<u32>,
    timestamps: Vec<i64>,
    /// Each event in file order: its header type, event type and thread.
    events: Vec<(HeaderType, EventType, u32)>,
    tree: InstanceTree<32>,
}

/// Reads the trace buffers of a file whose first one has `SequenceNumber` `first_sequence`
/// and the others the numbers after it.
fn read_back(bytes: &[u8], first_sequence: i64) -> ReadBack {
    let mut found = ReadBack::default();
    for (index, chunk) in bytes.chunks(BUFFER_SIZE).enumerate().skip(1) {
        let buffer = TraceBuffer::parse(chunk).unwrap();
        assert_eq!(
            buffer.header.sequence_number,
            first_sequence + index as i64 - 1,
            "buffer {index}"
        );
        assert_eq!(buffer.header.client_context.logger_id(), LOGGER_ID);
        for event in buffer.classic_events(BITNESS) {
            let event = event.unwrap();
            let header = event.event_trace.header();
            found.timestamps.push(header.timestamp);
            found.events.push((
                header.header_type,
                header.class.event_type,
                header.thread_id,
            ));
            match header.header_type {
                HeaderType::INSTANCE32 => {
                    found.instance_events += 1;
                    assert_eq!(header.thread_id, THREAD_ID);
                    found
                        .tree
                        .add(&event.event_trace.instance_header())
                        .unwrap();
                }
                HeaderType::FULL_HEADER32 if header.guid.guid() == WATCHDOG_CLASS => {
                    found.plain_events += 1;
                    assert_eq!(header.thread_id, THREAD_ID);
                    let (text, kicks) = event.data.split_last_chunk::<4>().unwrap();
                    assert_eq!(text, b"watchdog kicks=");
                    found.watchdog_kicks.push(u32::from_le_bytes(*kicks));
                }
                HeaderType::FULL_HEADER32 => {
                    found.plain_events += 1;
                    assert_eq!(header.guid.guid(), TIMER_CLASS);
                    assert_eq!(header.thread_id, INTERRUPT_THREAD_ID);
                    let tick: [u8; 4] = event.data.try_into().unwrap();
                    found.timer_ticks.push(u32::from_le_bytes(tick));
                }
                other => panic!("unexpected header type {other:?}"),
            }
        }
    }
    found
}

/// One boot, four stages under it, eight steps under the stages.
fn assert_boot_tree(tree: &InstanceTree<32>) {
    let roots: Vec<_> = tree.roots().collect();
    assert_eq!(roots.len(), 1);
    let boot = roots[0].key;
    assert_eq!(
        boot,
        InstanceKey {
            class_guid: BOOT_CLASS,
            instance_id: 1
        }
    );
    assert_eq!(roots[0].events, 2);
    let stages: Vec<_> = tree.children(boot).collect();
    assert_eq!(stages.len(), 4);
    let steps_per_stage: Vec<usize> = stages
        .iter()
        .map(|stage| {
            assert_eq!(stage.key.class_guid, STAGE_CLASS);
            tree.children(stage.key)
                .inspect(|step| {
                    assert_eq!(step.key.class_guid, STEP_CLASS);
                    assert_eq!(step.events, 3);
                    assert_eq!(tree.depth(step.key), Some(2));
                })
                .count()
        })
        .collect();
    assert_eq!(steps_per_stage, [2, 3, 1, 2]);
    assert_eq!(tree.nodes().len(), 1 + 4 + 8);
    assert!(tree
        .nodes()
        .iter()
        .all(|node| node.conflicting_parents == 0));
}

#[test]
fn streaming_trace_reads_back_with_every_event_and_the_instance_tree() {
    let (summary, bytes) = traced(Mode::Streaming);
    assert_eq!(
        summary,
        BootSummary {
            calls: 45,
            written: 40,
            instance_events: 36,
            plain_events: 4,
            filtered_out: 4,
            interrupt_events: 0,
            overwritten: 0,
            lost: 0,
            too_large: 1,
            buffers: 9,
            file_len: 10 * 512,
        }
    );
    assert_eq!(bytes.len(), 10 * BUFFER_SIZE);
    let file = EtlFile::parse(&bytes).unwrap();
    let header = logfile_header(&file);
    assert_eq!(header.buffers_written, 10);
    assert_eq!(header.log_instance.events_lost(), 0);
    assert_eq!(header.buffer_size, 512);
    assert_eq!(header.start_time, BOOT_TIME);
    // Every call that wrote an event read the clock once: the 4 filtered out and the one too
    // large read none.
    assert_eq!(header.end_time, BOOT_TIME + 40 * CLOCK_STEP);
    assert_eq!(file.names.log_file_name, "streaming.etl");

    let found = read_back(&bytes, 1);
    assert_eq!(found.instance_events, 36);
    assert_eq!(found.plain_events, 4);
    assert_eq!(found.watchdog_kicks, [1, 2, 3, 4]);
    assert!(found.timestamps.windows(2).all(|pair| pair[0] < pair[1]));

    assert_boot_tree(&found.tree);
}

#[test]
fn single_shot_trace_keeps_the_first_buffers_and_counts_the_lost_events() {
    let (summary, bytes) = traced(Mode::SingleShot);
    assert_eq!(summary.buffers as usize, BUFFER_COUNT);
    assert_eq!(summary.lost, 26);
    assert_eq!(
        summary.written + summary.lost + summary.filtered_out + summary.too_large,
        45
    );
    let file = EtlFile::parse(&bytes).unwrap();
    let header = logfile_header(&file);
    assert_eq!(header.buffers_written, 4);
    assert_eq!(header.log_instance.events_lost(), 26);
    assert_eq!(file.names.log_file_name, "single-shot.etl");

    let found = read_back(&bytes, 1);
    assert_eq!(found.instance_events, summary.instance_events);
    assert_eq!(found.plain_events, summary.plain_events);
    assert_eq!(found.instance_events + found.plain_events, 14);
    // The first events of the streaming trace, byte for byte: the same calls filled the
    // same buffers until the pool ran out. The last buffer was sealed by an event that was
    // then lost, which reads no clock: its `TimeStamp` (0x10) is its last event's, where the
    // streaming trace's has the time of the event that went on to the next buffer.
    let (_, streaming) = traced(Mode::Streaming);
    for index in 1..=BUFFER_COUNT {
        let start = index * BUFFER_SIZE;
        let (mut ours, theirs) = (
            bytes[start..start + BUFFER_SIZE].to_vec(),
            &streaming[start..start + BUFFER_SIZE],
        );
        if index == BUFFER_COUNT {
            let buffer = etw_classic::TraceBuffer::parse(&ours).unwrap();
            let last = buffer.events().last().unwrap().unwrap();
            let last_time = match last.kind() {
                etw_classic::EventKind::Instance { header, .. } => header.header.timestamp,
                other => panic!("expected an instance event, found {other:?}"),
            };
            assert_eq!(buffer.header.timestamp, last_time, "buffer {index}");
            ours[0x10..0x18].copy_from_slice(&theirs[0x10..0x18]);
        }
        assert_eq!(ours, theirs, "buffer {index}");
    }
    // The boot's START is there, its END was lost.
    let boot = found
        .tree
        .get(InstanceKey {
            class_guid: BOOT_CLASS,
            instance_id: 1,
        })
        .unwrap();
    assert_eq!(boot.events, 1);
    let first = TraceBuffer::parse(&bytes[BUFFER_SIZE..2 * BUFFER_SIZE]).unwrap();
    let start = first.classic_events(BITNESS).next().unwrap().unwrap();
    assert_eq!(
        start.event_trace.header().class.event_type,
        EventType::START
    );
    assert_eq!(start.data, b"bootloader 1.4.2");
    assert!(WmiBufferHeader::LEN < first.header.offset as usize);
}

#[test]
fn flight_recorder_keeps_the_newest_buffers_in_sequence_order_and_counts_the_overwritten_events() {
    let (summary, bytes) = traced(Mode::FlightRecorder);
    let (streaming_summary, streaming) = traced(Mode::Streaming);
    // The same calls as streaming, all written: the pool kept the last 3 of the 9 buffers.
    assert_eq!(summary.written, streaming_summary.written);
    assert_eq!(summary.lost, 0);
    assert_eq!(summary.buffers as usize, BUFFER_COUNT);
    assert_eq!(summary.overwritten, 27);
    assert_eq!(
        summary.instance_events + summary.plain_events + summary.overwritten,
        summary.written
    );
    let file = EtlFile::parse(&bytes).unwrap();
    let header = logfile_header(&file);
    assert_eq!(header.buffers_written, 4);
    // Overwritten events are not lost ones.
    assert_eq!(header.log_instance.events_lost(), 0);
    assert_eq!(header.end_time, BOOT_TIME + 40 * CLOCK_STEP);
    assert_eq!(file.names.log_file_name, "flight-recorder.etl");

    // Buffers 7, 8 and 9, oldest first, and byte for byte the streaming trace's.
    let found = read_back(&bytes, 7);
    assert_eq!(found.instance_events, summary.instance_events);
    assert_eq!(found.plain_events, summary.plain_events);
    assert_eq!(found.instance_events + found.plain_events, 13);
    assert!(found.timestamps.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(bytes[BUFFER_SIZE..], streaming[7 * BUFFER_SIZE..]);
    // The last kicks and the boot's END are there, its START was overwritten.
    assert_eq!(found.watchdog_kicks, [3, 4]);
    let boot = found
        .tree
        .get(InstanceKey {
            class_guid: BOOT_CLASS,
            instance_id: 1,
        })
        .unwrap();
    assert_eq!(boot.events, 1);
    assert_eq!(
        found.events.last().map(|event| event.1),
        Some(EventType::END)
    );
}

#[test]
fn interrupt_handler_ticks_sit_between_the_thread_events_on_one_clock() {
    let (summary, bytes) = traced(Mode::Interrupts);
    assert_eq!(
        summary,
        BootSummary {
            calls: 45 + 8,
            written: 40 + 8,
            instance_events: 36,
            plain_events: 4 + 8,
            interrupt_events: 8,
            filtered_out: 4,
            overwritten: 0,
            lost: 0,
            too_large: 1,
            buffers: 10,
            file_len: 11 * 512,
        }
    );
    let file = EtlFile::parse(&bytes).unwrap();
    let header = logfile_header(&file);
    assert_eq!(header.buffers_written, 11);
    assert_eq!(header.log_instance.events_lost(), 0);
    assert_eq!(header.end_time, BOOT_TIME + 48 * CLOCK_STEP);
    assert_eq!(file.names.log_file_name, "interrupts.etl");

    let found = read_back(&bytes, 1);
    assert_eq!(found.instance_events, 36);
    assert_eq!(found.watchdog_kicks, [1, 2, 3, 4]);
    assert_eq!(found.timer_ticks, [1, 2, 3, 4, 5, 6, 7, 8]);
    // The handler read the thread's clock: one time line.
    assert!(found.timestamps.windows(2).all(|pair| pair[0] < pair[1]));
    // Each tick right after a step's checkpoint, before the step's END.
    let ticks: Vec<usize> = (found.events.iter().enumerate())
        .filter(|(_, event)| event.2 == INTERRUPT_THREAD_ID)
        .map(|(index, _)| index)
        .collect();
    assert_eq!(ticks.len(), 8);
    for index in ticks {
        assert_eq!(found.events[index - 1].1, EventType::CHECKPOINT);
        assert_eq!(found.events[index + 1].1, EventType::END);
    }
    assert_boot_tree(&found.tree);
}

/// An interrupt whose handler starts another boot on the shared session instead of tracing.
struct StartsAnotherBoot(Option<Result<BootSummary, BootError<()>>>);

impl Interrupt for StartsAnotherBoot {
    fn raise(&mut self) {
        let mut file = FileImage(Vec::new());
        self.0 = Some(boot_trace(Mode::Interrupts, &mut file, &mut CalledDirectly));
    }
}

#[test]
fn the_shared_session_serves_one_boot_at_a_time_and_a_handler_that_does_not_run_is_reported() {
    let _turn = SHARED_SESSION.lock().unwrap();
    let mut file = FileImage(Vec::new());
    let mut interrupt = StartsAnotherBoot(None);
    let outer = boot_trace(Mode::Interrupts, &mut file, &mut interrupt);
    assert_eq!(interrupt.0, Some(Err(BootError::SharedSessionInUse)));
    assert_eq!(outer, Err(BootError::InterruptNotHandled));
    // The failed boot gave the session back.
    let mut file = FileImage(Vec::new());
    let summary = boot_trace(Mode::Interrupts, &mut file, &mut CalledDirectly).unwrap();
    assert_eq!(summary.interrupt_events, 8);
}

/// The described trace starts with one `MetaData/EventInfo` event per event type of the
/// typed class, whose data is the constant bytes and names the provider, the class, the event
/// type and each field (the names written in the class's declaration in `src/lib.rs`); then
/// the typed events follow, one `Start`, one `Checkpoint` per step and one `End` per stage, with
/// a watchdog kick after each stage, in one streaming file.
#[test]
fn described_trace_starts_with_the_descriptions_of_its_typed_events() {
    use etw_classic::payload::{EventInfo, METADATA_GUID};
    use etw_classic_firmware::{DESCRIPTIONS, STAGE_EVENTS};

    let (summary, bytes) = traced(Mode::Described);
    assert_eq!(
        (summary.lost, summary.too_large, summary.filtered_out),
        (0, 0, 0)
    );
    let mut described = Vec::new();
    let mut typed = Vec::new();
    let mut kicks = 0;
    for chunk in bytes.chunks(BUFFER_SIZE).skip(1) {
        let buffer = TraceBuffer::parse(chunk).unwrap();
        for event in buffer.classic_events(BITNESS) {
            let event = event.unwrap();
            let header = event.event_trace.header();
            assert_eq!(header.header_type, HeaderType::FULL_HEADER32);
            let guid = header.guid.guid();
            if guid == METADATA_GUID {
                assert!(typed.is_empty(), "a description after a typed event");
                assert_eq!(
                    (
                        header.class.event_type.0,
                        header.class.level.0,
                        header.class.version
                    ),
                    (32, 0, 0)
                );
                described.push(event.data.to_vec());
            } else if guid == STAGE_EVENTS.guid() {
                assert_eq!(header.class.version, 1);
                typed.push(header.class.event_type.0);
            } else {
                assert_eq!(guid, WATCHDOG_CLASS);
                kicks += 1;
            }
        }
    }
    let expected: Vec<Vec<u8>> = DESCRIPTIONS.iter().map(|info| info.to_vec()).collect();
    assert_eq!(described, expected);
    let names: Vec<(String, String, String, u8, Vec<String>)> = described
        .iter()
        .map(|data| {
            let info = EventInfo::parse(data).unwrap();
            let text = |name: Option<etw_classic::payload::Utf16Name<'_>>| {
                name.unwrap().chars().collect::<String>()
            };
            let fields = info
                .properties()
                .map(|property| property.unwrap().name.chars().collect::<String>())
                .collect();
            (
                text(info.provider_name),
                text(info.task_name),
                text(info.opcode_name),
                info.descriptor.opcode,
                fields,
            )
        })
        .collect();
    let owned = |names: &[&str]| {
        names
            .iter()
            .map(|name| name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names,
        [
            (
                "Boot".into(),
                "Stage".into(),
                "Start".into(),
                1,
                owned(&["Stage", "Steps", "Entry", "Name"])
            ),
            (
                "Boot".into(),
                "Stage".into(),
                "Checkpoint".into(),
                8,
                owned(&["Ok", "Image", "At", "Hash"])
            ),
            (
                "Boot".into(),
                "Stage".into(),
                "End".into(),
                2,
                owned(&["Stage", "Status"])
            ),
        ]
    );
    // Four stages of 2, 3, 1 and 2 steps.
    let mut expected_types = Vec::new();
    for steps in [2, 3, 1, 2] {
        expected_types.push(1);
        expected_types.extend(std::iter::repeat_n(8, steps));
        expected_types.push(2);
    }
    assert_eq!(typed, expected_types);
    assert_eq!(kicks, 4);
}
