//! What the fuzz targets share: the reference models of the wire formats ([`model`]), the
//! checks of a buffer's walk, of the classic events a consumer is delivered and of the instance
//! tree built from them, which `trace_buffer_walk` and `etl_reader` both run, and the laws of
//! the time-ordered walk of an .etl file and of the memory it takes ([`time_order`]), which
//! `etl_stream`, `etl_time_order` and `etl_python` run.
//!
//! Each check computes what the rules say the library must give, with [`model`], then compares
//! it with what the library gives, and panics (a fuzzing finding) on any difference.
//!
//! The laws of the schema parsers of text, which `manifest_xml` and `mof_text` share, are in
//! [`schema_text`].

pub mod decompressor;
pub mod model;
pub mod schema_text;
pub mod time_order;

use etw_classic::{
    read::{DeliveredEvent, InstanceKey, InstanceNode, InstanceTreeFull},
    wire::{
        EventHeaderFlags, ExtendedAndUserData, ExtendedItem, ExtendedItems, ExtraWords,
        MessageFields, MessageGuid,
    },
    Bitness, CodecError, CompactTraceHeader, Event, EventHeader, EventInstanceGuidHeader,
    EventKind, EventTrace, EventTraceHeader, Events, Guid, InstanceTree, MessageTraceHeader,
    PerfInfoTraceHeader, ReadError, SystemTraceHeader, TraceBuffer,
};
use model::{header_type, le32, WalkedEvent, Wire, BUFFER_HEADER_LEN};

/// Whether a header type byte is one of the classic kinds a consumer is delivered as
/// `EVENT_TRACE`: FULL_HEADER32/64 (an EVENT_TRACE_HEADER) and INSTANCE32/64 (an
/// EVENT_INSTANCE_GUID_HEADER) (LAYOUTS §The first four bytes, the table).
pub fn is_classic(header_type: u8) -> bool {
    is_full(header_type) || is_instance(header_type)
}

fn is_full(header_type: u8) -> bool {
    header_type == header_type::FULL_HEADER32 || header_type == header_type::FULL_HEADER64
}

fn is_instance(header_type: u8) -> bool {
    header_type == header_type::INSTANCE32 || header_type == header_type::INSTANCE64
}

fn is_event_header(header_type: u8) -> bool {
    header_type == header_type::EVENT_HEADER32 || header_type == header_type::EVENT_HEADER64
}

/// Walks `Events::new(bytes)` and checks it against [`model::walk`]: the same events at the same
/// offsets with the same header type, marker flags and `Size`, each one the input's bytes at its
/// offset, then the same end (cleanly, or the same error). Also:
/// - `offset()` before each step is where the rules look next, and `None` once the walk ended;
/// - after an error, the iterator yields `None` for ever;
/// - each event's header decodes and re-encodes as [`check_kind`] says.
///
/// Returns the events the library yielded and the error it ended with.
pub fn check_events(bytes: &[u8]) -> (Vec<Event<'_>>, Option<ReadError>) {
    let (expected, expected_end) = model::walk(bytes);
    let expected_end = expected_end.map(ReadError::from);
    let end_of_events = expected
        .last()
        .map_or(0, |last| last.offset + model::align(usize::from(last.size)));
    let mut events = Events::new(bytes);
    let mut walked: Vec<Event<'_>> = Vec::new();
    loop {
        let at = events.offset();
        let model = expected.get(walked.len());
        match events.next() {
            None => {
                assert!(model.is_none(), "the walk ended before {model:?}");
                assert_eq!(expected_end, None, "the walk ended cleanly");
                assert_eq!(at, Some(end_of_events), "where the walk ended");
                assert_eq!(events.offset(), None, "offset() after the end of the walk");
                assert!(events.next().is_none());
                return (walked, None);
            }
            Some(Ok(event)) => {
                let model: &WalkedEvent =
                    model.unwrap_or_else(|| panic!("an event the rules do not find: {event:?}"));
                assert_eq!(at, Some(model.offset), "offset() before the event");
                assert_eq!(
                    (
                        event.offset,
                        event.header_type.0,
                        event.marker_flags.0,
                        event.size
                    ),
                    (model.offset, model.header_type, model.flags, model.size),
                    "the event differs from the rules' reading"
                );
                let size = usize::from(model.size);
                assert_eq!(event.bytes.len(), size);
                assert_eq!(
                    event.bytes.as_ptr(),
                    bytes[model.offset..].as_ptr(),
                    "the event's bytes are not the input at its offset"
                );
                check_kind(&event);
                assert_eq!(
                    events.offset(),
                    Some(model.offset + model::align(size)),
                    "offset() after an event"
                );
                walked.push(event);
            }
            Some(Err(error)) => {
                assert!(model.is_none(), "{error:?} where the rules find {model:?}");
                assert_eq!(Some(error), expected_end, "the walk's error");
                assert_eq!(at, Some(end_of_events), "where the error is");
                assert_eq!(events.offset(), None, "offset() after an error");
                assert!(events.next().is_none(), "the walk went on after an error");
                assert!(events.next().is_none(), "the walk went on after an error");
                return (walked, Some(error));
            }
        }
    }
}

