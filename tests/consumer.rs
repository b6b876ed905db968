//! The consumer side on hand-made buffers: what `TraceBuffer` refuses, how an `EVENT_TRACE` is
//! delivered for each classic header type, and the instance tree on corrupt and full input.

use etw_classic::{
    read::{InstanceKey, InstanceTreeFull},
    Bitness, BufferContext, CodecError, EventInstanceGuidHeader, Events, Guid, GuidOrPtr,
    HeaderType, InstanceTree, ReadError, ReadErrorKind, TraceBuffer,
};

/// A 0x100-byte buffer: the header with `Offset` = `offset`, then `events`, then 0xFF.
fn buffer_with(offset: u32, flag: u16, events: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0xFF; 0x100];
    bytes[..0x48].fill(0);
    bytes[0x00..0x04].copy_from_slice(&0x100u32.to_le_bytes());
    bytes[0x28..0x2C].copy_from_slice(&[3, 8, 0x21, 0]);
    bytes[0x30..0x34].copy_from_slice(&offset.to_le_bytes());
    bytes[0x34..0x36].copy_from_slice(&flag.to_le_bytes());
    bytes[0x48..0x48 + events.len()].copy_from_slice(events);
    bytes
}

/// An INSTANCE64 event with 3 bytes of data, then a FULL_HEADER32 one with 2, then a
/// SYSTEM64-like version-first event of 0x20 bytes; offsets 0, 0x50, 0x88.
fn three_events() -> Vec<u8> {
    let mut events = vec![0u8; 0xA8];
    events[0x00..0x04].copy_from_slice(&[0x4B, 0x00, 0x15, 0xC0]);
    events[0x18] = 0xAA; // Guid.Data1 low byte
    events[0x30] = 7; // InstanceId
    events[0x34] = 5; // ParentInstanceId
    events[0x38] = 0xBB; // ParentGuid.Data1 low byte
    events[0x48..0x4B].copy_from_slice(b"xyz");
    events[0x50..0x54].copy_from_slice(&[0x32, 0x00, 0x0A, 0xC0]);
    events[0x80..0x82].copy_from_slice(b"ok");
    events[0x88..0x8C].copy_from_slice(&[0x02, 0x00, 0x02, 0xC0]);
    events[0x8C..0x8E].copy_from_slice(&0x20u16.to_le_bytes());
    events
}

#[test]
fn delivers_each_classic_event_as_event_trace() {
    let events = three_events();
    let bytes = buffer_with(0x48 + 0xA8, 0, &events);
    let buffer = TraceBuffer::parse(&bytes).unwrap();
    assert_eq!(buffer.events().count(), 3);
    for bitness in [Bitness::Bits32, Bitness::Bits64] {
        let delivered: Vec<_> = buffer.classic_events(bitness).map(Result::unwrap).collect();
        assert_eq!(
            delivered.len(),
            2,
            "the SYSTEM64 event is not a classic one"
        );

        let instance = &delivered[0];
        let trace = instance.event_trace;
        assert_eq!(trace.bitness(), bitness);
        assert_eq!(instance.offset, 0);
        assert_eq!(instance.data, b"xyz");
        assert_eq!(
            trace.mof_data(),
            0x48 + 0x48,
            "the data's offset in the buffer"
        );
        assert_eq!(trace.mof_length(), 3);
        assert_eq!(trace.buffer_context(), BufferContext::new(3, 8, 0x21));
        let guid_header = trace.instance_header();
        assert_eq!(guid_header.header.header_type, HeaderType::INSTANCE64);
        assert_eq!(guid_header.header.size, 0x4B);
        assert_eq!(guid_header.instance_id, 7);
        assert_eq!(guid_header.parent_instance_id, 5);
        assert_eq!(guid_header.parent_guid.to_bytes_le()[0], 0xBB);

        let full = &delivered[1];
        let trace = full.event_trace;
        assert_eq!(full.offset, 0x50);
        assert_eq!(full.data, b"ok");
        assert_eq!(trace.mof_data(), 0x48 + 0x50 + 0x30);
        assert_eq!(trace.mof_length(), 2);
        assert_eq!(trace.header().header_type, HeaderType::FULL_HEADER32);
        let guid_header = trace.instance_header();
        assert_eq!(
            (guid_header.instance_id, guid_header.parent_instance_id),
            (0, 0)
        );
        assert_eq!(guid_header.parent_guid, Guid::NIL);
    }
}

