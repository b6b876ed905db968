//! Laws of the payload decoder over random TraceLogging events: metadata and data are written
//! here by an encoder built from the layout rules of PAYLOADS.md §2 (TraceLoggingProvider.h,
//! "How to encode metadata"), independently of the crate's reader, with random types, counts,
//! tags and nesting; the crate must read back every name, type, count and value, in order.

use etw_classic::payload::{
    Count, FieldSchema, InType, ItemKind, Length, PayloadDecoder, TraceLoggingEvent, Value,
};
use etw_classic::wire::{Guid, Utf16Str};
use etw_classic::Bitness;
use proptest::prelude::*;

/// A small deterministic generator, so that one proptest seed gives one event.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// The TraceLogging types the model writes (TlgIn values, PAYLOADS.md §2 table).
const SCALARS: [u8; 22] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 22, 23,
];
const TLG_COUNTED_BINARY: u8 = 25;
const TLG_STRUCT: u8 = 24;

#[derive(Clone, Debug)]
enum CountKind {
    One,
    Fixed(u16),
    Variable,
}

#[derive(Clone, Debug)]
enum Shape {
    Scalar(u8),
    Struct(Vec<FieldModel>),
}

#[derive(Clone, Debug)]
struct FieldModel {
    name: String,
    shape: Shape,
    count: CountKind,
    out: Option<u8>,
    tags: u32,
}

/// What the decoder must yield for one item: the field's name and the kind.
#[derive(Clone, Debug, PartialEq)]
enum Expected {
    Value(String, ExpectedValue),
    ArrayStart(String, u32),
    ArrayEnd(String),
    StructStart(String),
    StructEnd(String),
}

#[derive(Clone, Debug, PartialEq)]
enum ExpectedValue {
    Int(i128),
    Bits(u64),
    Text(String),
    Bytes(Vec<u8>),
    Guid([u8; 16]),
    Sid(Vec<u8>),
}

fn gen_field(rng: &mut Rng, depth: usize, index: &mut usize) -> FieldModel {
    *index += 1;
    let name = format!("f{index}");
    let shape = if depth < 3 && rng.below(6) == 0 {
        let members = 1 + rng.below(3) as usize;
        Shape::Struct(
            (0..members)
                .map(|_| gen_field(rng, depth + 1, index))
                .collect(),
        )
    } else if rng.below(12) == 0 {
        Shape::Scalar(TLG_COUNTED_BINARY)
    } else {
        Shape::Scalar(SCALARS[rng.below(SCALARS.len() as u64) as usize])
    };
    let count = match rng.below(5) {
        0 => CountKind::Fixed(rng.below(4) as u16),
        1 => CountKind::Variable,
        _ => CountKind::One,
    };
    let out = match (&shape, rng.below(3)) {
        (Shape::Struct(_), _) => None,
        (_, 0) => Some(rng.below(19) as u8),
        _ => None,
    };
    let tags = if rng.below(4) == 0 {
        rng.below(1 << 28) as u32
    } else {
        0
    };
    FieldModel {
        name,
        shape,
        count,
        out,
        tags,
    }
}

/// Tag bytes: 7 bits each, high bits first, bit 7 set on all but the last; trailing zero groups
/// left out.
fn tag_bytes(tags: u32) -> Vec<u8> {
    let groups = [
        (tags >> 21) & 0x7F,
        (tags >> 14) & 0x7F,
        (tags >> 7) & 0x7F,
        tags & 0x7F,
    ];
    let used = groups
        .iter()
        .rposition(|g| *g != 0)
        .map_or(1, |last| last + 1);
    (0..used)
        .map(|i| groups[i] as u8 | if i + 1 < used { 0x80 } else { 0 })
        .collect()
}

