//! Laws shared by the targets that walk trace buffers (`trace_buffer_walk` and `etl_reader`):
//! the walk of a buffer's events, the classic events a consumer is delivered, and the instance
//! tree built from them.
//!
//! Each function checks what the library's documentation promises, independently of how the
//! library computes it, and panics (a fuzzing finding) when a promise is broken.

use etw_classic::{
    Bitness, DeliveredEvent, Error, Event, EventInstanceGuidHeader, EventKind, EventTraceHeader,
    Events, Guid, HeaderFamily, HeaderType, InstanceKey, InstanceNode, InstanceTree, Layout,
    MarkerFlags, SystemTraceHeader, TraceBuffer, WmiBufferHeader, DEFAULT_TRACE_ALIGNMENT,
};

/// The `u32` that marks the end of a buffer's events.
const END_OF_EVENTS: [u8; 4] = [0xFF; 4];

/// What the first bytes of an event say, read as `Events` documents it: the header type, and
/// `Size` when enough bytes are there to read it.
struct Recognised {
    header_type: HeaderType,
    /// `None` for a header type without a known family (no `Size` to read).
    family: Option<HeaderFamily>,
    /// `Size`, `None` when the bytes end before it.
    size: Option<u16>,
}

impl Recognised {
    /// Reads the marker at the start of `rest` (at least four bytes, with `TRACE_HEADER_FLAG`).
    fn read(rest: &[u8]) -> Self {
        let flags = MarkerFlags(rest[3]);
        let (header_type, family) = if flags.contains(MarkerFlags::TRACE_MESSAGE) {
            (HeaderType::MESSAGE, Some(HeaderFamily::SizeFirst))
        } else {
            let header_type = HeaderType(rest[2]);
            (header_type, header_type.family())
        };
        let size_at = match family {
            Some(HeaderFamily::SizeFirst) => Some(0),
            Some(HeaderFamily::VersionFirst) => Some(4),
            None => None,
        };
        let size = size_at
            .and_then(|at| rest.get(at..at + 2))
            .map(|raw| u16::from_le_bytes([raw[0], raw[1]]));
        Self {
            header_type,
            family,
            size,
        }
    }

    /// The smallest `Size` the walk accepts for this header type.
    fn min_size(&self) -> usize {
        self.header_type.fixed_len().unwrap_or_default().max(4)
    }
}

fn is_full(header_type: HeaderType) -> bool {
    matches!(
        header_type,
        HeaderType::FULL_HEADER32 | HeaderType::FULL_HEADER64
    )
}

fn is_instance(header_type: HeaderType) -> bool {
    matches!(header_type, HeaderType::INSTANCE32 | HeaderType::INSTANCE64)
}

/// Whether `header_type` is one of the classic kinds `classic_events` delivers.
pub fn is_classic(header_type: HeaderType) -> bool {
    is_full(header_type) || is_instance(header_type)
}

