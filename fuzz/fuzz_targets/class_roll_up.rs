//! The `Class` / `Version` union: the roll-up and the members convert losslessly both ways, and
//! both agree with the bytes of the union as a header stores them.
//!
//! The rule (LAYOUTS §EVENT_TRACE_HEADER, row 0x04): the four bytes at 0x04 are `Version`, a
//! little-endian `u32`, and also `Class`: "byte 0x04 Class.Type, 0x05 Class.Level, 0x06..0x08
//! Class.Version (u16)". Each whole 4-byte group of the input is one such union, as stored.
#![no_main]

use etw_classic::{Class, EventTraceHeader, EventType, Level};
use libfuzzer_sys::fuzz_target;

fn check(stored: [u8; 4]) {
    // The model: the union's views read from its bytes.
    let version = u32::from_le_bytes(stored);
    let class_type = stored[0];
    let class_level = stored[1];
    let class_version = u16::from_le_bytes([stored[2], stored[3]]);

    let class = Class::from_roll_up(version);
    assert_eq!(class.event_type, EventType(class_type), "Class.Type");
    assert_eq!(class.level, Level(class_level), "Class.Level");
    assert_eq!(class.version, class_version, "Class.Version");
    assert_eq!(class.roll_up(), version, "roll_up(from_roll_up(x)) != x");
    assert_eq!(Class::from(version), class, "Class::from disagrees");
    assert_eq!(u32::from(class), version, "u32::from disagrees");
    assert_eq!(
        Class::new(EventType(class_type), Level(class_level), class_version),
        class,
        "Class::new disagrees"
    );

    // The same four bytes at offset 0x04 of a stored EVENT_TRACE_HEADER.
    let mut header = [0u8; EventTraceHeader::LEN];
    header[0x04..0x08].copy_from_slice(&stored);
    let decoded = EventTraceHeader::from_bytes(&header);
    assert_eq!(decoded.class, class, "Class decoded at 0x04");
    assert_eq!(
        decoded.to_bytes()[0x04..0x08],
        stored,
        "Class encoded at 0x04"
    );
}

fuzz_target!(|data: &[u8]| {
    // Every whole 4-byte group is one union; the first is the one the seeds aim at.
    for chunk in data.chunks_exact(4) {
        check([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
});