fn write_metadata(field: &FieldModel, out: &mut Vec<u8>) {
    out.extend_from_slice(field.name.as_bytes());
    out.push(0);
    let (type_code, out_byte) = match &field.shape {
        Shape::Scalar(code) => (*code, field.out),
        Shape::Struct(members) => (TLG_STRUCT, Some(members.len() as u8)),
    };
    let count_flag = match field.count {
        CountKind::One => 0,
        CountKind::Fixed(_) => 0x20,
        CountKind::Variable => 0x40,
    };
    let has_tags = field.tags != 0;
    let out_byte = match (out_byte, has_tags) {
        (Some(out), true) => Some(out | 0x80),
        (None, true) => Some(0x80),
        (out, false) => out,
    };
    out.push(type_code | count_flag | if out_byte.is_some() { 0x80 } else { 0 });
    if let Some(byte) = out_byte {
        out.push(byte);
        if has_tags {
            out.extend(tag_bytes(field.tags));
        }
    }
    if let CountKind::Fixed(n) = field.count {
        out.extend_from_slice(&n.to_le_bytes());
    }
    if let Shape::Struct(members) = &field.shape {
        for member in members {
            write_metadata(member, out);
        }
    }
}

fn text(rng: &mut Rng) -> String {
    let len = rng.below(6) as usize;
    (0..len)
        .map(|_| ['a', 'Z', '0', 'é', '€', '𝄞'][rng.below(6) as usize])
        .collect()
}

/// Writes one value of TlgIn `code` to `data` and says what the decoder must give for it.
fn write_value(rng: &mut Rng, code: u8, data: &mut Vec<u8>) -> ExpectedValue {
    let fixed = |data: &mut Vec<u8>, bytes: Vec<u8>| {
        data.extend_from_slice(&bytes);
        bytes
    };
    match code {
        1 => {
            let s = text(rng);
            for unit in s.encode_utf16() {
                data.extend_from_slice(&unit.to_le_bytes());
            }
            data.extend_from_slice(&[0, 0]);
            ExpectedValue::Text(s)
        }
        2 => {
            let s = text(rng);
            data.extend_from_slice(s.as_bytes());
            data.push(0);
            ExpectedValue::Bytes(s.into_bytes())
        }
        3 => ExpectedValue::Int(i128::from(fixed(data, rng.bytes(1))[0] as i8)),
        4 => ExpectedValue::Int(i128::from(fixed(data, rng.bytes(1))[0])),
        5 => ExpectedValue::Int(i128::from(i16::from_le_bytes(
            fixed(data, rng.bytes(2)).try_into().unwrap(),
        ))),
        6 => ExpectedValue::Int(i128::from(u16::from_le_bytes(
            fixed(data, rng.bytes(2)).try_into().unwrap(),
        ))),
        7 => ExpectedValue::Int(i128::from(i32::from_le_bytes(
            fixed(data, rng.bytes(4)).try_into().unwrap(),
        ))),
        8 | 13 | 20 => ExpectedValue::Int(i128::from(u32::from_le_bytes(
            fixed(data, rng.bytes(4)).try_into().unwrap(),
        ))),
        9 => ExpectedValue::Int(i128::from(i64::from_le_bytes(
            fixed(data, rng.bytes(8)).try_into().unwrap(),
        ))),
        10 | 17 | 21 => ExpectedValue::Int(i128::from(u64::from_le_bytes(
            fixed(data, rng.bytes(8)).try_into().unwrap(),
        ))),
        11 => ExpectedValue::Bits(u64::from(u32::from_le_bytes(
            fixed(data, rng.bytes(4)).try_into().unwrap(),
        ))),
        12 => ExpectedValue::Bits(u64::from_le_bytes(
            fixed(data, rng.bytes(8)).try_into().unwrap(),
        )),
        15 => ExpectedValue::Guid(fixed(data, rng.bytes(16)).try_into().unwrap()),
        18 => ExpectedValue::Bytes(fixed(data, rng.bytes(16))),
        19 => {
            let count = rng.below(6) as u8;
            let mut sid = vec![1, count];
            sid.extend(rng.bytes(6 + 4 * usize::from(count)));
            data.extend_from_slice(&sid);
            ExpectedValue::Sid(sid)
        }
        14 | 23 | 25 => {
            let len = rng.below(7) as usize;
            let bytes = rng.bytes(len);
            data.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
            data.extend_from_slice(&bytes);
            ExpectedValue::Bytes(bytes)
        }
        22 => {
            let s = text(rng);
            let units: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
            data.extend_from_slice(&(units.len() as u16).to_le_bytes());
            data.extend_from_slice(&units);
            ExpectedValue::Text(s)
        }
        other => unreachable!("type {other} is not written"),
    }
}