/// Compares a header's `parse_event` with [`Wire::parse_event`]: the same header and data, or
/// one of the errors the rules allow.
fn check_parse_event<T: PartialEq + core::fmt::Debug>(
    wire: Wire,
    bytes: &[u8],
    decoded: &T,
    result: Result<(T, &[u8], &[u8]), CodecError>,
) {
    match (result, wire.parse_event(bytes)) {
        (Ok((parsed, data, rest)), Ok(size)) => {
            assert_eq!(
                &parsed, decoded,
                "{wire:?}: parse_event differs from from_bytes"
            );
            assert_eq!(data.as_ptr(), bytes[wire.header_len()..].as_ptr());
            assert_eq!(
                (data.len(), rest.len()),
                (size - wire.header_len(), bytes.len() - size)
            );
        }
        (Err(error), Err(allowed)) => {
            assert!(
                allowed.contains(&error),
                "{wire:?}: {error:?}, rules: {allowed:?}"
            );
        }
        (result, expected) => panic!("{wire:?}: parse_event gave {result:?}, rules {expected:?}"),
    }
}

/// `Event::kind` of a walked event: `Full` for FULL_HEADER32/64, `Instance` for INSTANCE32/64,
/// `EventHeader` for EVENT_HEADER32/64 (checked by [`check_event_header_event`]), `System`,
/// `Compact` and `PerfInfo` for the version-first types, `Message` for a message, `Opaque` for
/// TIMED, ERROR and WNODE_HEADER, `Malformed` exactly when the model finds the announced extra
/// words or message fields beyond `Size`; a walked event is never `Other`, as every type the walk
/// accepts is typed. A header is decoded member by member at the offsets of its table, its data
/// the event's bytes after the fixed header (and after the extra words or fields the model
/// reads). `parse_event` of the event's bytes agrees with the rules ([`Wire::parse_event`]),
/// which accept exactly the events whose marker flags are 0xC0, as the walk has already checked
/// the type and `Size`.
pub fn check_kind(event: &Event<'_>) {
    let bytes = event.bytes;
    let expected_malformed = expected_malformed(event);
    if let Some(expected) = expected_malformed {
        assert_eq!(
            event.kind(),
            EventKind::Malformed {
                header_type: event.header_type,
                bytes,
                error: expected
            },
            "the model finds the announced fields beyond Size"
        );
        return;
    }
    match event.kind() {
        EventKind::Full { header, data } => {
            assert!(is_full(event.header_type.0), "Full kind for {event:?}");
            model::check_event_trace_header(&header, bytes);
            assert_eq!(data.as_ptr(), bytes[0x30..].as_ptr());
            assert_eq!(data.len(), bytes.len() - 0x30);
            check_parse_event(
                Wire::Full,
                bytes,
                &header,
                EventTraceHeader::parse_event(bytes),
            );
        }
        EventKind::Instance { header, data } => {
            assert!(
                is_instance(event.header_type.0),
                "Instance kind for {event:?}"
            );
            model::check_event_instance_guid_header(&header, bytes);
            assert_eq!(data.as_ptr(), bytes[0x48..].as_ptr());
            assert_eq!(data.len(), bytes.len() - 0x48);
            check_parse_event(
                Wire::Instance,
                bytes,
                &header,
                EventInstanceGuidHeader::parse_event(bytes),
            );
        }
        EventKind::EventHeader { header, body } => {
            assert!(
                is_event_header(event.header_type.0),
                "EventHeader kind for {event:?}"
            );
            check_event_header_event(bytes, &header, &body);
            check_parse_event(
                Wire::EventHeader,
                bytes,
                &header,
                EventHeader::parse_event(bytes)
                    .map(|(header, body, rest)| (header, body.bytes, rest)),
            );
        }
        EventKind::System {
            header,
            extra,
            data,
        } => {
            model::check_system_trace_header(&header, bytes);
            check_version_first(Wire::System, event, extra, data);
            check_parse_event(
                Wire::System,
                bytes,
                &header,
                SystemTraceHeader::parse_event(bytes),
            );
        }
        EventKind::Compact {
            header,
            extra,
            data,
        } => {
            model::check_compact_header(&header, bytes);
            check_version_first(Wire::Compact, event, extra, data);
            check_parse_event(
                Wire::Compact,
                bytes,
                &header,
                CompactTraceHeader::parse_event(bytes),
            );
        }
        EventKind::PerfInfo {
            header,
            extra,
            data,
        } => {
            model::check_perfinfo_header(&header, bytes);
            check_version_first(Wire::PerfInfo, event, extra, data);
            check_parse_event(
                Wire::PerfInfo,
                bytes,
                &header,
                PerfInfoTraceHeader::parse_event(bytes),
            );
        }
        EventKind::Message {
            header,
            fields,
            args,
        } => {
            assert_eq!(
                event.header_type.0,
                header_type::MESSAGE,
                "Message kind for {event:?}"
            );
            model::check_message_header(&header, bytes);
            let (expected, len) = model::message_fields(header.option_flags.0, &bytes[8..])
                .expect("checked by expected_malformed");
            check_message_fields(&fields, &expected);
            assert_eq!(
                args.as_ptr(),
                bytes[8 + len..].as_ptr(),
                "where the arguments start"
            );
            assert_eq!(
                args.len(),
                bytes.len() - 8 - len,
                "the arguments run to Size"
            );
            // `parse_event` makes the message rules' checks, which a walked event meets unless
            // its byte 3 lacks 0x90: the walk also takes a stored header type 0x0F as a
            // message, as `kind` does (the choice follows the header type alone).
            match (
                MessageTraceHeader::parse_event(bytes),
                model::message_parse(bytes),
            ) {
                (Ok((parsed, data, rest)), Ok(_)) => {
                    assert_eq!((parsed, data, rest.len()), (header, &bytes[8..], 0));
                }
                (Err(error), Err(expected)) => assert_eq!(error, expected, "parse_event"),
                (found, expected) => panic!("parse_event gave {found:?}, rules {expected:?}"),
            }
        }
        EventKind::Opaque {
            header_type: kind_type,
            bytes: kind_bytes,
        } => {
            let opaque = [
                header_type::TIMED,
                header_type::ERROR,
                header_type::WNODE_HEADER,
            ];
            assert!(
                opaque.contains(&event.header_type.0),
                "Opaque kind for {event:?}"
            );
            assert_eq!((kind_type, kind_bytes), (event.header_type, bytes));
        }
        EventKind::Other { .. } => panic!("a walked event came back as Other: {event:?}"),
        other => panic!("a kind the rules do not name: {other:?}"),
    }
}

