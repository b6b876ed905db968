//! Laws of the tables: every schema is valid, every class is sorted for the binary search and
//! holds no key twice, and the events whose last array runs to the end of the data have only
//! fixed-size fields before it.

extern crate std;

use super::*;
use crate::payload::schema::check_fields;
use std::string::ToString;

#[test]
fn every_schema_is_valid() {
    for class in &CLASSES {
        for event in class.events {
            assert_eq!(
                event.class, class.guid,
                "{} {}",
                class.name, event.mof_class
            );
            assert_eq!(check_fields(event.fields), Ok(()), "{}", event.mof_class);
        }
    }
}

#[test]
fn classes_are_sorted_by_type_then_version_without_repeats() {
    for class in &CLASSES {
        for pair in class.events.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(
                (a.event_type, a.version) < (b.event_type, b.version),
                "{}: type {} version {} before type {} version {}",
                class.name,
                a.event_type,
                a.version,
                b.event_type,
                b.version
            );
        }
        for event in class.events {
            assert_eq!(
                lookup(class.guid, event.event_type, u16::from(event.version)),
                Some(event)
            );
        }
    }
}

#[test]
fn class_guids_are_distinct() {
    for (index, class) in CLASSES.iter().enumerate() {
        for other in &CLASSES[index + 1..] {
            assert_ne!(class.guid, other.guid, "{} and {}", class.name, other.name);
        }
    }
}

#[test]
fn tails_are_fixed_size_before_the_last_array() {
    let mut tails = 0;
    for class in &CLASSES {
        for event in class
            .events
            .iter()
            .filter(|e| e.tail == Tail::LastArrayToEnd)
        {
            tails += 1;
            assert!(event.fields.len() <= MAX_TAIL_FIELDS, "{}", event.mof_class);
            let (last, head) = event.fields.split_last().unwrap();
            assert!(matches!(last.count, Count::Fixed(_)));
            for bitness in [Bitness::Bits32, Bitness::Bits64] {
                let pointer = if bitness == Bitness::Bits32 { 4 } else { 8 };
                let before: usize = head
                    .iter()
                    .map(|f| usize::from(f.in_type.fixed_size(pointer).unwrap()))
                    .sum();
                for frames in [0usize, 1, 40, 192, 300] {
                    let fields =
                        event.fields_for(before + frames * usize::from(pointer) + 3, bitness);
                    assert_eq!(fields.len(), event.fields.len());
                    let expected = u16::try_from(frames.min(192)).unwrap();
                    assert_eq!(fields.last().unwrap().count, Count::Fixed(expected));
                }
            }
        }
    }
    assert_eq!(
        tails, 4,
        "StackWalk: Stack and KeyCreate/KeyDelete/KeyRundown"
    );
}

#[test]
fn hooks_name_the_classes_of_their_groups() {
    let image_load = HookId::new(EventTraceGroup::PROCESS, 10);
    assert_eq!(class_of_hook(image_load), Some(IMAGE));
    assert_eq!(
        lookup_hook(image_load, 2).unwrap().event_name().to_string(),
        "Image/Load"
    );
    assert_eq!(
        class_of_hook(HookId::new(EventTraceGroup::PROCESS, 11)),
        Some(PROCESS)
    );
    assert_eq!(class_of_hook(HookId::new(EventTraceGroup::JOB, 1)), None);
    assert_eq!(class_of_hook(HookId(0x1F00)), None);
    for class in &CLASSES {
        if [LOST_EVENT, SYS_CONFIG, IMAGE_ID].contains(&class.guid) {
            continue;
        }
        let group = (0u8..=0x1E).find(|group| {
            class_of_hook(HookId::new(EventTraceGroup(*group), 1)) == Some(class.guid)
        });
        assert!(group.is_some(), "no group names {}", class.name);
    }
}

/// The table of classes by group, built when the tables are compiled, against the search by
/// GUID it stands for: every hook, at the versions the tables hold.
#[test]
#[cfg_attr(
    miri,
    ignore = "compile-time tables, no byte order: 200,000 lookups take minutes under Miri"
)]
fn every_hook_finds_the_class_its_guid_names() {
    for hook in 0..=u16::MAX {
        let hook = HookId(hook);
        for version in [0, 1, 2, 3, 4, 5] {
            let by_guid =
                class_of_hook(hook).and_then(|guid| lookup(guid, hook.event_type().0, version));
            assert_eq!(
                lookup_hook(hook, version),
                by_guid,
                "hook {:#06x} version {version}",
                hook.0
            );
        }
    }
}

#[test]
fn unknown_versions_and_types_are_none() {
    assert!(lookup(PROCESS, 1, 0x0104).is_none());
    assert!(lookup(PROCESS, 250, 4).is_none());
    assert!(lookup(Guid::NIL, 1, 4).is_none());
}

/// Every key a class does not hold is `None`, every key it holds its own event: the search by
/// where each type starts against a search of every event.
#[test]
#[cfg_attr(
    miri,
    ignore = "compile-time tables, no byte order: 60,000 lookups take minutes under Miri"
)]
fn every_key_finds_its_event_and_no_other() {
    for class in &CLASSES {
        for event_type in 0..=255u8 {
            for version in 0..=12u16 {
                let held = class.events.iter().find(|event| {
                    event.event_type == event_type && u16::from(event.version) == version
                });
                assert_eq!(
                    class.event(event_type, version),
                    held,
                    "{} type {event_type} version {version}",
                    class.name
                );
            }
        }
    }
}