/// Walks `Events::new(bytes)` and checks every law of the walk; returns the events it yielded
/// and the error it ended with, if any.
///
/// - each event starts where `offset()` said before the call, 8-aligned, after the previous
///   one, and lies inside the bytes: it is the input slice `offset..offset + Size`;
/// - its header type, marker flags and `Size` are what its first bytes say, and `Size` covers
///   the type's fixed header;
/// - `offset()` then moves to the event's offset plus `Size` rounded up to 8;
/// - the walk ends without an error only past the bytes, at fewer than four bytes, or at the
///   end mark 0xFFFFFFFF;
/// - an error names the offset `offset()` gave, which is inside the bytes, and a violation the
///   bytes there really have; the iterator then yields `None` for ever and `offset()` is `None`;
/// - each event's header decodes and re-encodes to its own bytes (see [`check_kind`]).
pub fn check_events(bytes: &[u8]) -> (Vec<Event<'_>>, Option<Error>) {
    let mut events = Events::new(bytes);
    let mut walked: Vec<Event<'_>> = Vec::new();
    assert_eq!(events.offset(), Some(0));
    loop {
        let at = events.offset();
        match events.next() {
            None => {
                assert_eq!(events.offset(), None, "offset() after the end of the walk");
                let at = at.expect("the walk ended before it yielded None");
                let rest = bytes.get(at..).unwrap_or_default();
                assert!(
                    rest.len() < 4 || rest[..4] == END_OF_EVENTS,
                    "the walk ended at {at:#x} with {} bytes left and no end mark",
                    rest.len()
                );
                assert!(events.next().is_none());
                return (walked, None);
            }
            Some(Ok(event)) => {
                let at = at.expect("an event after the walk had ended");
                assert_eq!(event.offset, at, "the event is not where offset() said");
                assert_eq!(at % DEFAULT_TRACE_ALIGNMENT, 0);
                if let Some(previous) = walked.last() {
                    assert!(at > previous.offset, "offsets do not strictly increase");
                }
                let size = usize::from(event.size);
                assert!(at + size <= bytes.len(), "the event runs past the bytes");
                assert_eq!(event.bytes.len(), size);
                assert_eq!(
                    event.bytes.as_ptr(),
                    bytes[at..].as_ptr(),
                    "the event's bytes are not the input at its offset"
                );
                let recognised = Recognised::read(event.bytes);
                assert_ne!(event.bytes[..4], END_OF_EVENTS);
                assert!(event.marker_flags.contains(MarkerFlags::TRACE_HEADER_FLAG));
                assert_eq!(event.marker_flags, MarkerFlags(event.bytes[3]));
                assert_eq!(event.header_type, recognised.header_type);
                assert_eq!(Some(event.size), recognised.size);
                assert!(size >= recognised.min_size(), "Size below the fixed header");
                check_kind(&event);
                assert_eq!(
                    events.offset(),
                    Some(at + size.next_multiple_of(DEFAULT_TRACE_ALIGNMENT)),
                    "offset() after an event"
                );
                walked.push(event);
                assert!(walked.len() <= bytes.len() / DEFAULT_TRACE_ALIGNMENT + 1);
            }
            Some(Err(error)) => {
                let at = at.expect("an error after the walk had ended");
                check_walk_error(&error, bytes, at);
                assert_eq!(events.offset(), None, "offset() after an error");
                assert!(events.next().is_none(), "the walk went on after an error");
                assert!(events.next().is_none(), "the walk went on after an error");
                return (walked, Some(error));
            }
        }
    }
}

/// The error the walk yielded at `at` names that offset, lies inside the bytes, and describes
/// what the bytes there really hold.
fn check_walk_error(error: &Error, bytes: &[u8], at: usize) {
    assert!(at < bytes.len(), "{error:?}: offset out of bounds");
    let rest = &bytes[at..];
    assert!(
        rest.len() >= 4,
        "{error:?}: fewer than four bytes are no event"
    );
    assert_ne!(rest[..4], END_OF_EVENTS, "{error:?} at the end mark");
    let found_flags = MarkerFlags(rest[3]);
    if let Error::NotAnEventHeader { offset, found } = *error {
        assert_eq!(offset, at);
        assert_eq!(
            found,
            u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]])
        );
        assert!(!found_flags.contains(MarkerFlags::TRACE_HEADER_FLAG));
        return;
    }
    assert!(
        found_flags.contains(MarkerFlags::TRACE_HEADER_FLAG),
        "{error:?} for bytes without TRACE_HEADER_FLAG"
    );
    let recognised = Recognised::read(rest);
    match *error {
        Error::UnknownEventHeaderType {
            offset,
            header_type,
        } => {
            assert_eq!(offset, at);
            assert_eq!(header_type, recognised.header_type);
            assert!(recognised.family.is_none(), "{error:?}: the type is known");
        }
        Error::EventHeaderTruncated {
            offset,
            header_type,
            needed,
            available,
        } => {
            assert_eq!(offset, at);
            assert_eq!(header_type, recognised.header_type);
            assert_eq!(recognised.family, Some(HeaderFamily::VersionFirst));
            assert_eq!((needed, available), (6, rest.len()));
            assert!(recognised.size.is_none());
        }
        Error::EventSizeBelowHeader {
            offset,
            header_type,
            min_size,
            size,
        } => {
            assert_eq!(offset, at);
            assert_eq!(header_type, recognised.header_type);
            assert_eq!(Some(size), recognised.size);
            assert_eq!(min_size, recognised.min_size());
            assert!(usize::from(size) < min_size);
        }
        Error::EventSizeBeyondBuffer {
            offset,
            header_type,
            size,
            available,
        } => {
            assert_eq!(offset, at);
            assert_eq!(header_type, recognised.header_type);
            assert_eq!(Some(size), recognised.size);
            assert!(usize::from(size) >= recognised.min_size());
            assert_eq!(available, rest.len());
            assert!(usize::from(size) > available);
        }
        _ => panic!("not an error of the walk: {error:?}"),
    }
}