#[test]
fn deliver_takes_one_walked_event_at_a_time() {
    let events = three_events();
    let bytes = buffer_with(0x48 + 0xA8, 0, &events);
    let buffer = TraceBuffer::parse(&bytes).unwrap();
    let walked: Vec<_> = buffer.events().map(Result::unwrap).collect();
    let one_by_one: Vec<_> = walked
        .iter()
        .map(|event| buffer.deliver(event, Bitness::Bits64))
        .collect();
    assert!(one_by_one[2].is_none(), "a SYSTEM64 event is not delivered");
    let from_iterator: Vec<_> = buffer.classic_events(Bitness::Bits64).map(Some).collect();
    assert_eq!(one_by_one[..2], from_iterator[..]);
    assert_eq!(one_by_one[1].unwrap().unwrap().data, b"ok");
}

#[test]
fn the_walk_says_where_it_looks_next() {
    let events = three_events();
    let mut walk = Events::new(&events);
    assert_eq!(walk.offset(), Some(0));
    walk.next().unwrap().unwrap();
    assert_eq!(walk.offset(), Some(0x50), "0x4B rounded up to 8");
    walk.next().unwrap().unwrap();
    assert_eq!(walk.offset(), Some(0x88));
    walk.next().unwrap().unwrap();
    assert_eq!(walk.offset(), Some(0xA8));
    assert!(walk.next().is_none());
    assert_eq!(walk.offset(), None, "the walk has ended");
}

#[test]
fn offset_bounds_the_events() {
    let events = three_events();
    // Offset before the end of the third event: the walk sees a Size past the end.
    let bytes = buffer_with(0x48 + 0x90, 0, &events);
    let buffer = TraceBuffer::parse(&bytes).unwrap();
    let results: Vec<_> = buffer.events().collect();
    assert_eq!(results.len(), 3);
    assert_eq!(
        results[2],
        Err(ReadErrorKind::EventSizeBeyondBuffer {
            offset: 0x88,
            header_type: HeaderType::SYSTEM64,
            size: 0x20,
            available: 8
        }
        .into())
    );
    // Offset right after the header: no events.
    let empty = buffer_with(0x48, 0, &events);
    assert_eq!(TraceBuffer::parse(&empty).unwrap().events().count(), 0);
}

#[test]
fn refuses_compressed_buffers_and_offsets_out_of_range() {
    let events = three_events();
    assert_eq!(
        TraceBuffer::parse(&buffer_with(0x48 + 0xA8, 0x40, &events)),
        Err(ReadErrorKind::CompressedBuffer {
            buffer_flag: etw_classic::wire::BufferFlags::COMPRESSED
        }
        .into())
    );
    for offset in [0, 0x47, 0x101, u32::MAX] {
        assert_eq!(
            TraceBuffer::parse(&buffer_with(offset, 0, &events)),
            Err(ReadErrorKind::BufferOffsetOutOfRange {
                offset,
                min: 0x48,
                max: 0x100
            }
            .into()),
            "Offset {offset:#x}"
        );
    }
    assert!(matches!(
        TraceBuffer::parse(&[0; 0x47]),
        Err(ReadError {
            buffer: None,
            kind: ReadErrorKind::Codec(CodecError::Truncated {
                needed: 0x48,
                found: 0x47,
                ..
            }),
            ..
        })
    ));
    assert_eq!(
        ReadErrorKind::BufferOffsetOutOfRange {
            offset: 0x101,
            min: 0x48,
            max: 0x100
        }
        .to_string(),
        "WMI_BUFFER_HEADER.Offset: expected between 0x48 and 0x100, found 0x101"
    );
}

fn instance(class: u8, id: u32, parent: Option<(u8, u32)>) -> EventInstanceGuidHeader {
    let mut header = EventInstanceGuidHeader::default();
    header.header.guid = GuidOrPtr::from_guid(Guid::from_fields(u32::from(class), 0, 0, [0; 8]));
    header.instance_id = id;
    if let Some((parent_class, parent_id)) = parent {
        header.parent_guid = Guid::from_fields(u32::from(parent_class), 0, 0, [0; 8]);
        header.parent_instance_id = parent_id;
    }
    header
}