/// An `EVENT_HEADER` event as `Event::kind` gives it: the header decodes member by member
/// (`model::check_event_header`) and re-encodes to the event's first 0x50 bytes, the body is
/// the rest of the event with the header's flags, and its items are what [`check_items`] says.
pub fn check_event_header_event(
    bytes: &[u8],
    header: &EventHeader,
    body: &ExtendedAndUserData<'_>,
) {
    model::check_event_header(header, bytes);
    assert_eq!(header.to_bytes(), bytes[..0x50], "EVENT_HEADER to_bytes");
    assert_eq!(body.flags, header.flags, "the body's flags");
    assert_eq!(
        body.bytes.as_ptr(),
        bytes[0x50..].as_ptr(),
        "the body's bytes"
    );
    assert_eq!(body.bytes.len(), bytes.len() - 0x50, "the body's length");
    check_items(header.flags, body.bytes);
}

/// The extended data items of the bytes `body` after a header with `flags`, against
/// [`model::extended_items`]: `ExtendedItems` yields the same items (offset, header, data and
/// padding in place, each inside `body`, `emit` giving back its bytes exactly, `payload` an
/// error exactly when [`model::payload_fits`] refuses its data, and then naming the item), then
/// ends the same way: the user data after the last item, or the same fault once and `None` after
/// it. `ExtendedAndUserData::split` agrees, and its list iterates the same items.
pub fn check_items(flags: EventHeaderFlags, body: &[u8]) {
    let (expected, end) = model::extended_items(flags.0, body);
    let mut walk = ExtendedItems::new(flags, body);
    let mut items: Vec<ExtendedItem<'_>> = Vec::new();
    for model_item in &expected {
        let item = walk
            .next()
            .unwrap_or_else(|| panic!("the walk ended before {model_item:?}"))
            .unwrap_or_else(|error| panic!("{error} where the rules find {model_item:?}"));
        let start = model_item.offset - 0x50;
        let data_end = start + 8 + model_item.data_size;
        let end = start + model_item.item_size;
        assert_eq!(
            (
                item.index,
                item.offset,
                usize::from(item.header.item_size),
                item.header.ext_type.0,
                item.header.linkage,
                usize::from(item.header.data_size)
            ),
            (
                items.len(),
                model_item.offset,
                model_item.item_size,
                model_item.ext_type,
                model_item.linkage,
                model_item.data_size
            ),
            "the item differs from the rules' reading"
        );
        assert_eq!(
            item.data.as_ptr(),
            body[start + 8..].as_ptr(),
            "the item's data"
        );
        assert_eq!(item.data.len(), model_item.data_size);
        assert_eq!(item.padding, &body[data_end..end], "the item's padding");
        assert_eq!(item.byte_len(), model_item.item_size);
        let mut out = vec![0xA5u8; item.byte_len() + 3];
        let rest = item.emit(&mut out).expect("emit into enough room");
        assert_eq!(rest, [0xA5; 3], "emit wrote past the item");
        assert_eq!(
            &out[..item.byte_len()],
            &body[start..end],
            "emit(item) != its bytes"
        );
        match item.payload() {
            Ok(_) => assert!(
                model::payload_fits(model_item.ext_type, item.data),
                "a payload the rules refuse: {model_item:?}"
            ),
            Err(CodecError::ExtendedItem { index, offset, .. }) => {
                assert!(
                    !model::payload_fits(model_item.ext_type, item.data),
                    "a payload the rules accept was refused: {model_item:?}"
                );
                assert_eq!((index, offset), (items.len(), model_item.offset));
            }
            Err(other) => panic!("payload: {other:?}"),
        }
        items.push(item);
    }
    let split = ExtendedAndUserData::new(flags, body).split();
    match end {
        model::ItemsEnd::UserData(at) => {
            assert!(walk.next().is_none(), "an item after the last one");
            assert!(walk.next().is_none());
            assert_eq!(walk.user_data(), Some(&body[at..]), "the user data");
            let (list, user_data) = split.expect("split of items the rules accept");
            assert_eq!(user_data, &body[at..]);
            assert_eq!(list.bytes(), &body[..at]);
            assert_eq!(list.len(), items.len());
            assert!(list.iter().eq(items.iter().copied()), "the list's items");
        }
        model::ItemsEnd::Fault {
            index,
            offset,
            fault,
        } => {
            let error = CodecError::ExtendedItem {
                index,
                offset,
                fault,
            };
            assert_eq!(walk.next(), Some(Err(error)), "the walk's fault");
            assert!(walk.next().is_none(), "the walk went on after a fault");
            assert_eq!(walk.user_data(), None);
            assert_eq!(split.map(|(list, _)| list.len()), Err(error), "split");
            assert!(error
                .to_string()
                .starts_with("EVENT_HEADER_EXTENDED_DATA_ITEM"));
        }
    }
}