/// `Event::kind` follows the header type, and the header it decodes re-encodes to the event's
/// own bytes; `parse_event` of the event's bytes accepts it exactly when its marker flags are
/// 0xC0, and then splits off the same data and nothing after it.
pub fn check_kind(event: &Event<'_>) {
    let flags_ok = event.marker_flags.is_event_trace_header();
    let not_a_trace_header = |layout| Error::NotATraceHeader {
        layout,
        found: event.marker_flags,
    };
    match event.kind() {
        EventKind::Full { header, data } => {
            assert!(is_full(event.header_type), "Full kind for {event:?}");
            let len = EventTraceHeader::LEN;
            assert_eq!(header.to_bytes()[..], event.bytes[..len]);
            assert_eq!(data.as_ptr(), event.bytes[len..].as_ptr());
            assert_eq!(data.len(), event.bytes.len() - len);
            assert_eq!(
                (header.size, header.header_type, header.marker_flags),
                (event.size, event.header_type, event.marker_flags)
            );
            match EventTraceHeader::parse_event(event.bytes) {
                Ok((parsed, parsed_data, rest)) => {
                    assert!(flags_ok, "parse_event accepted {event:?}");
                    assert_eq!((parsed, parsed_data, rest.len()), (header, data, 0));
                }
                Err(error) => {
                    assert!(!flags_ok, "parse_event rejected {event:?}: {error:?}");
                    assert_eq!(error, not_a_trace_header(Layout::EventTraceHeader));
                }
            }
        }
        EventKind::Instance { header, data } => {
            assert!(
                is_instance(event.header_type),
                "Instance kind for {event:?}"
            );
            let len = EventInstanceGuidHeader::LEN;
            assert_eq!(header.to_bytes()[..], event.bytes[..len]);
            assert_eq!(data.as_ptr(), event.bytes[len..].as_ptr());
            assert_eq!(data.len(), event.bytes.len() - len);
            assert_eq!(
                (
                    header.header.size,
                    header.header.header_type,
                    header.header.marker_flags
                ),
                (event.size, event.header_type, event.marker_flags)
            );
            match EventInstanceGuidHeader::parse_event(event.bytes) {
                Ok((parsed, parsed_data, rest)) => {
                    assert!(flags_ok, "parse_event accepted {event:?}");
                    assert_eq!((parsed, parsed_data, rest.len()), (header, data, 0));
                }
                Err(error) => {
                    assert!(!flags_ok, "parse_event rejected {event:?}: {error:?}");
                    assert_eq!(error, not_a_trace_header(Layout::EventInstanceGuidHeader));
                }
            }
        }
        EventKind::Other { header_type, bytes } => {
            assert!(!is_classic(event.header_type), "Other kind for {event:?}");
            assert_eq!(header_type, event.header_type);
            assert_eq!(bytes, event.bytes);
            if matches!(header_type, HeaderType::SYSTEM32 | HeaderType::SYSTEM64) {
                let len = SystemTraceHeader::LEN;
                let system = SystemTraceHeader::from_bytes(bytes[..len].try_into().unwrap());
                assert_eq!(system.to_bytes()[..], bytes[..len]);
                assert_eq!(
                    (system.size, system.header_type, system.flags),
                    (event.size, event.header_type, event.marker_flags)
                );
                match SystemTraceHeader::parse_event(bytes) {
                    Ok((parsed, data, rest)) => {
                        assert!(flags_ok, "parse_event accepted {event:?}");
                        assert_eq!(parsed, system);
                        assert_eq!(data.as_ptr(), bytes[len..].as_ptr());
                        assert_eq!((data.len(), rest.len()), (bytes.len() - len, 0));
                    }
                    Err(error) => {
                        assert!(!flags_ok, "parse_event rejected {event:?}: {error:?}");
                        assert_eq!(error, not_a_trace_header(Layout::SystemTraceHeader));
                    }
                }
            }
        }
    }
}

