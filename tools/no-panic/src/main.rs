//! A link-time proof that the optimised library holds no panic path.
//!
//! This `no_std` binary for `thumbv7em-none-eabihf` calls every decoder, encoder, the event
//! iterator, the consumer, the .etl reader and writer, the Plain LZ77 decompressor, the provider
//! and the session buffer writer on inputs the optimiser
//! cannot see through (`core::hint::black_box`). Its panic handler calls a function that is
//! declared but defined nowhere, so if any panic survives optimisation anywhere in the code
//! reached from `_start`, the link fails with an undefined symbol named
//! `a_panic_path_survived_optimisation`. `check.sh` builds it in two profiles.

#![no_std]
#![no_main]

use core::hint::black_box;
use core::panic::PanicInfo;

use etw_classic::{
    plain_lz77, Bitness, Class, CompactTraceHeader, EtlFile, EtlHeader, EventData,
    EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo, EventKind, EventTrace,
    EventTraceHeader, Events, Guid, InstanceTree, Level, MessageTraceHeader, MofField,
    PerfInfoTraceHeader, Provider, Session, SteppingContext, SystemTraceHeader, TraceBuffer,
    TraceLogfileHeader, WmiBufferHeader,
};

extern "Rust" {
    /// Declared, never defined: any call to it left in the binary fails the link.
    fn a_panic_path_survived_optimisation() -> !;
}

#[panic_handler]
fn panic(_info: &PanicInfo) -> ! {
    // SAFETY: never runs; a reference to this function must not even survive linking.
    unsafe { a_panic_path_survived_optimisation() }
}

/// Bytes the optimiser treats as unknown.
static INPUT: [u8; 1024] = [0; 1024];

