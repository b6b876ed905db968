//! A link-time proof that the optimised library holds no panic path.
//!
//! This `no_std` binary for `thumbv7em-none-eabihf` calls every decoder, encoder, the event
//! iterator, the consumer, the .etl reader and writer, the Plain LZ77 decompressor, the provider,
//! the session buffer writer, the kernel tables with the payload decoder, and the
//! `MetaData/EventInfo` reader with a walk of the data with its fields, on inputs the
//! optimiser cannot see through (`core::hint::black_box`). Its panic handler calls a function that is
//! declared but defined nowhere, so if any panic survives optimisation anywhere in the code
//! reached from `_start`, the link fails with an undefined symbol named
//! `a_panic_path_survived_optimisation`. `check.sh` builds it in two profiles.

#![no_std]
#![no_main]

use core::hint::black_box;
use core::panic::PanicInfo;

use etw_classic::read::{MergeCursor, TimeOrder, TraceClock};
use etw_classic::wire::ExtendedAndUserData;
use etw_classic::wire::UtcDateTime;
use etw_classic::{
    lznt1, plain_lz77,
    write::{SharedSession, WhenFull},
    xpress_huffman, Bitness, Class, CompactTraceHeader, EtlFile, EtlHeader, EventData, EventHeader,
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

/// The critical section of a binary without interrupts: nothing to mask.
struct NoInterrupts;
critical_section::set_impl!(NoInterrupts);

// SAFETY: the binary runs one thread and enables no interrupt, so no code can run between
// `acquire` and `release` but the caller's.
unsafe impl critical_section::Impl for NoInterrupts {
    unsafe fn acquire() -> critical_section::RawRestoreState {}
    unsafe fn release(_: critical_section::RawRestoreState) {}
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
    typed_events(input, bitness);
    time(input);
    kernel_payloads(input, bitness);
    event_info(input, bitness);
    loop {
        core::hint::spin_loop();
    }
}

/// The kernel's built-in classes: the lookups, the fields sized for the data, and the walk
/// over the data with them.
fn kernel_payloads(input: &[u8], bitness: Bitness) {
    use etw_classic::payload::{kernel, PayloadDecoder};
    use etw_classic::wire::HookId;
    let hook = HookId(u16::from_le_bytes([
        black_box(input.get(2).copied().unwrap_or(0)),
        black_box(input.get(3).copied().unwrap_or(0)),
    ]));
    let version = u16::from(black_box(input.get(4).copied().unwrap_or(0)));
    let by_guid = kernel::lookup(black_box(kernel::PROCESS), black_box(1), version);
    for event in [kernel::lookup_hook(hook, version), by_guid]
        .into_iter()
        .flatten()
    {
        let fields = event.fields_for(input.len(), bitness);
        let mut decoder = PayloadDecoder::new(fields.as_slice(), input, bitness);
        let _ = black_box(decoder.by_ref().filter_map(Result::ok).count());
        let _ = black_box((decoder.rest().len(), event.event_name().opcode));
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
    if let Ok((header, body, rest)) = EventHeader::parse_event(input) {
        let _ = black_box((header.to_bytes(), header.cpu_time(), rest));
        let _ = black_box(header.emit(output).map(|rest| rest.len()));
        extended_items(&body, output);
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

/// The extended data items after an `EVENT_HEADER`: the walk, each item's typed payload (and
/// the values inside it) and encoding, and the checked split with its user data.
fn extended_items(body: &ExtendedAndUserData<'_>, output: &mut [u8]) {
    use etw_classic::wire::ExtendedPayload;
    for item in body.items().flatten() {
        let _ = black_box(item.emit(black_box(&mut *output)).map(|rest| rest.len()));
        match black_box(item.payload()) {
            Ok(ExtendedPayload::Sid(sid)) => {
                let _ = black_box(sid.sub_authorities.sum::<u32>());
            }
            Ok(ExtendedPayload::StackTrace64(stack)) => {
                let _ = black_box(stack.addresses.max());
            }
            Ok(ExtendedPayload::StackTrace32(stack)) => {
                let _ = black_box(stack.addresses.rev().next());
            }
            Ok(ExtendedPayload::ProviderTraits(traits)) => {
                for provider_trait in traits.traits() {
                    let _ = black_box(provider_trait.guid());
                }
            }
            other => {
                let _ = black_box(other);
            }
        }
    }
    if let Ok((items, user_data)) = body.split() {
        let _ = black_box((items.iter().count(), user_data));
    }
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
    let mut output = [0u8; 64];
    for event in Events::new(input).flatten() {
        match black_box(event.kind()) {
            EventKind::Instance { header, data } => {
                let _ = black_box((header, data));
            }
            EventKind::EventHeader { header, body } => {
                let _ = black_box(header);
                extended_items(&body, &mut output);
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
/// LZ77, LZNT1 and LZ77+Huffman decompressors on their own, the system and logfile headers, and
/// the .etl writer.
fn files(input: &[u8], bitness: Bitness, output: &mut [u8]) {
    let mut scratch = [0u8; 1024];
    let _ = black_box(plain_lz77::decompress(input, black_box(&mut scratch)));
    let _ = black_box(lznt1::decompress(input, black_box(&mut scratch)));
    let _ = black_box(xpress_huffman::decompress(input, black_box(&mut scratch)));
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

etw_classic::event_class! {
    /// Every MOF type a typed payload writes.
    const TYPED = (Guid::NIL, "Typed", version 1);
    /// The integers, floats, boolean, GUID, pointer and FILETIME.
    struct Fixed = (1, "Fixed") {
        a: i8 => "A", b: u8 => "B", c: i16 => "C", d: u16 => "D", e: i32 => "E", f: u32 => "F",
        g: i64 => "G", h: u64 => "H", i: f32 => "I", j: f64 => "J", k: bool => "K",
        l: Guid => "L", m: etw_classic::describe::Pointer => "M",
        n: etw_classic::describe::FileTime => "N", o: [u8; 6] => "O",
    }
    /// The strings.
    struct Strings<'a> = (2, "Strings") {
        ansi: &'a str => "Ansi",
        wide: etw_classic::describe::Utf16<'a> => "Wide",
        counted: etw_classic::describe::Counted<'a> => "Counted",
        counted_wide: etw_classic::describe::Counted16<'a> => "CountedWide",
    }
}

/// Typed events of every type, values from the input, through a session.
fn typed_events(input: &[u8], bitness: Bitness) {
    use etw_classic::describe::{Counted, Counted16, FileTime, Pointer, TypedEvent, Utf16};
    let mut session = Session::<512, 2>::new(1, Level::VERBOSE);
    let provider = Provider::<1>::new(bitness);
    let mut context = SteppingContext::default();
    let word = |at: usize| {
        input
            .get(at..)
            .and_then(|rest| rest.first_chunk::<8>())
            .map_or(0, |bytes| u64::from_le_bytes(*bytes))
    };
    let fixed = Fixed {
        a: black_box(-1),
        b: black_box(2),
        c: black_box(-3),
        d: black_box(4),
        e: black_box(-5),
        f: black_box(6),
        g: black_box(-7),
        h: word(0),
        i: black_box(1.5),
        j: black_box(2.5),
        k: black_box(true),
        l: Guid::NIL,
        m: Pointer(word(8)),
        n: FileTime(word(16)),
        o: black_box([1, 2, 3, 4, 5, 6]),
    };
    let _ = black_box(fixed.trace(&provider, &mut session, Level::ERROR, &mut context));
    let text = core::str::from_utf8(input).unwrap_or("text");
    let strings = Strings {
        ansi: text,
        wide: Utf16(text),
        counted: Counted(text),
        counted_wide: Counted16(text),
    };
    let _ = black_box(strings.trace(&provider, &mut session, Level::ERROR, &mut context));
    // The descriptions: the input's bytes as a TRACE_EVENT_INFO written in-band, the run-time
    // layout of one into the output, and the .mof of the class into a bounded writer.
    let _ = black_box(etw_classic::describe::trace_event_infos(
        &provider,
        &mut session,
        &[input],
        &mut context,
    ));
    let fields = [etw_classic::payload::FieldSchema::new(
        text,
        etw_classic::payload::InType::UINT32,
    )];
    let parts = etw_classic::describe::EventInfoParts {
        provider_guid: Guid::NIL,
        provider_name: text,
        class_guid: Guid::NIL,
        class_name: text,
        version: u16::from(black_box(1u8)),
        event_type: etw_classic::EventType(black_box(1)),
        event_type_name: text,
        fields: &fields,
    };
    let mut out = [0u8; 512];
    let _ = black_box(parts.write(black_box(&mut out)));
    let provider_description =
        etw_classic::describe::ProviderDescription::new(Guid::NIL, "P", &[TYPED]);
    let mut mof = Bounded { len: 0 };
    let _ = black_box(etw_classic::describe::write_mof(
        &provider_description,
        &mut mof,
    ));
    let _ = black_box(etw_classic::describe::mof::write_event_type_class(
        &mut mof,
        text,
        etw_classic::EventType(black_box(3)),
        text,
        &fields,
    ));
}

/// A `core::fmt::Write` that counts up to 4 KiB and then fails.
struct Bounded {
    len: usize,
}

impl core::fmt::Write for Bounded {
    fn write_str(&mut self, text: &str) -> core::fmt::Result {
        self.len = self.len.saturating_add(text.len());
        if self.len > 4096 {
            return Err(core::fmt::Error);
        }
        black_box(text);
        Ok(())
    }
}

/// The provider's checks and the session's buffer writer, on headers and data from the input,
/// in both of the session's modes, and through a shared session.
fn provider_and_session(input: &[u8], bitness: Bitness) {
    let when_full = if black_box(input.get(1).copied()) == Some(1) {
        WhenFull::OverwriteOldest
    } else {
        WhenFull::DropNewest
    };
    let mut session = Session::<512, 2>::with_when_full(1, Level::VERBOSE, when_full);
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
    let full = input
        .split_first_chunk::<{ EventTraceHeader::LEN }>()
        .map(|(full, data)| (EventTraceHeader::from_bytes(full), data));
    if let Some((full, data)) = full {
        let _ = black_box(provider.trace_event(
            &mut session,
            &full,
            EventData::Inline(data),
            &mut context,
        ));
    }
    session.set_when_full(black_box(WhenFull::DropNewest));
    session.flush(black_box(0));
    let _ = black_box(session.drain(|buffer| {
        let _ = black_box(buffer);
        Ok::<(), ()>(())
    }));
    let _ = black_box(session.discard_oldest_full());
    let stats = black_box(session.stats());
    let mut etl_header = EtlHeader::new(bitness, 512);
    etl_header.record_losses(&stats);
    let _ = black_box(etl_header);

    let shared = black_box(SharedSession::new(Session::<512, 2>::disabled()));
    let _ = black_box(shared.with(|session| session.set_enable_level(Level::VERBOSE)));
    let _ = black_box(shared.trace_event_instance(
        &provider,
        &header,
        EventData::Inline(data),
        &info,
        None,
        &mut context,
    ));
    if let Some((full, data)) = full {
        let _ =
            black_box(shared.trace_event(&provider, &full, EventData::Inline(data), &mut context));
    }
    let _ = black_box(shared.with(|session| session.flush(0)));
    let mut out = [0u8; 512];
    let _ = black_box(shared.take_oldest_full(&mut out));
    let _ = black_box(out);
}

/// A `core::fmt::Write` that keeps only a count of what it was given.
struct CountingWriter(usize);

impl core::fmt::Write for CountingWriter {
    fn write_str(&mut self, text: &str) -> core::fmt::Result {
        self.0 = self.0.wrapping_add(text.len());
        Ok(())
    }
}

/// Raw timestamps, the clock of a logfile header, the UTC calendar and its text, and the
/// time-ordered merge of the input's halves.
fn time(input: &[u8]) {
    let (first, second) = input
        .split_at_checked(black_box(input.len() / 2))
        .unwrap_or_default();
    let mut cursors = [
        MergeCursor::new(0u8, Events::new(first)),
        MergeCursor::new(1u8, Events::new(second)),
    ];
    let clock = EtlFile::parse(input)
        .ok()
        .and_then(|file| TraceClock::from_etl(&file).ok());
    let mut text = CountingWriter(0);
    for (id, item) in TimeOrder::new(&mut cursors) {
        let raw = item.ok().and_then(|event| event.timestamp());
        let time = raw.and_then(|raw| clock.and_then(|clock| clock.to_utc(raw)));
        if let Some(time) = time {
            let _ = core::fmt::Write::write_fmt(&mut text, format_args!("{time}"));
            let _ = black_box(time.to_filetime());
        }
        let _ = black_box(id);
    }
    let filetime = black_box(i64::from_le_bytes(
        input.first_chunk::<8>().copied().unwrap_or_default(),
    ));
    let date = UtcDateTime::from_filetime(filetime);
    let _ = core::fmt::Write::write_fmt(&mut text, format_args!("{date}"));
    let _ = black_box((date.to_filetime(), text.0));
    if let Some((header, _)) = input.split_first_chunk::<{ WmiBufferHeader::LEN }>() {
        let _ = black_box(WmiBufferHeader::from_bytes(header).processor());
    }
}

/// `MetaData/EventInfo` and `EventMapInfo` read in place: the names, the properties, the
/// fields in preorder and a walk of the data with them; the `ManifestData` envelope.
fn event_info(input: &[u8], bitness: Bitness) {
    use etw_classic::payload::{
        EventInfo, EventMapInfo, FieldSchema, InType, ManifestEnvelope, PayloadDecoder, Utf16Name,
    };
    let (structure, data) = input.split_at(input.len() / 2);
    if let Ok(info) = EventInfo::parse(structure) {
        let _ = black_box(info.keyword_names().map(|name| name.len()).sum::<usize>());
        let _ = black_box(info.properties().filter(Result::is_ok).count());
        let mut fields = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 16];
        if let Ok(fields) = info.collect_fields(&mut fields) {
            let mut decoder = PayloadDecoder::new(fields, data, bitness);
            let _ = black_box(decoder.by_ref().filter(Result::is_ok).count());
            let _ = black_box(decoder.rest().len());
        }
    }
    if let Ok(map) = EventMapInfo::parse(structure) {
        let _ = black_box(map.entries().filter(Result::is_ok).count());
        let _ = black_box(map.format_string().map(|name| name.map(|name| name.len())));
    }
    let _ = black_box(
        ManifestEnvelope::parse(input).map(|(envelope, chunk)| (envelope.to_bytes(), chunk.len())),
    );
}