/// Checks `classic_events(bitness)` and `deliver` against the walk of the same buffer
/// (`walked`, ended by `end`); returns the delivered events.
///
/// - `classic_events` yields exactly `deliver` of each walked event that is a classic one,
///   in order, then the walk's error if it had one, then `None` for ever; so the number of
///   events it delivers is the number of `FULL_HEADER32/64` and `INSTANCE32/64` events walked;
/// - `deliver` gives `None` for every other event, and for a classic one the `EVENT_TRACE` of
///   the asked bitness holding the event's header, its instance fields (zero for a full
///   header), `MofData` = the data's offset from the start of the buffer, `MofLength` = the
///   data's length, and the buffer's `ClientContext`; its data is the event's data.
pub fn check_classic<'a>(
    buffer: &TraceBuffer<'a>,
    walked: &[Event<'a>],
    end: Option<Error>,
    bitness: Bitness,
) -> Vec<DeliveredEvent<'a>> {
    let mut delivered = Vec::new();
    for event in walked {
        let result = buffer.deliver(event, bitness);
        let (instance, data, header_len) = match event.kind() {
            EventKind::Other { .. } => {
                assert_eq!(result, None, "deliver of {event:?}");
                continue;
            }
            EventKind::Full { header, data } => (
                EventInstanceGuidHeader {
                    header,
                    instance_id: 0,
                    parent_instance_id: 0,
                    parent_guid: Guid::NIL,
                },
                data,
                EventTraceHeader::LEN,
            ),
            EventKind::Instance { header, data } => (header, data, EventInstanceGuidHeader::LEN),
        };
        let one = result
            .expect("a classic event is delivered")
            .expect("no MofData offset of a fuzz input overflows 32 bits");
        let trace = one.event_trace;
        assert_eq!(trace.bitness(), bitness);
        assert_eq!(trace.instance_header(), instance);
        assert_eq!(
            trace.mof_data(),
            (WmiBufferHeader::LEN + event.offset + header_len) as u64
        );
        assert_eq!(trace.mof_length() as usize, data.len());
        assert_eq!(trace.buffer_context(), buffer.header.client_context);
        assert_eq!(one.offset, event.offset);
        assert_eq!(one.data.as_ptr(), data.as_ptr());
        assert_eq!(one.data.len(), data.len());
        assert_eq!(
            etw_classic::EventTrace::from_bytes(&trace.to_bytes(), bitness),
            trace
        );
        delivered.push(one);
    }

    let expected: Vec<Result<DeliveredEvent<'a>, Error>> = delivered
        .iter()
        .copied()
        .map(Ok)
        .chain(end.map(Err))
        .collect();
    let mut classic = buffer.classic_events(bitness);
    let got: Vec<_> = classic.by_ref().collect();
    assert_eq!(got, expected, "classic_events differs from the walk");
    assert!(
        classic.next().is_none(),
        "classic_events went on after its end"
    );
    assert_eq!(
        delivered.len(),
        walked.iter().filter(|e| is_classic(e.header_type)).count()
    );
    delivered
}

/// Walks one buffer: its events (as [`check_events`], and `TraceBuffer::events` is that walk of
/// its event bytes), both bitnesses of classic events, and adds its instance events to `tree`.
pub fn check_buffer<const N: usize>(buffer: &TraceBuffer<'_>, tree: &mut TreeCheck<N>) {
    let bytes = buffer.event_bytes();
    let (walked, end) = check_events(bytes);
    let expected: Vec<Result<Event<'_>, Error>> =
        walked.iter().copied().map(Ok).chain(end.map(Err)).collect();
    assert!(
        buffer.events().eq(expected),
        "events() is not the walk of event_bytes()"
    );
    let _ = check_classic(buffer, &walked, end, Bitness::Bits32);
    for one in check_classic(buffer, &walked, end, Bitness::Bits64) {
        let instance = one.event_trace.instance_header();
        if is_instance(instance.header.header_type) {
            tree.add(&instance);
        }
    }
}

/// An `InstanceTree` checked against a plain model of what its documentation says `add` does.
#[derive(Debug, Default)]
pub struct TreeCheck<const N: usize> {
    tree: InstanceTree<N>,
    model: Vec<InstanceNode>,
}

impl<const N: usize> TreeCheck<N> {
    /// An empty tree.
    pub fn new() -> Self {
        Self {
            tree: InstanceTree::new(),
            model: Vec::new(),
        }
    }

