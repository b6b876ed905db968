//! The `arbitrary` feature: values built by `arbitrary::Arbitrary` from random bytes encode and
//! decode back to themselves (`from_bytes(to_bytes(v)) == v`), as every value of a fixed layout
//! must, whatever its members hold.

use arbitrary::{Arbitrary, Unstructured};
use etw_classic::{
    wire::{
        EventInstanceInfo32, EventInstanceInfo64, EventTrace32, EventTrace64, ExtendedInstance,
        ExtendedItemHeader, StackKey32, StackKey64, TimeZoneInformation, TraceLogfileHeader32,
        TraceLogfileHeader64,
    },
    Bitness, Class, CompactTraceHeader, EventHeader, EventInstanceGuidHeader, EventInstanceHeader,
    EventTrace, EventTraceHeader, Guid, MessageTraceHeader, MofField, PerfInfoTraceHeader,
    SystemTraceHeader, TraceLogfileHeader, WmiBufferHeader,
};
use proptest::prelude::*;

/// Builds one value of each listed type from `u` and checks that it survives `to_bytes` then
/// `from_bytes`; returns how many types were checked (a type whose construction ran out of
/// bytes is not).
macro_rules! check_types {
    ($u:expr; $($type:ty),+ $(,)?) => {{
        let mut checked = 0usize;
        $(
            if let Ok(value) = <$type>::arbitrary($u) {
                assert_eq!(
                    <$type>::from_bytes(&value.to_bytes()),
                    value,
                    concat!(stringify!($type), ": from_bytes(to_bytes(v)) != v")
                );
                checked += 1;
            }
        )+
        checked
    }};
}

/// Every fixed layout, the enums that choose a layout by bitness, `Guid` and `Class`, from `u`.
/// Returns how many values were checked.
fn check_all(u: &mut Unstructured<'_>) -> usize {
    let mut checked = check_types!(u;
        EventTraceHeader,
        EventInstanceHeader,
        EventInstanceGuidHeader,
        EventTrace32,
        EventTrace64,
        EventInstanceInfo32,
        EventInstanceInfo64,
        MofField,
        WmiBufferHeader,
        SystemTraceHeader,
        CompactTraceHeader,
        PerfInfoTraceHeader,
        MessageTraceHeader,
        TraceLogfileHeader32,
        TraceLogfileHeader64,
        TimeZoneInformation,
        EventHeader,
        ExtendedItemHeader,
        ExtendedInstance,
        StackKey32,
        StackKey64,
    );

    // The enums decode in the layout of a bitness.
    if let Ok(value) = EventTrace::arbitrary(u) {
        assert_eq!(
            EventTrace::from_bytes(&value.to_bytes(), value.bitness()),
            value
        );
        checked += 1;
    }
    if let Ok(value) = TraceLogfileHeader::arbitrary(u) {
        let mut bytes = [0u8; TraceLogfileHeader64::LEN];
        let rest = value.emit(&mut bytes).unwrap();
        let used = TraceLogfileHeader64::LEN - rest.len();
        let (back, _) = TraceLogfileHeader::parse(&bytes[..used], value.bitness()).unwrap();
        assert_eq!(back, value);
        checked += 1;
    }
    // `Guid` as Windows lays it out in memory; `Class` as its packed `u32`.
    if let Ok(value) = Guid::arbitrary(u) {
        assert_eq!(Guid::from_bytes_le(value.to_bytes_le()), value);
        checked += 1;
    }
    if let Ok(value) = Class::arbitrary(u) {
        assert_eq!(Class::from(u32::from(value)), value);
        checked += 1;
    }
    if let Ok(bitness) = Bitness::arbitrary(u) {
        assert!(matches!(bitness, Bitness::Bits32 | Bitness::Bits64));
        checked += 1;
    }
    checked
}

/// The number of checks `check_all` makes when no construction runs out of bytes.
const ALL: usize = 26;

/// 64 KiB of bytes from a fixed-seed SplitMix64: enough for every type, so every check runs.
#[test]
fn every_type_from_plenty_of_random_bytes() {
    let mut state = 0x5EED_0FE7_C1A5_5100_u64;
    let bytes: Vec<u8> = (0..8192)
        .flat_map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)).to_le_bytes()
        })
        .collect();
    let mut u = Unstructured::new(&bytes);
    let mut rounds = 0;
    while u.len() > 2048 {
        assert_eq!(check_all(&mut u), ALL);
        rounds += 1;
    }
    assert!(rounds >= 20, "{rounds} rounds");
}

proptest! {
    /// Any bytes, however few: what gets built round-trips.
    #[test]
    fn values_from_any_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let mut u = Unstructured::new(&bytes);
        let checked = check_all(&mut u);
        prop_assert!(checked <= ALL);
    }
}