/// The version-first header type of a walked event, if it is one.
fn version_first_wire(header_type: u8) -> Option<Wire> {
    use header_type::*;
    match header_type {
        SYSTEM32 | SYSTEM64 => Some(Wire::System),
        COMPACT32 | COMPACT64 => Some(Wire::Compact),
        PERFINFO32 | PERFINFO64 => Some(Wire::PerfInfo),
        _ => None,
    }
}

/// The error the model finds in a walked event whose header announces more than its `Size`
/// holds: extra words after a version-first header, fields after a message header.
fn expected_malformed(event: &Event<'_>) -> Option<CodecError> {
    let bytes = event.bytes;
    if let Some(wire) = version_first_wire(event.header_type.0) {
        let version = model::le16(bytes, 0);
        return model::extra_words(wire.layout(), version, &bytes[wire.header_len()..]).err();
    }
    if event.header_type.0 == header_type::MESSAGE {
        return model::message_fields(model::le16(bytes, 6), &bytes[8..]).err();
    }
    None
}

/// A version-first event's extra words and data against [`model::extra_words`]: the PEBS index
/// and counters the model reads, the words' bytes right after the fixed header, the data right
/// after them up to `Size`.
fn check_version_first(wire: Wire, event: &Event<'_>, extra: ExtraWords<'_>, data: &[u8]) {
    assert_eq!(
        version_first_wire(event.header_type.0),
        Some(wire),
        "{wire:?} kind for {event:?}"
    );
    let bytes = event.bytes;
    let body = &bytes[wire.header_len()..];
    let (pebs, counters, len) =
        model::extra_words(wire.layout(), model::le16(bytes, 0), body).expect("checked");
    assert_eq!(extra.pebs_index(), pebs, "PEBS index");
    assert_eq!(
        extra.pmc_counters().collect::<Vec<_>>(),
        counters,
        "PMC counters"
    );
    assert_eq!(extra.as_bytes(), &body[..len], "the words' bytes");
    assert_eq!(data.as_ptr(), body[len..].as_ptr(), "where the data starts");
    assert_eq!(data.len(), body.len() - len, "the data runs to Size");
}

