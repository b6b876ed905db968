//! Provider → session buffers → consumer: any sequence of valid events comes back identical,
//! field for field and byte for byte, in order, in both bitnesses. The expected bytes are laid
//! out here by hand from the layout tables, not by the crate's encoders.

use etw_classic::{
    read::DeliveredEvent, Bitness, Class, EventData, EventInstanceHeader, EventInstanceInfo,
    EventKind, EventTrace, EventTraceHeader, EventType, Guid, GuidOrPtr, HeaderType, InstanceTree,
    Level, Provider, Session, SteppingContext, TimesOrFlags, TraceBuffer, Traced, WnodeFlags,
};
use proptest::prelude::*;

const CLASSES: [Guid; 2] = [
    Guid::from_fields(0x1111_1111, 0x2222, 0x3333, [4, 4, 4, 4, 5, 5, 5, 5]),
    Guid::from_fields(
        0xAAAA_AAAA,
        0xBBBB,
        0xCCCC,
        [0xD, 0xD, 0xE, 0xE, 0xF, 0xF, 0, 1],
    ),
];

#[derive(Clone, Debug)]
enum Planned {
    Instance {
        class: usize,
        parent: Option<usize>,
        class_fields: (u8, u8, u16),
        data: Vec<u8>,
        as_mof_fields: bool,
    },
    Full {
        guid: [u8; 16],
        class_fields: (u8, u8, u16),
        data: Vec<u8>,
    },
}

fn planned() -> impl Strategy<Value = Planned> {
    let class_fields = (any::<u8>(), 0u8..=5, any::<u16>());
    let data = prop::collection::vec(any::<u8>(), 0..200);
    prop_oneof![
        (
            0usize..2,
            prop::option::of(0usize..2),
            class_fields.clone(),
            data.clone(),
            any::<bool>()
        )
            .prop_map(|(class, parent, class_fields, data, as_mof_fields)| {
                Planned::Instance {
                    class,
                    parent,
                    class_fields,
                    data,
                    as_mof_fields,
                }
            }),
        (any::<[u8; 16]>(), class_fields, data).prop_map(|(guid, class_fields, data)| {
            Planned::Full {
                guid,
                class_fields,
                data,
            }
        }),
    ]
}

/// The bytes an event must have in the buffer, laid out from LAYOUTS.md.
#[allow(clippy::too_many_arguments)]
fn expected_bytes(
    header_type: u8,
    class_fields: (u8, u8, u16),
    timestamp: i64,
    guid: [u8; 16],
    instance: Option<(u32, u32, [u8; 16])>,
    data: &[u8],
) -> Vec<u8> {
    let header_len = if instance.is_some() { 0x48 } else { 0x30 };
    let mut bytes = vec![0u8; header_len];
    let size = u16::try_from(header_len + data.len()).unwrap();
    bytes[0..2].copy_from_slice(&size.to_le_bytes());
    bytes[2] = header_type;
    bytes[3] = 0xC0;
    bytes[4] = class_fields.0;
    bytes[5] = class_fields.1;
    bytes[6..8].copy_from_slice(&class_fields.2.to_le_bytes());
    bytes[8..12].copy_from_slice(&0x1234u32.to_le_bytes());
    bytes[12..16].copy_from_slice(&0x42u32.to_le_bytes());
    bytes[16..24].copy_from_slice(&timestamp.to_le_bytes());
    bytes[24..40].copy_from_slice(&guid);
    bytes[40..44].copy_from_slice(&11u32.to_le_bytes());
    bytes[44..48].copy_from_slice(&13u32.to_le_bytes());
    if let Some((instance_id, parent_instance_id, parent_guid)) = instance {
        bytes[48..52].copy_from_slice(&instance_id.to_le_bytes());
        bytes[52..56].copy_from_slice(&parent_instance_id.to_le_bytes());
        bytes[56..72].copy_from_slice(&parent_guid);
    }
    bytes.extend_from_slice(data);
    bytes
}