    /// Adds one instance event to the tree and to the model:
    /// - the instance is (`Guid`, `InstanceId`), the parent (`ParentGuid`, `ParentInstanceId`)
    ///   unless both are zero;
    /// - a known instance counts one more event; the first parent named sticks, and each later
    ///   different one counts as a conflict;
    /// - a new instance is added at the end, or, when the tree holds `N` already, the call fails
    ///   with `InstanceTreeFull` and leaves the tree unchanged.
    pub fn add(&mut self, event: &EventInstanceGuidHeader) {
        let key = InstanceKey::of(event);
        assert_eq!(
            key,
            InstanceKey {
                class_guid: event.header.guid.guid(),
                instance_id: event.instance_id,
            }
        );
        let parent = InstanceKey::parent_of(event);
        let names_none = event.parent_instance_id == 0 && event.parent_guid == Guid::NIL;
        let named = InstanceKey {
            class_guid: event.parent_guid,
            instance_id: event.parent_instance_id,
        };
        assert_eq!(parent, (!names_none).then_some(named));

        let result = self.tree.add(event);
        let full = self.model.len() == N;
        match self.model.iter_mut().find(|node| node.key == key) {
            Some(node) => {
                node.events = node.events.saturating_add(1);
                match (node.parent, parent) {
                    (None, Some(_)) => node.parent = parent,
                    (Some(known), Some(named)) if known != named => {
                        node.conflicting_parents = node.conflicting_parents.saturating_add(1);
                    }
                    _ => {}
                }
                assert_eq!(result, Ok(key));
            }
            None if full => {
                assert_eq!(result, Err(Error::InstanceTreeFull { capacity: N }));
            }
            None => {
                self.model.push(InstanceNode {
                    key,
                    parent,
                    events: 1,
                    conflicting_parents: 0,
                });
                assert_eq!(result, Ok(key));
            }
        }
        assert_eq!(
            self.tree.nodes(),
            &self.model[..],
            "the tree and its model differ"
        );
    }

    /// Every query of the tree, none of which may panic:
    /// - `get` finds each node by its key, and nothing for a key never added;
    /// - `parent` returns the node whose key is the parent named, when that one was added;
    /// - `children` are the nodes naming the key as parent, in order; `roots` are the nodes
    ///   whose parent is not in the tree;
    /// - `depth` counts the parent steps up to a root, or is `None` when the chain loops.
    pub fn check_queries(&self) {
        let tree = &self.tree;
        let nodes = tree.nodes();
        for (index, node) in nodes.iter().enumerate() {
            assert!(
                nodes[..index].iter().all(|other| other.key != node.key),
                "an instance is in the tree twice"
            );
            assert_eq!(tree.get(node.key), Some(node));
            let parent = tree.parent(node.key);
            match node.parent {
                None => assert_eq!(parent, None),
                Some(named) => {
                    assert_eq!(parent, nodes.iter().find(|other| other.key == named));
                    if let Some(parent) = parent {
                        assert_eq!(parent.key, named, "parent() is not the named parent");
                    }
                }
            }
            assert!(tree
                .children(node.key)
                .eq(nodes.iter().filter(|other| other.parent == Some(node.key))));

            let mut steps = 0;
            let mut at = node;
            let expected_depth = loop {
                match tree.parent(at.key) {
                    None => break Some(steps),
                    Some(_) if steps == nodes.len() => break None,
                    Some(up) => {
                        steps += 1;
                        at = up;
                    }
                }
            };
            let depth = tree.depth(node.key);
            assert_eq!(depth, expected_depth, "depth of {:?}", node.key);
            if let Some(depth) = depth {
                assert!(depth < nodes.len());
            }
        }
        assert!(tree.roots().eq(nodes
            .iter()
            .filter(|node| node.parent.is_none_or(|parent| tree.get(parent).is_none()))));
        for root in tree.roots() {
            assert_eq!(tree.depth(root.key), Some(0));
        }

        // A key never added.
        let absent = (0..=u32::try_from(nodes.len()).unwrap())
            .map(|instance_id| InstanceKey {
                class_guid: Guid::NIL,
                instance_id,
            })
            .find(|key| nodes.iter().all(|node| node.key != *key))
            .expect("one of len + 1 keys is absent");
        assert_eq!(tree.get(absent), None);
        assert_eq!(tree.parent(absent), None);
        assert_eq!(tree.depth(absent), None);
        assert_eq!(
            tree.children(absent).count(),
            nodes
                .iter()
                .filter(|node| node.parent == Some(absent))
                .count()
        );
    }
}