/// The library's message fields against the model's.
pub fn check_message_fields(fields: &MessageFields, expected: &model::ModelFields) {
    let (guid, component_id) = match fields.message_guid {
        Some(MessageGuid::Guid(guid)) => (Some(guid), None),
        Some(MessageGuid::ComponentId(id)) => (None, Some(id)),
        None => (None, None),
    };
    let found = model::ModelFields {
        sequence: fields.sequence,
        guid,
        component_id,
        timestamp: fields.timestamp,
        thread_and_process: fields
            .system_info
            .map(|info| (info.thread_id, info.process_id)),
    };
    assert_eq!(&found, expected, "the message's optional fields");
}

/// The `EVENT_TRACE` a consumer of `bitness` must be delivered for a classic event, as bytes
/// (LAYOUTS §EVENT_TRACE and §EVENT_INSTANCE_GUID_HEADER, "byte-identical to the first 0x48
/// bytes of the consumer's EVENT_TRACE"):
/// - 0x00..0x30: the event's `EVENT_TRACE_HEADER` as stored;
/// - 0x30..0x48: `InstanceId`, `ParentInstanceId`, `ParentGuid` as stored for an instance event,
///   zero for a full-header event, which has none;
/// - `MofData`: where the data starts, from the start of the buffer (documented: the
///   consumer's pointer, as an offset), `MofLength`: `Size` minus the header;
/// - `BufferContext`: the buffer header's `ClientContext` (bytes 0x28..0x2C);
/// - the i686 tail padding zero ("a value built from fields has zero padding", LAYOUTS §Small
///   structs).
fn expected_event_trace(
    event: &WalkedEvent,
    event_bytes: &[u8],
    buffer_header: &[u8],
    bitness: Bitness,
) -> [u8; 0x58] {
    let header_len = if is_instance(event.header_type) {
        0x48
    } else {
        0x30
    };
    let tail = model::event_trace_tail(bitness);
    let mut out = [0u8; 0x58];
    out[..header_len].copy_from_slice(&event_bytes[..header_len]);
    let mof_data = (BUFFER_HEADER_LEN + event.offset + header_len) as u64;
    out[0x48..0x48 + tail.mof_data_width]
        .copy_from_slice(&mof_data.to_le_bytes()[..tail.mof_data_width]);
    let mof_length = (usize::from(event.size) - header_len) as u32;
    out[tail.mof_length_at..tail.mof_length_at + 4].copy_from_slice(&mof_length.to_le_bytes());
    out[tail.context_at..tail.context_at + 4].copy_from_slice(&buffer_header[0x28..0x2C]);
    out
}