fn write_field(
    rng: &mut Rng,
    field: &FieldModel,
    data: &mut Vec<u8>,
    expected: &mut Vec<Expected>,
) {
    let name = field.name.clone();
    let elements = match field.count {
        CountKind::One => None,
        CountKind::Fixed(n) => Some(n),
        CountKind::Variable => {
            let n = rng.below(4) as u16;
            data.extend_from_slice(&n.to_le_bytes());
            Some(n)
        }
    };
    if let Some(n) = elements {
        expected.push(Expected::ArrayStart(name.clone(), u32::from(n)));
    }
    for _ in 0..elements.unwrap_or(1) {
        match &field.shape {
            Shape::Scalar(code) => {
                let value = write_value(rng, *code, data);
                expected.push(Expected::Value(name.clone(), value));
            }
            Shape::Struct(members) => {
                expected.push(Expected::StructStart(name.clone()));
                for member in members {
                    write_field(rng, member, data, expected);
                }
                expected.push(Expected::StructEnd(name.clone()));
            }
        }
    }
    if elements.is_some() {
        expected.push(Expected::ArrayEnd(name));
    }
}

/// What the decoder gave, in the model's terms.
fn observed(value: Value<'_>) -> ExpectedValue {
    match value {
        Value::I8(v) => ExpectedValue::Int(v.into()),
        Value::U8(v) => ExpectedValue::Int(v.into()),
        Value::I16(v) => ExpectedValue::Int(v.into()),
        Value::U16(v) => ExpectedValue::Int(v.into()),
        Value::I32(v) => ExpectedValue::Int(v.into()),
        Value::U32(v) | Value::Bool(v) | Value::HexInt32(v) => ExpectedValue::Int(v.into()),
        Value::I64(v) => ExpectedValue::Int(v.into()),
        Value::U64(v) | Value::HexInt64(v) | Value::FileTime(v) => ExpectedValue::Int(v.into()),
        Value::F32(v) => ExpectedValue::Bits(u64::from(v.to_bits())),
        Value::F64(v) => ExpectedValue::Bits(v.to_bits()),
        Value::Guid(guid) => ExpectedValue::Guid(guid.to_bytes_le()),
        Value::SystemTime(time) => ExpectedValue::Bytes(time.to_bytes().to_vec()),
        Value::Sid(sid) => {
            let mut bytes = vec![sid.revision, sid.sub_authority_count];
            bytes.extend_from_slice(&sid.identifier_authority);
            bytes.extend(sid.sub_authorities.flat_map(u32::to_le_bytes));
            ExpectedValue::Sid(bytes)
        }
        Value::Utf16(text) => ExpectedValue::Text(text.chars().collect()),
        Value::Ansi(bytes) | Value::Binary(bytes) => ExpectedValue::Bytes(bytes.to_vec()),
        other => panic!("the model writes no {other:?}"),
    }
}

struct Event {
    metadata: Vec<u8>,
    data: Vec<u8>,
    expected: Vec<Expected>,
    models: Vec<FieldModel>,
    event_tags: u32,
}

fn gen_event(seed: u64) -> Event {
    let mut rng = Rng(seed);
    let mut index = 0;
    let count = rng.below(7) as usize;
    let models: Vec<FieldModel> = (0..count)
        .map(|_| gen_field(&mut rng, 0, &mut index))
        .collect();
    let event_tags = if rng.below(2) == 0 {
        rng.below(1 << 28) as u32
    } else {
        0
    };
    let mut body = tag_bytes(event_tags);
    body.extend_from_slice(b"Random\0");
    for model in &models {
        write_metadata(model, &mut body);
    }
    let mut metadata = ((body.len() + 2) as u16).to_le_bytes().to_vec();
    metadata.extend(body);
    let mut data = Vec::new();
    let mut expected = Vec::new();
    for model in &models {
        write_field(&mut rng, model, &mut data, &mut expected);
    }
    Event {
        metadata,
        data,
        expected,
        models,
        event_tags,
    }
}

/// The names, tags and counts the metadata must give, in preorder.
fn preorder(models: &[FieldModel], out: &mut Vec<(String, u32, u16)>) {
    for model in models {
        let members = match &model.shape {
            Shape::Struct(members) => members.len() as u16,
            Shape::Scalar(_) => 0,
        };
        out.push((model.name.clone(), model.tags, members));
        if let Shape::Struct(members) = &model.shape {
            preorder(members, out);
        }
    }
}

