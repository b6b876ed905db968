//! Thread names learned from the kernel's `Thread` events, as TraceEvent learns them: the
//! `ThreadName` of `ThreadSetName` (event type 72: `ProcessID` at offset 0, `ThreadID` at 4,
//! `ThreadName` at 8, UTF-16, in `ThreadSetNameTraceData` of PerfView's
//! KernelTraceEventParser.cs) and of the start and rundown events from version 4. The events
//! are written here from those offsets.

use etw_classic::wire::EventTraceGroup;
use etw_classic::Bitness;
use etw_classic_decode::facts::{Facts, Source};
use etw_classic_decode::Registry;

/// `text` as NUL-terminated UTF-16LE.
fn utf16z(text: &str) -> Vec<u8> {
    text.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// The facts of a kernel `Thread` event of `event_type` and `version` carrying `data`.
fn thread_event(event_type: u8, version: u16, data: &[u8]) -> Facts<'_> {
    Facts {
        source: Some(Source::Kernel(EventTraceGroup::THREAD)),
        process_id: Some(4),
        thread_id: Some(8),
        version: Some(version),
        opcode: Some(event_type),
        payload: Some(data),
        bitness: Some(Bitness::Bits64),
        ..Facts::default()
    }
}

#[test]
fn set_name_names_the_thread() {
    let mut data = Vec::new();
    data.extend(0x1234u32.to_le_bytes()); // ProcessID
    data.extend(0x5678u32.to_le_bytes()); // ThreadID
    data.extend(utf16z("GC worker"));
    let mut registry = Registry::new();
    assert_eq!(registry.thread_name(0x5678), None);
    registry.learn(&thread_event(72, 2, &data), String::new);
    assert_eq!(
        registry.thread_name(0x5678).map(|name| &**name),
        Some("GC worker")
    );
    // The name is the thread's, not its process's.
    assert_eq!(registry.process_name(0x1234), None);
    // A later name replaces it; an empty name does not.
    let mut renamed = data[..8].to_vec();
    renamed.extend(utf16z("main"));
    registry.learn(&thread_event(72, 2, &renamed), String::new);
    let mut empty = data[..8].to_vec();
    empty.extend(utf16z(""));
    registry.learn(&thread_event(72, 2, &empty), String::new);
    assert_eq!(
        registry.thread_name(0x5678).map(|name| &**name),
        Some("main")
    );
}

#[test]
fn rundown_of_version_4_names_the_thread() {
    // Thread_TypeGroup1 version 4 on a 64-bit logger: ProcessId, TThreadId, seven pointers
    // (StackBase ... TebBase), SubProcessTag, four UINT8 priorities and flags, ThreadName.
    let mut data = Vec::new();
    data.extend(0x10u32.to_le_bytes());
    data.extend(0x20u32.to_le_bytes());
    data.extend([0u8; 7 * 8]);
    data.extend(0u32.to_le_bytes());
    data.extend([8u8, 5, 2, 0]);
    data.extend(utf16z("ThreadPool worker"));
    let mut registry = Registry::new();
    registry.learn(&thread_event(3, 4, &data), String::new);
    assert_eq!(
        registry.thread_name(0x20).map(|name| &**name),
        Some("ThreadPool worker")
    );
    // A context switch (type 36) names nothing.
    let mut other = Registry::new();
    other.learn(&thread_event(36, 4, &data), String::new);
    assert_eq!(other.thread_name(0x20), None);
}