/// Checks `classic_events(bitness)` and `deliver` against the rules, for the walk of the same
/// buffer (`walked`, ended by `end`); `buffer_header` is the buffer's 0x48 header bytes. Returns
/// the delivered events.
///
/// - `deliver` gives `None` for every event that is not FULL_HEADER32/64 or INSTANCE32/64, and
///   for a classic one the `EVENT_TRACE` whose bytes are [`expected_event_trace`], its data the
///   event's bytes after the header, its offset the event's;
/// - `classic_events` yields exactly those, in order, then the walk's error if it had one, then
///   `None` for ever.
pub fn check_classic<'a>(
    buffer: &TraceBuffer<'a>,
    buffer_header: &[u8],
    walked: &[Event<'a>],
    end: Option<ReadError>,
    bitness: Bitness,
) -> Vec<DeliveredEvent<'a>> {
    let mut delivered = Vec::new();
    for event in walked {
        let result = buffer.deliver(event, bitness);
        if !is_classic(event.header_type.0) {
            assert_eq!(result, None, "deliver of {event:?}");
            continue;
        }
        let walked_event = WalkedEvent {
            offset: event.offset,
            header_type: event.header_type.0,
            flags: event.marker_flags.0,
            size: event.size,
        };
        let expected = expected_event_trace(&walked_event, event.bytes, buffer_header, bitness);
        let one = result
            .expect("a classic event is delivered")
            .expect("no MofData offset of a fuzz input overflows 32 bits");
        let trace = one.event_trace;
        assert_eq!(trace.bitness(), bitness);
        assert_eq!(trace.to_bytes(), expected, "the EVENT_TRACE delivered");
        match trace {
            EventTrace::Bits32(trace) => model::check_event_trace32(&trace, &expected),
            EventTrace::Bits64(trace) => model::check_event_trace64(&trace, &expected),
        }
        assert_eq!(
            trace.mof_data(),
            model::event_trace_mof_data(&expected, bitness)
        );
        let tail = model::event_trace_tail(bitness);
        assert_eq!(trace.mof_length(), le32(&expected, tail.mof_length_at));
        model::check_buffer_context(&trace.buffer_context(), &expected, tail.context_at);
        model::check_event_instance_guid_header(&trace.instance_header(), &expected);
        model::check_event_trace_header(&trace.header(), &expected);
        let header_len = if is_instance(event.header_type.0) {
            0x48
        } else {
            0x30
        };
        assert_eq!(one.offset, event.offset);
        assert_eq!(one.data.as_ptr(), event.bytes[header_len..].as_ptr());
        assert_eq!(one.data.len(), event.bytes.len() - header_len);
        delivered.push(one);
    }

    let expected: Vec<Result<DeliveredEvent<'a>, ReadError>> = delivered
        .iter()
        .copied()
        .map(Ok)
        .chain(end.map(|error| Err(ReadError::new(buffer.position(), error.kind))))
        .collect();
    let mut classic = buffer.classic_events(bitness);
    let got: Vec<_> = classic.by_ref().collect();
    assert_eq!(got, expected, "classic_events differs from the walk");
    assert!(
        classic.next().is_none(),
        "classic_events went on after its end"
    );
    delivered
}

/// Walks one buffer whose 0x48 header bytes are `buffer_header`: its header decoded at the
/// offsets of its table, its events (as [`check_events`], and `TraceBuffer::events` is that walk
/// of its event bytes), the classic events of both bitnesses, and its instance events added to
/// `tree`.
pub fn check_buffer<const N: usize>(
    buffer: &TraceBuffer<'_>,
    buffer_header: &[u8],
    tree: &mut TreeCheck<N>,
) {
    model::check_wmi_buffer_header(&buffer.header, buffer_header);
    let bytes = buffer.event_bytes();
    let (walked, end) = check_events(bytes);
    let expected: Vec<Result<Event<'_>, ReadError>> = walked
        .iter()
        .copied()
        .map(Ok)
        .chain(end.map(|error| Err(ReadError::new(buffer.position(), error.kind))))
        .collect();
    assert!(
        buffer.events().eq(expected),
        "events() is not the walk of event_bytes()"
    );
    let _ = check_classic(buffer, buffer_header, &walked, end, Bitness::Bits32);
    let delivered = check_classic(buffer, buffer_header, &walked, end, Bitness::Bits64);
    let classic = walked
        .iter()
        .filter(|event| is_classic(event.header_type.0));
    for (event, one) in classic.zip(&delivered) {
        if is_instance(event.header_type.0) {
            tree.add(event.bytes, &one.event_trace.instance_header());
        }
    }
}