type Walked = (
    Vec<Expected>,
    Vec<u8>,
    Option<etw_classic::payload::PayloadError>,
    usize,
);

/// Walks `data` with `fields`, the iterator's `next` (`by_iterator`) or the decoder's own
/// loop ([`PayloadDecoder::for_each_item`]).
fn walk(fields: &[FieldSchema<&str>], data: &[u8], by_iterator: bool) -> Walked {
    let mut decoder = PayloadDecoder::new(fields, data, Bitness::Bits64);
    let mut items = Vec::new();
    let mut bytes = Vec::new();
    let mut error = None;
    let mut take = |item: Result<etw_classic::payload::Item<'_, '_, &str>, _>| match item {
        Ok(item) => {
            bytes.extend_from_slice(item.bytes);
            let name = item.field.name.to_owned();
            items.push(match item.kind {
                ItemKind::Value(value) => Expected::Value(name, observed(value)),
                ItemKind::ArrayStart { len } => Expected::ArrayStart(name, len),
                ItemKind::ArrayEnd => Expected::ArrayEnd(name),
                ItemKind::StructStart => Expected::StructStart(name),
                ItemKind::StructEnd => Expected::StructEnd(name),
                other => panic!("unexpected {other:?}"),
            });
        }
        Err(e) => error = Some(e),
    };
    if by_iterator {
        decoder.by_ref().for_each(&mut take);
    } else {
        decoder.for_each_item(&mut take);
    }
    (items, bytes, error, decoder.offset())
}

/// The walk of `data` with `fields`, after checking that both ways of walking it give the
/// same items, bytes, error and end.
fn decode_all(fields: &[FieldSchema<&str>], data: &[u8]) -> Walked {
    let by_iterator = walk(fields, data, true);
    assert_eq!(
        walk(fields, data, false),
        by_iterator,
        "for_each_item and next differ"
    );
    by_iterator
}

proptest! {

    /// Metadata written from the rules reads back as the same names, tags and structure, and
    /// the data as the same values in the same order; the items' bytes are the data.
    #[test]
    fn random_events_decode_as_written(seed in any::<u64>()) {
        let event = gen_event(seed);
        let parsed = TraceLoggingEvent::parse(&event.metadata).unwrap();
        prop_assert_eq!(parsed.name, "Random");
        prop_assert_eq!(parsed.tags, event.event_tags);
        let fields: heapless::Vec<FieldSchema<&str>, 128> = parsed.collect_fields().unwrap();
        let mut names = Vec::new();
        preorder(&event.models, &mut names);
        let read: Vec<(String, u32, u16)> = fields
            .iter()
            .map(|f| (f.name.to_owned(), f.tags, f.members))
            .collect();
        prop_assert_eq!(read, names);
        let (items, bytes, error, offset) = decode_all(&fields, &event.data);
        prop_assert!(error.is_none(), "{:?}", error);
        prop_assert_eq!(items, event.expected);
        prop_assert_eq!(offset, event.data.len());
        prop_assert_eq!(bytes, event.data);
    }

    /// Cut anywhere, the data decodes to a prefix of the items, then either ends (the cut fell
    /// between top-level fields) or stops at an error whose offset is within the data; the
    /// items' bytes are still the data up to where the walk stands.
    #[test]
    fn cut_events_decode_a_prefix(seed in any::<u64>(), cut in any::<prop::sample::Index>()) {
        let event = gen_event(seed);
        let parsed = TraceLoggingEvent::parse(&event.metadata).unwrap();
        let fields: heapless::Vec<FieldSchema<&str>, 128> = parsed.collect_fields().unwrap();
        let cut = cut.index(event.data.len() + 1);
        let data = &event.data[..cut];
        let (items, bytes, error, offset) = decode_all(&fields, data);
        prop_assert!(items.len() <= event.expected.len());
        prop_assert_eq!(&items[..], &event.expected[..items.len()]);
        prop_assert_eq!(&bytes[..], &data[..offset]);
        if let Some(error) = error {
            prop_assert!(error.offset <= cut);
            prop_assert!(usize::from(error.field) < fields.len());
        }
    }

    /// Any bytes as metadata and data: no panic, errors name an offset inside what was given.
    #[test]
    fn any_bytes_never_panic(metadata in prop::collection::vec(any::<u8>(), 0..96), data in prop::collection::vec(any::<u8>(), 0..96)) {
        match TraceLoggingEvent::parse(&metadata) {
            Ok(event) => {
                let collected: Result<heapless::Vec<FieldSchema<&str>, 64>, _> = event.collect_fields();
                match collected {
                    Ok(fields) => {
                        let (_, bytes, error, offset) = decode_all(&fields, &data);
                        prop_assert_eq!(&bytes[..], &data[..offset]);
                        if let Some(error) = error {
                            prop_assert!(error.offset <= data.len());
                        }
                    }
                    Err(error) => prop_assert!(error.offset <= metadata.len()),
                }
            }
            Err(error) => prop_assert!(error.offset <= metadata.len()),
        }
    }
}

