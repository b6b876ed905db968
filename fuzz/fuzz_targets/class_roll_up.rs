//! The `Class` / `Version` union: the roll-up and the members convert losslessly both ways.
#![no_main]

use etw_classic::{Class, EventType, Level};
use libfuzzer_sys::fuzz_target;

fn check(roll_up: u32) {
    let class = Class::from_roll_up(roll_up);
    assert_eq!(class.roll_up(), roll_up, "roll_up(from_roll_up(x)) != x");
    assert_eq!(
        Class::from(roll_up),
        class,
        "Class::from disagrees with from_roll_up"
    );
    assert_eq!(
        u32::from(class),
        roll_up,
        "u32::from disagrees with roll_up"
    );

    // Low byte Type, next byte Level, high 16 bits Version, whatever the host's byte order.
    let [event_type, level, version_low, version_high] = roll_up.to_le_bytes();
    assert_eq!(class.event_type, EventType(event_type));
    assert_eq!(class.level, Level(level));
    assert_eq!(
        class.version,
        u16::from_le_bytes([version_low, version_high])
    );
    assert_eq!(
        Class::new(EventType(event_type), Level(level), class.version),
        class
    );
}

fuzz_target!(|data: &[u8]| {
    // Every whole 4-byte group is one roll-up; the first is the one the seeds aim at.
    for chunk in data.chunks_exact(4) {
        check(u32::from_le_bytes(chunk.try_into().expect("4 bytes")));
    }
});