/// An `InstanceTree` checked against a model of what its documentation says `add` does, with
/// the keys read from the events' bytes.
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

    /// Adds one instance event, whose stored header bytes are `bytes` and whose decoded header
    /// is `header`, to the tree and to the model.
    ///
    /// - "InstanceId labels the event with its class GUID; ParentInstanceId + ParentGuid name
    ///   the parent" (LAYOUTS §Rules from the seeds): the instance is (`Guid` @0x18,
    ///   `InstanceId` @0x30), the parent (`ParentGuid` @0x38, `ParentInstanceId` @0x34), and
    ///   documented: a zero `ParentInstanceId` with a zero `ParentGuid` names no parent;
    /// - documented: a known instance counts one more event; the first parent named sticks, and
    ///   each later different one counts as a conflict; a new instance is added at the end, or,
    ///   when the tree holds `N` already, the call fails with `InstanceTreeFull` and leaves the
    ///   tree unchanged.
    pub fn add(&mut self, bytes: &[u8], header: &EventInstanceGuidHeader) {
        let key = InstanceKey {
            class_guid: model::guid(bytes, 0x18),
            instance_id: le32(bytes, 0x30),
        };
        let parent_instance_id = le32(bytes, 0x34);
        let parent_guid = model::guid(bytes, 0x38);
        let parent = (parent_instance_id != 0 || parent_guid != Guid::NIL).then_some(InstanceKey {
            class_guid: parent_guid,
            instance_id: parent_instance_id,
        });
        assert_eq!(InstanceKey::of(header), key, "InstanceKey::of");
        assert_eq!(
            InstanceKey::parent_of(header),
            parent,
            "InstanceKey::parent_of"
        );

        let result = self.tree.add(header);
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
                assert_eq!(result, Err(InstanceTreeFull::new(N)));
            }
            None => {
                assert_eq!(result, Ok(key));
                // `InstanceNode` is non-exhaustive: the model takes the tree's new node once its
                // members are the documented ones.
                let node = *self.tree.nodes().last().expect("the node just added");
                assert_eq!(
                    (node.key, node.parent, node.events, node.conflicting_parents),
                    (key, parent, 1, 0),
                    "a new instance"
                );
                self.model.push(node);
            }
        }
        assert_eq!(
            self.tree.nodes(),
            &self.model[..],
            "the tree and its model differ"
        );
    }

    /// Every query of the tree against the model's nodes:
    /// - `get` finds each node by its key, and nothing for a key never added;
    /// - `parent` is the node whose key is the parent named, when that one was added;
    /// - `children` are the nodes naming the key as parent, in order; `roots` are the nodes
    ///   whose parent is not in the tree;
    /// - `depth` counts the parent steps up to a root, or is `None` when the chain loops.
    pub fn check_queries(&self) {
        let tree = &self.tree;
        let nodes = &self.model;
        let find = |key: InstanceKey| nodes.iter().find(|node| node.key == key);
        for node in nodes {
            assert_eq!(tree.get(node.key), Some(node));
            assert_eq!(tree.parent(node.key), node.parent.and_then(find));
            assert!(tree
                .children(node.key)
                .eq(nodes.iter().filter(|other| other.parent == Some(node.key))));

            // Up the chain of parents; more steps than nodes means a loop.
            let mut steps = 0;
            let mut at = node;
            let expected_depth = loop {
                match at.parent.and_then(find) {
                    None => break Some(steps),
                    Some(_) if steps == nodes.len() => break None,
                    Some(up) => {
                        steps += 1;
                        at = up;
                    }
                }
            };
            assert_eq!(
                tree.depth(node.key),
                expected_depth,
                "depth of {:?}",
                node.key
            );
        }
        assert!(tree.roots().eq(nodes
            .iter()
            .filter(|node| node.parent.and_then(find).is_none())));

        // A key never added.
        let absent = (0..=nodes.len() as u32)
            .map(|instance_id| InstanceKey {
                class_guid: Guid::NIL,
                instance_id,
            })
            .find(|key| find(*key).is_none())
            .expect("one of len + 1 keys is absent");
        assert_eq!(tree.get(absent), None);
        assert_eq!(tree.parent(absent), None);
        assert_eq!(tree.depth(absent), None);
        assert!(tree
            .children(absent)
            .eq(nodes.iter().filter(|node| node.parent == Some(absent))));
    }
}