/// A count names the latest of the sixteen integer fields kept: after twenty `UINT8`s (values
/// 0 to 19), a count taken from field 18 is 18, the same through both walks, while field 2 is
/// no longer kept and is reported as missing rather than read wrong.
#[test]
fn counts_from_the_sixteen_latest_integer_fields() {
    let names: Vec<String> = (0..20).map(|index| format!("N{index}")).collect();
    let mut fields: Vec<FieldSchema<&str>> = names
        .iter()
        .map(|name| FieldSchema::new(name.as_str(), InType::UINT8))
        .collect();
    fields.push(FieldSchema::new("Bytes", InType::UINT8).with_count(Count::FromField(18)));
    let mut data: Vec<u8> = (0..20).collect();
    data.extend([0xaa; 18]);
    let (items, bytes, error, offset) = decode_all(&fields, &data);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(items[20], Expected::ArrayStart("Bytes".to_owned(), 18));
    assert_eq!((bytes, offset), (data.clone(), data.len()));

    fields[20] = FieldSchema::new("Bytes", InType::UINT8).with_count(Count::FromField(2));
    let (_, _, error, offset) = decode_all(&fields, &data);
    let error = error.expect("field 2 is no longer kept");
    assert_eq!((error.field, error.offset, offset), (20, 20, 20));
    assert_eq!(
        error.kind,
        etw_classic::payload::PayloadErrorKind::MissingReference { names: 2 }
    );
}

proptest! {
    /// The integers a walk keeps for counts and lengths stop at the last field whose count or
    /// length names one (`last_reference`): random flat schemas of integers, strings and
    /// arrays whose counts and lengths name random fields (earlier, later, not integers), over
    /// random bytes, walk the same as when every integer is kept.
    #[test]
    fn keeping_integers_up_to_the_last_reference_changes_no_walk(
        seed in any::<u64>(),
        data in prop::collection::vec(0u8..6, 0..48),
    ) {
        let mut rng = Rng(seed);
        let len = 1 + rng.below(24) as usize;
        let fields: Vec<FieldSchema<&str>> = (0..len)
            .map(|_| {
                let names = rng.below(len as u64) as u16;
                match rng.below(6) {
                    0 => FieldSchema::new("u8", InType::UINT8),
                    1 => FieldSchema::new("u16", InType::UINT16),
                    2 => FieldSchema::new("text", InType::ANSI_STRING)
                        .with_length(Length::FromField(names)),
                    3 => FieldSchema::new("array", InType::UINT8)
                        .with_count(Count::FromField(names)),
                    4 => FieldSchema::new("binary", InType::BINARY)
                        .with_length(Length::FromField(names)),
                    _ => FieldSchema::new("ptr", InType::POINTER),
                }
            })
            .collect();
        let bound = etw_classic::payload::last_reference(&fields);
        let names_a_field = |field: &FieldSchema<&str>| {
            matches!(field.count, Count::FromField(_))
                || matches!(field.length, Length::FromField(_))
        };
        let after = fields.get(bound + 1..).unwrap_or_default();
        prop_assert!(!after.iter().any(names_a_field), "a reference after {}", bound);
        let every = PayloadDecoder::with_last_reference(&fields, &data, Bitness::Bits32, len);
        let bounded = PayloadDecoder::new(&fields, &data, Bitness::Bits32);
        prop_assert_eq!(list_walk(bounded, true), list_walk(every, true));
    }
}