fn key(class: u8, id: u32) -> InstanceKey {
    InstanceKey {
        class_guid: Guid::from_fields(u32::from(class), 0, 0, [0; 8]),
        instance_id: id,
    }
}

#[test]
fn instance_tree_links_children_to_parents_in_any_order() {
    let mut tree = InstanceTree::<8>::new();
    // A grandchild first, its parent, then the root, then more events of the root.
    tree.add(&instance(2, 9, Some((1, 4)))).unwrap();
    tree.add(&instance(1, 4, Some((1, 1)))).unwrap();
    tree.add(&instance(1, 1, None)).unwrap();
    tree.add(&instance(1, 1, None)).unwrap();
    tree.add(&instance(3, 1, Some((7, 7)))).unwrap();
    assert_eq!(tree.nodes().len(), 4);
    assert_eq!(tree.get(key(1, 1)).unwrap().events, 2);
    assert_eq!(tree.depth(key(2, 9)), Some(2));
    assert_eq!(tree.depth(key(1, 1)), Some(0));
    assert_eq!(tree.parent(key(2, 9)).unwrap().key, key(1, 4));
    let roots: Vec<InstanceKey> = tree.roots().map(|node| node.key).collect();
    assert_eq!(
        roots,
        [key(1, 1), key(3, 1)],
        "a parent never seen is not invented"
    );
    assert_eq!(tree.get(key(3, 1)).unwrap().parent, Some(key(7, 7)));
    assert!(tree.parent(key(3, 1)).is_none());
    let children: Vec<InstanceKey> = tree.children(key(1, 1)).map(|node| node.key).collect();
    assert_eq!(children, [key(1, 4)]);
    assert_eq!(tree.depth(key(9, 9)), None);
}

#[test]
fn instance_tree_survives_loops_conflicts_and_a_full_table() {
    let mut tree = InstanceTree::<3>::new();
    tree.add(&instance(1, 1, Some((1, 2)))).unwrap();
    tree.add(&instance(1, 2, Some((1, 1)))).unwrap();
    assert_eq!(tree.depth(key(1, 1)), None, "a loop has no depth");
    assert_eq!(tree.roots().count(), 0);
    tree.add(&instance(1, 1, Some((5, 5)))).unwrap();
    let node = tree.get(key(1, 1)).unwrap();
    assert_eq!(
        (node.parent, node.conflicting_parents),
        (Some(key(1, 2)), 1),
        "the first parent named wins"
    );
    tree.add(&instance(4, 4, None)).unwrap();
    assert_eq!(
        tree.add(&instance(4, 5, None)),
        Err(InstanceTreeFull::new(3))
    );
    assert_eq!(tree.nodes().len(), 3);
    assert_eq!(
        tree.add(&instance(4, 4, None)),
        Ok(key(4, 4)),
        "known instances still count"
    );
}

#[test]
fn instance_tree_takes_a_parent_named_later_and_counts_only_different_ones() {
    let mut tree = InstanceTree::<4>::new();
    // The first event of an instance names no parent; a later one does, and that is its parent.
    tree.add(&instance(1, 3, None)).unwrap();
    tree.add(&instance(1, 3, Some((2, 8)))).unwrap();
    // The same parent named again is no conflict; no parent named is none either.
    tree.add(&instance(1, 3, Some((2, 8)))).unwrap();
    tree.add(&instance(1, 3, None)).unwrap();
    let node = tree.get(key(1, 3)).unwrap();
    assert_eq!(
        (node.parent, node.events, node.conflicting_parents),
        (Some(key(2, 8)), 4, 0)
    );
}

#[test]
fn a_parent_is_absent_only_when_both_parent_members_are_zero() {
    let mut event = instance(1, 1, None);
    assert_eq!(InstanceKey::parent_of(&event), None);
    // A zero ParentInstanceId under a non-zero ParentGuid still names a parent, and the
    // other way round.
    event.parent_guid = Guid::from_fields(6, 0, 0, [0; 8]);
    assert_eq!(InstanceKey::parent_of(&event), Some(key(6, 0)));
    event.parent_guid = Guid::NIL;
    event.parent_instance_id = 5;
    assert_eq!(
        InstanceKey::parent_of(&event),
        Some(InstanceKey {
            class_guid: Guid::NIL,
            instance_id: 5
        })
    );
}