#[no_mangle]
pub extern "C" fn _start() -> ! {
    let input: &[u8] = black_box(&INPUT);
    let bitness = if black_box(input.first().copied()) == Some(1) {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let mut output = [0u8; 256];
    fixed_headers(input, bitness, &mut output);
    buffers(input, bitness);
    files(input, bitness, &mut output);
    provider_and_session(input, bitness);
    loop {
        core::hint::spin_loop();
    }
}

/// Every fixed-layout struct: `parse`, `from_bytes`, `to_bytes`, `emit`.
fn fixed_headers(input: &[u8], bitness: Bitness, output: &mut [u8]) {
    let output = black_box(output);
    if let Ok((header, data, rest)) = EventTraceHeader::parse_event(input) {
        let _ = black_box((header.to_bytes(), data, rest));
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
    }
    if let Ok((header, rest)) = EventInstanceHeader::parse(input) {
        let _ = black_box((header.to_bytes(), rest));
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
    }
    if let Ok((header, data, rest)) = EventInstanceGuidHeader::parse_event(input) {
        let _ = black_box((header.to_bytes(), data, rest));
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
    }
    if let Ok((trace, _)) = EventTrace::parse(input, bitness) {
        let _ = black_box(trace.to_bytes());
        let _ = black_box(trace.emit(output).map(|rest| rest.len()));
    }
    if let Ok((info, _)) = EventInstanceInfo::parse(input, bitness) {
        let _ = black_box(info.emit(output).map(|rest| rest.len()));
    }
    if let Ok((field, _)) = MofField::parse(input) {
        let _ = black_box(field.emit(output).map(|rest| rest.len()));
    }
    if let Ok((header, _)) = WmiBufferHeader::parse(input) {
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
    }
    kernel_headers(input, output);
    if let Ok(text) = core::str::from_utf8(input) {
        let _ = black_box(Guid::parse_str(text).map(Guid::to_bytes_le));
    }
    let roll_up = input
        .first_chunk::<4>()
        .map_or(0, |raw| u32::from_le_bytes(*raw));
    let _ = black_box(Class::from_roll_up(roll_up).roll_up());
}

/// The kernel's version-first headers with their extra words, and the message header with its
/// optional fields: decoded, split and encoded again.
fn kernel_headers(input: &[u8], output: &mut [u8]) {
    if let Ok((header, body, rest)) = PerfInfoTraceHeader::parse_event(input) {
        if let Ok((extra, data)) = header.split_extra_words(body) {
            let counters = extra.pmc_counters().fold(0u64, u64::wrapping_add);
            let _ = black_box((extra.pebs_index(), counters, data, rest));
        }
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
    }
    if let Ok((header, body, _)) = CompactTraceHeader::parse_event(input) {
        let _ = black_box(header.split_extra_words(body).map(|(extra, _)| extra.len()));
        let _ = black_box((header.hook().group(), header.to_bytes()));
    }
    if let Ok((header, data, _)) = MessageTraceHeader::parse_event(input) {
        if let Ok((fields, args)) = header.split_fields(data) {
            let _ = black_box(fields.emit(output).map(|rest| rest.len()));
            let _ = black_box((fields.option_flags(), args));
        }
        let _ = black_box(header.to_bytes());
    }
}

/// The event iterator, the consumer's buffer view and the instance tree.
fn buffers(input: &[u8], bitness: Bitness) {
    for event in Events::new(input).flatten() {
        match black_box(event.kind()) {
            EventKind::Instance { header, data } => {
                let _ = black_box((header, data));
            }
            EventKind::PerfInfo {
                header,
                extra,
                data,
            } => {
                let _ = black_box((header, extra.pebs_index(), data));
            }
            EventKind::Message { fields, args, .. } => {
                let _ = black_box((fields, args));
            }
            _ => {}
        }
    }
    if let Ok(buffer) = TraceBuffer::parse(input) {
        let mut tree = InstanceTree::<4>::new();
        for delivered in buffer.classic_events(bitness).flatten() {
            let _ = black_box(tree.add(&delivered.event_trace.instance_header()).is_ok());
            let _ = black_box(delivered.data);
        }
        let _ = black_box(tree.roots().count());
    }
}

/// The .etl reader (every buffer, decompressed into scratch, every event delivered), the Plain
/// LZ77 decompressor on its own, the system and logfile headers, and the .etl writer.
fn files(input: &[u8], bitness: Bitness, output: &mut [u8]) {
    let mut scratch = [0u8; 1024];
    let _ = black_box(plain_lz77::decompress(input, black_box(&mut scratch)));
    if let Ok((header, data, rest)) = SystemTraceHeader::parse_event(input) {
        let _ = black_box((header.to_bytes(), data, rest));
    }
    if let Ok((system, header, names, rest)) = TraceLogfileHeader::parse_event(input) {
        let _ = black_box((system, header.buffer_size(), names.logger_name.len(), rest));
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
    }
    if let Ok(file) = EtlFile::parse(input) {
        let _ = black_box((file.bitness(), file.buffer_size()));
        for buffer in file.buffers().flatten() {
            let Ok(events) = buffer.trace_buffer(&mut scratch) else {
                continue;
            };
            for event in events.events().flatten() {
                let _ = black_box(events.deliver(&event, bitness));
            }
        }
    }
    let mut header = EtlHeader::new(bitness, black_box(512));
    header.logger_name = black_box("boot");
    let mut first = [0u8; 512];
    let _ = black_box(header.write_first_buffer(black_box(&mut first)));
}

/// The provider's checks and the session's buffer writer, on headers and data from the input.
fn provider_and_session(input: &[u8], bitness: Bitness) {
    let mut session = Session::<512, 2>::new(1, Level::VERBOSE);
    let mut provider = Provider::<2>::new(bitness);
    let mut context = SteppingContext::default();
    let Ok(class) = provider.register(Guid::NIL) else {
        return;
    };
    let Ok(info) = provider.create_instance_id(black_box(class)) else {
        return;
    };
    let Some((header, data)) = input.split_first_chunk::<{ EventInstanceHeader::LEN }>() else {
        return;
    };
    let header = EventInstanceHeader::from_bytes(header);
    let fields: [&[u8]; 2] = [data, input];
    for event_data in [EventData::Inline(data), EventData::MofFields(&fields)] {
        let _ = black_box(provider.trace_event_instance(
            &mut session,
            &header,
            event_data,
            &info,
            Some(&info),
            &mut context,
        ));
    }
    if let Some((full, data)) = input.split_first_chunk::<{ EventTraceHeader::LEN }>() {
        let full = EventTraceHeader::from_bytes(full);
        let _ = black_box(provider.trace_event(
            &mut session,
            &full,
            EventData::Inline(data),
            &mut context,
        ));
    }
    session.flush(black_box(0));
    let _ = black_box(session.drain(|buffer| {
        let _ = black_box(buffer);
        Ok::<(), ()>(())
    }));
    let _ = black_box(session.discard_oldest_full());
    let _ = black_box(session.stats());
}