/// Counts and lengths taken from earlier fields, as manifests and MOF classes give them: a
/// UTF-16 string of `Length` characters and an array of `Count` GUIDs.
#[test]
fn counts_and_lengths_from_fields() {
    let fields = [
        FieldSchema::new("Length", InType::UINT16),
        FieldSchema::new("Name", InType::UNICODE_STRING).with_length(Length::FromField(0)),
        FieldSchema::new("Count", InType::UINT8),
        FieldSchema::new("Ids", InType::GUID).with_count(Count::FromField(2)),
    ];
    etw_classic::payload::check_fields(&fields).unwrap();
    let guid = Guid::from_fields(1, 2, 3, [4; 8]);
    let mut data = vec![3, 0];
    data.extend("abc".encode_utf16().flat_map(u16::to_le_bytes));
    data.push(2);
    data.extend(guid.to_bytes_le());
    data.extend(guid.to_bytes_le());
    let items: Vec<_> = PayloadDecoder::new(&fields, &data, Bitness::Bits32)
        .collect::<Result<_, _>>()
        .unwrap();
    let kinds: Vec<_> = items.iter().map(|item| item.kind).collect();
    assert_eq!(
        kinds,
        [
            ItemKind::Value(Value::U16(3)),
            ItemKind::Value(Value::Utf16(Utf16Str::from_units(&[0x61, 0x62, 0x63]))),
            ItemKind::Value(Value::U8(2)),
            ItemKind::ArrayStart { len: 2 },
            ItemKind::Value(Value::Guid(guid)),
            ItemKind::Value(Value::Guid(guid)),
            ItemKind::ArrayEnd,
        ]
    );
    // A count larger than the bytes left is refused before anything is sized from it.
    let mut short = data.clone();
    short[8] = 200;
    let error = PayloadDecoder::new(&fields, &short[..9 + 16], Bitness::Bits32)
        .find_map(Result::err)
        .unwrap();
    assert_eq!(error.field, 3);
    assert_eq!(error.offset, 9);
    assert_eq!(
        error.named(&fields).to_string(),
        "field `Ids` at data offset 9: 200 elements of 16 bytes do not fit in the 16 bytes left"
    );
}

/// The kernel's SID (`extension("Sid")`): 0 is four bytes and no SID; otherwise a TOKEN_USER
/// of two pointers, then the SID (PAYLOADS.md §5).
#[test]
fn wbem_sid_by_pointer_size() {
    let fields = [
        FieldSchema::new("UserSID", InType::WBEM_SID),
        FieldSchema::new("After", InType::UINT8),
    ];
    let none = [0, 0, 0, 0, 7];
    let items: Vec<_> = PayloadDecoder::new(&fields, &none, Bitness::Bits64)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(items[0].kind, ItemKind::Value(Value::NoSid));
    assert_eq!(items[1].kind, ItemKind::Value(Value::U8(7)));
    // S-1-5-18 (LocalSystem) behind a 32-bit TOKEN_USER.
    let mut data = vec![0x10, 0x20, 0x30, 0x40, 0, 0, 0, 0];
    data.extend([1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0, 9]);
    let items: Vec<_> = PayloadDecoder::new(&fields, &data, Bitness::Bits32)
        .collect::<Result<_, _>>()
        .unwrap();
    let ItemKind::Value(Value::Sid(sid)) = items[0].kind else {
        panic!("{:?}", items[0])
    };
    assert_eq!(sid.to_string(), "S-1-5-18");
    assert_eq!(items[1].kind, ItemKind::Value(Value::U8(9)));
}

/// What one walk of an event gave: each item's field index, element, offset, bytes and kind
/// (as printed), then the error, and where the walk stands.
type Listed = (
    Vec<(u16, Option<u32>, usize, Vec<u8>, String)>,
    Option<etw_classic::payload::PayloadError>,
    usize,
);

/// Walks `data` with `fields` at `bitness` by `next` (`by_iterator`) or by `for_each_item`.
fn list(fields: &[FieldSchema<&str>], data: &[u8], bitness: Bitness, by_iterator: bool) -> Listed {
    list_walk(PayloadDecoder::new(fields, data, bitness), by_iterator)
}