fn run(bitness: Bitness, plan: &[Planned]) -> Result<(), TestCaseError> {
    const BUFFER_SIZE: usize = 0x200;
    let mut session = Session::<BUFFER_SIZE, 3>::new(9, Level::VERBOSE);
    let mut provider = Provider::<2>::new(bitness);
    let handles = CLASSES.map(|class| provider.register(class).unwrap());
    let mut context = SteppingContext {
        now: 1_000,
        step: 7,
        thread_id: 0x1234,
        process_id: 0x42,
        kernel_time: 11,
        user_time: 13,
    };
    let (instance_type, full_type) = match bitness {
        Bitness::Bits32 => (0x0B, 0x0A),
        Bitness::Bits64 => (0x15, 0x14),
    };
    let mut expected: Vec<Vec<u8>> = Vec::new();
    let mut stored: Vec<[u8; BUFFER_SIZE]> = Vec::new();
    let mut last_parent = [None; 2];
    for event in plan {
        let timestamp = context.now;
        let traced = match event {
            Planned::Instance {
                class,
                parent,
                class_fields,
                data,
                as_mof_fields,
            } => {
                let info = provider.create_instance_id(handles[*class]).unwrap();
                let parent_info = parent.and_then(|parent| last_parent[parent]);
                let chunks: Vec<&[u8]> = data.chunks(37).collect();
                let (flags, input_len, event_data) = if *as_mof_fields && chunks.len() <= 16 {
                    (
                        WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR,
                        16 * chunks.len(),
                        EventData::MofFields(&chunks),
                    )
                } else {
                    (WnodeFlags::TRACED_GUID, data.len(), EventData::Inline(data))
                };
                let header = EventInstanceHeader {
                    size: u16::try_from(0x38 + input_len).unwrap(),
                    class: Class::new(
                        EventType(class_fields.0),
                        Level(class_fields.1),
                        class_fields.2,
                    ),
                    reg_handle: handles[*class],
                    parent_reg_handle: parent_info.map_or(0, |p: EventInstanceInfo| p.reg_handle()),
                    times: TimesOrFlags::from_event_id(0, flags),
                    ..Default::default()
                };
                let parent_fields = parent_info.map_or((0, [0; 16]), |p| {
                    (
                        p.instance_id(),
                        CLASSES[usize::try_from(p.reg_handle() - 1).unwrap()].to_bytes_le(),
                    )
                });
                expected.push(expected_bytes(
                    instance_type,
                    *class_fields,
                    timestamp,
                    CLASSES[*class].to_bytes_le(),
                    Some((info.instance_id(), parent_fields.0, parent_fields.1)),
                    data,
                ));
                last_parent[*class] = Some(info);
                provider.trace_event_instance(
                    &mut session,
                    &header,
                    event_data,
                    &info,
                    parent_info.as_ref(),
                    &mut context,
                )
            }
            Planned::Full {
                guid,
                class_fields,
                data,
            } => {
                let header = EventTraceHeader {
                    size: u16::try_from(0x30 + data.len()).unwrap(),
                    class: Class::new(
                        EventType(class_fields.0),
                        Level(class_fields.1),
                        class_fields.2,
                    ),
                    guid: GuidOrPtr(*guid),
                    times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
                    ..Default::default()
                };
                expected.push(expected_bytes(
                    full_type,
                    *class_fields,
                    timestamp,
                    *guid,
                    None,
                    data,
                ));
                provider.trace_event(&mut session, &header, EventData::Inline(data), &mut context)
            }
        };
        prop_assert!(matches!(traced, Ok(Traced::Written { .. })), "{traced:?}");
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
    prop_assert_eq!(session.stats().events_lost, 0);
    prop_assert_eq!(
        usize::try_from(session.stats().events_written).unwrap(),
        plan.len()
    );

    // Read back: every event's bytes, and the EVENT_TRACE a consumer gets.
    let mut read: Vec<(Vec<u8>, DeliveredEvent)> = Vec::new();
    let mut tree = InstanceTree::<256>::new();
    for (index, bytes) in stored.iter().enumerate() {
        let buffer = TraceBuffer::parse(bytes).unwrap();
        prop_assert_eq!(
            buffer.header.sequence_number,
            i64::try_from(index + 1).unwrap()
        );
        let events: Vec<_> = buffer.events().collect::<Result<_, _>>().unwrap();
        let delivered: Vec<_> = buffer
            .classic_events(bitness)
            .collect::<Result<_, _>>()
            .unwrap();
        prop_assert_eq!(events.len(), delivered.len());
        for (event, delivered) in events.iter().zip(delivered) {
            prop_assert_eq!(event.offset % 8, 0);
            if let EventKind::Instance { header, .. } = event.kind() {
                tree.add(&header).unwrap();
            }
            // MofData is the data's offset in the buffer.
            let data_at = usize::try_from(delivered.event_trace.mof_data()).unwrap();
            prop_assert_eq!(
                &bytes[data_at..data_at + delivered.data.len()],
                delivered.data
            );
            read.push((event.bytes.to_vec(), delivered));
        }
    }
    prop_assert_eq!(read.len(), expected.len());
    for ((bytes, delivered), expected) in read.iter().zip(&expected) {
        prop_assert_eq!(bytes, expected);
        let trace: EventTrace = delivered.event_trace;
        prop_assert_eq!(trace.bitness(), bitness);
        let header_len = if matches!(
            trace.header().header_type,
            HeaderType::INSTANCE32 | HeaderType::INSTANCE64
        ) {
            0x48
        } else {
            0x30
        };
        prop_assert_eq!(
            &trace.instance_header().to_bytes()[..header_len],
            &expected[..header_len]
        );
        prop_assert_eq!(
            usize::try_from(trace.mof_length()).unwrap(),
            expected.len() - header_len
        );
        prop_assert_eq!(delivered.data, &expected[header_len..]);
        prop_assert_eq!(trace.buffer_context().logger_id(), 9);
        prop_assert_eq!(trace.buffer_context().alignment(), 8);
    }
    // Every instance names its latest parent instance, which is in the tree.
    for node in tree.nodes() {
        if let Some(parent) = node.parent {
            prop_assert!(tree.get(parent).is_some());
            prop_assert_eq!(tree.depth(node.key).map(|depth| depth >= 1), Some(true));
        }
        prop_assert_eq!(node.conflicting_parents, 0);
        prop_assert_eq!(node.events, 1, "every event has an instance id of its own");
    }
    Ok(())
}

/// How many events a plan holds at most: under Miri (the big-endian lane, where what is checked
/// is the byte order of what is written and read, which a few events show) fewer.
const MAX_PLANNED: usize = if cfg!(miri) { 10 } else { 40 };

proptest! {
    #[test]
    fn written_events_read_back_identical_64(
        plan in prop::collection::vec(planned(), 0..MAX_PLANNED)
    ) {
        run(Bitness::Bits64, &plan)?;
    }

    #[test]
    fn written_events_read_back_identical_32(
        plan in prop::collection::vec(planned(), 0..MAX_PLANNED)
    ) {
        run(Bitness::Bits32, &plan)?;
    }
}
