//! The events the payload benchmark (`benches/payload.rs`) walks, and `examples/payload_walk.rs`
//! times and counts the instructions of, each including this file by path. Two are shaped like
//! the ones krabsetw measured its TDH-based parsing on (its pull request 273: a process start of
//! 16 fields, 1,286 ns, and a thread start of 10 fields, 485 ns, on Windows), laid out as
//! Microsoft-Windows-Kernel-Process writes them on a 64-bit logger:
//! - `process_start_16_fields`: ProcessID, ProcessSequenceNumber, CreateTime, ParentProcessID,
//!   ParentProcessSequenceNumber, SessionID, Flags, ProcessTokenElevationType,
//!   ProcessTokenIsElevated, MandatoryLabel (SID), ImageName (UTF-16), ImageChecksum,
//!   TimeDateStamp, PackageFullName, PackageRelativeAppId (UTF-16) and a trailing UInt32;
//! - `thread_start_10_fields`: ProcessID, ThreadID, StackBase, StackLimit, UserStackBase,
//!   UserStackLimit, StartAddr, Win32StartAddr, TebBase (pointers), SubProcessTag.
//!
//! And one made mostly of arrays, as the .NET runtime writes a method's IL-to-native map
//! (`MethodILToNativeMap`, ClrEtwAll.man's template): `il_to_native_map_16_entries`:
//! MethodID, ReJITID, MethodExtent, CountOfMapEntries (16), ILOffsets and NativeOffsets
//! (`UInt32` arrays of that count), ClrInstanceID; 41 items.

// Not every includer reads every field.
#![allow(dead_code)]

use std::hint::black_box;

use etw_classic::payload::{Count, FieldSchema, InType, OutType, PayloadDecoder};
use etw_classic::Bitness;

/// One of the events: its name, schema and data, and how many items a walk over it yields.
pub struct Event {
    pub name: &'static str,
    pub fields: Vec<FieldSchema<&'static str>>,
    pub data: Vec<u8>,
    pub items: usize,
}

/// The events, each by name.
pub fn events() -> [Event; 3] {
    let event = |name, (fields, data), items| Event {
        name,
        fields,
        data,
        items,
    };
    [
        event("process_start_16_fields", process_start(), 16),
        event("thread_start_10_fields", thread_start(), 10),
        // 4 fields, each array's start, 16 values and end, and the last field.
        event("il_to_native_map_16_entries", il_to_native_map(), 41),
    ]
}

/// One walk over `data` with `fields` (`last_reference` worked out for them beforehand, as the
/// registry does when it adds a schema): `PayloadDecoder`'s `for_each`, the walk the outputs
/// take, every item handed to `black_box`, what a sink must do at least.
pub fn walk(fields: &[FieldSchema<&str>], data: &[u8], last_reference: usize) {
    let decoder = PayloadDecoder::with_last_reference(
        black_box(fields),
        black_box(data),
        Bitness::Bits64,
        black_box(last_reference),
    );
    decoder.for_each(|item| {
        if let Ok(item) = item {
            black_box(&item);
        }
    });
}