/// [`list`] of the walk `decoder` makes.
fn list_walk(mut decoder: PayloadDecoder<'_, '_, &str>, by_iterator: bool) -> Listed {
    let mut items = Vec::new();
    let mut error = None;
    let mut take = |item: Result<etw_classic::payload::Item<'_, '_, &str>, _>| match item {
        Ok(item) => items.push((
            item.index,
            item.element,
            item.offset,
            item.bytes.to_vec(),
            format!("{:?}", item.kind),
        )),
        Err(e) => error = Some(e),
    };
    if by_iterator {
        decoder.by_ref().for_each(&mut take);
    } else {
        decoder.for_each_item(&mut take);
    }
    (items, error, decoder.offset())
}

/// Arrays of the element types read a run at a time (`UINT32`, `UINT64`, 8-byte pointers and
/// `SIZE_T`s) and of others read one by one (4-byte pointers, `HEXINT64`, `UINT16`), whole and
/// cut at every byte: both walks agree item for item; whole, each element is the number
/// written, at its offset; cut, the array's count is refused before any element is read.
#[test]
fn arrays_of_fixed_size_values_whole_and_cut() {
    use etw_classic::payload::PayloadErrorKind;
    let cases = [
        (InType::UINT32, Bitness::Bits64, 4u8),
        (InType::UINT64, Bitness::Bits64, 8),
        (InType::POINTER, Bitness::Bits64, 8),
        (InType::SIZET, Bitness::Bits64, 8),
        (InType::POINTER, Bitness::Bits32, 4),
        (InType::HEXINT64, Bitness::Bits64, 8),
        (InType::UINT16, Bitness::Bits64, 2),
    ];
    for (in_type, bitness, size) in cases {
        let fields = [
            FieldSchema::new("Count", InType::UINT8),
            FieldSchema::new("Values", in_type).with_count(Count::FromField(0)),
            FieldSchema::new("After", InType::UINT8),
        ];
        let width = usize::from(size);
        let mut data = vec![5u8];
        let mut written = Vec::new();
        for element in 1..=5u64 {
            let bytes = 0x0807_0605_0403_0201u64.wrapping_mul(element).to_le_bytes();
            let mut number = [0u8; 8];
            number[..width].copy_from_slice(&bytes[..width]);
            written.push((1 + written.len() * width, u64::from_le_bytes(number)));
            data.extend_from_slice(&bytes[..width]);
        }
        data.push(0x7f);
        let end_of_values = 1 + 5 * width;
        for cut in 0..=data.len() {
            let data = &data[..cut];
            let by_next = list(&fields, data, bitness, true);
            assert_eq!(
                list(&fields, data, bitness, false),
                by_next,
                "{in_type:?} cut at {cut}: for_each_item and next differ"
            );
            let (items, error, _) = by_next;
            let elements: Vec<(usize, u64, String)> = items
                .iter()
                .filter(|(index, element, ..)| *index == 1 && element.is_some())
                .map(|(_, _, offset, bytes, kind)| {
                    let mut number = [0u8; 8];
                    number[..bytes.len()].copy_from_slice(bytes);
                    (*offset, u64::from_le_bytes(number), kind.clone())
                })
                .collect();
            let whole = if cut >= end_of_values { 5 } else { 0 };
            let read: Vec<(usize, u64)> = elements.iter().map(|(at, n, _)| (*at, *n)).collect();
            assert_eq!(read, written[..whole], "{in_type:?} cut at {cut}");
            // Each element's kind says the same number.
            for (_, number, kind) in &elements {
                assert!(kind.contains(&number.to_string()), "{in_type:?}: {kind}");
            }
            let error = error.map(|error| (error.field, error.element, error.offset, error.kind));
            let expected = match cut {
                0 => Some((
                    0,
                    None,
                    0,
                    PayloadErrorKind::TooShort { needed: 1, left: 0 },
                )),
                cut if cut < end_of_values => Some((
                    1,
                    None,
                    1,
                    PayloadErrorKind::CountTooLarge {
                        count: 5,
                        element_size: size,
                        left: cut - 1,
                    },
                )),
                cut if cut == end_of_values => Some((
                    2,
                    None,
                    cut,
                    PayloadErrorKind::TooShort { needed: 1, left: 0 },
                )),
                _ => None,
            };
            assert_eq!(error, expected, "{in_type:?} cut at {cut}");
        }
    }
}