fn utf16z(text: &str) -> Vec<u8> {
    text.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

pub fn process_start() -> (Vec<FieldSchema<&'static str>>, Vec<u8>) {
    let fields = vec![
        FieldSchema::new("ProcessID", InType::UINT32).with_out_type(OutType::PID),
        FieldSchema::new("ProcessSequenceNumber", InType::UINT64),
        FieldSchema::new("CreateTime", InType::FILETIME),
        FieldSchema::new("ParentProcessID", InType::UINT32).with_out_type(OutType::PID),
        FieldSchema::new("ParentProcessSequenceNumber", InType::UINT64),
        FieldSchema::new("SessionID", InType::UINT32),
        FieldSchema::new("Flags", InType::HEXINT32),
        FieldSchema::new("ProcessTokenElevationType", InType::UINT32),
        FieldSchema::new("ProcessTokenIsElevated", InType::UINT32),
        FieldSchema::new("MandatoryLabel", InType::SID),
        FieldSchema::new("ImageName", InType::UNICODE_STRING),
        FieldSchema::new("ImageChecksum", InType::HEXINT32),
        FieldSchema::new("TimeDateStamp", InType::HEXINT32),
        FieldSchema::new("PackageFullName", InType::UNICODE_STRING),
        FieldSchema::new("PackageRelativeAppId", InType::UNICODE_STRING),
        FieldSchema::new("Reserved", InType::UINT32),
    ];
    let mut data = Vec::new();
    data.extend(4321u32.to_le_bytes());
    data.extend(77u64.to_le_bytes());
    data.extend(132_400_000_000_000_000u64.to_le_bytes());
    data.extend(1234u32.to_le_bytes());
    data.extend(12u64.to_le_bytes());
    data.extend(1u32.to_le_bytes());
    data.extend(0x10u32.to_le_bytes());
    data.extend(3u32.to_le_bytes());
    data.extend(0u32.to_le_bytes());
    // S-1-16-8192 (medium mandatory level)
    data.extend([1, 1, 0, 0, 0, 0, 0, 16, 0, 0x20, 0, 0]);
    data.extend(utf16z(
        r"\Device\HarddiskVolume3\Windows\System32\notepad.exe",
    ));
    data.extend(0x0003_a1b2u32.to_le_bytes());
    data.extend(0x5f3e_2a10u32.to_le_bytes());
    data.extend(utf16z(""));
    data.extend(utf16z(""));
    data.extend(0u32.to_le_bytes());
    (fields, data)
}

pub fn thread_start() -> (Vec<FieldSchema<&'static str>>, Vec<u8>) {
    let mut fields = vec![
        FieldSchema::new("ProcessID", InType::UINT32).with_out_type(OutType::PID),
        FieldSchema::new("ThreadID", InType::UINT32).with_out_type(OutType::TID),
    ];
    for name in [
        "StackBase",
        "StackLimit",
        "UserStackBase",
        "UserStackLimit",
        "StartAddr",
        "Win32StartAddr",
        "TebBase",
    ] {
        fields.push(FieldSchema::new(name, InType::POINTER));
    }
    fields.push(FieldSchema::new("SubProcessTag", InType::HEXINT32));
    let mut data = Vec::new();
    data.extend(4321u32.to_le_bytes());
    data.extend(8765u32.to_le_bytes());
    for pointer in 0..7u64 {
        data.extend((0xffff_f880_0000_0000u64 + pointer * 0x1000).to_le_bytes());
    }
    data.extend(0u32.to_le_bytes());
    (fields, data)
}

pub fn il_to_native_map() -> (Vec<FieldSchema<&'static str>>, Vec<u8>) {
    let fields = vec![
        FieldSchema::new("MethodID", InType::UINT64),
        FieldSchema::new("ReJITID", InType::UINT64),
        FieldSchema::new("MethodExtent", InType::UINT8),
        FieldSchema::new("CountOfMapEntries", InType::UINT16),
        FieldSchema::new("ILOffsets", InType::UINT32).with_count(Count::FromField(3)),
        FieldSchema::new("NativeOffsets", InType::UINT32).with_count(Count::FromField(3)),
        FieldSchema::new("ClrInstanceID", InType::UINT16),
    ];
    let mut data = Vec::new();
    data.extend(0x7ff8_1c2d_5e40u64.to_le_bytes());
    data.extend(0u64.to_le_bytes());
    data.push(0);
    data.extend(16u16.to_le_bytes());
    for il in 0..16u32 {
        data.extend((il * 6).to_le_bytes());
    }
    for native in 0..16u32 {
        data.extend((native * 11).to_le_bytes());
    }
    data.extend(9u16.to_le_bytes());
    (fields, data)
}
