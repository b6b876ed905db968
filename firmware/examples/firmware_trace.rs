//! A bootloader traces its boot as classic ETW instance events, then reads its own trace
//! buffers back as a consumer and prints the event tree.
//!
//! The tracing half uses only what a `no_std` firmware has: a session with a fixed pool of
//! small buffers, a provider with two registered classes, and a clock that steps 1 ms per
//! reading. The boot is one transaction (class `Boot`), each stage a child transaction (class
//! `Stage`) with START, CHECKPOINT and END events at several levels; the buffers fill up and are
//! handed over one by one, as a firmware would copy them to flash or a debug port.
//!
//! Run it with `cargo run -p etw-classic-firmware --example firmware_trace`; add `-- --etl OUT`
//! to also write the buffers as an .etl file (a first buffer with the logfile header, then the
//! trace buffers). It lives in the firmware's crate, whose only dependencies are the library's,
//! so that running it builds nothing else (the library's own examples also build its
//! benchmarks' and property tests' dependencies).

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use etw_classic::{
    read::{DeliveredEvent, InstanceKey},
    wire::{filetime_to_unix, VersionDetail},
    Bitness, Class, ClockType, EtlHeader, EventData, EventInstanceHeader, EventInstanceInfo,
    EventTraceHeader, EventType, Guid, GuidOrPtr, InstanceTree, Level, Provider, Session,
    SteppingContext, TimesOrFlags, TraceBuffer, TraceError, Traced, WnodeFlags,
};

/// What `--help` prints.
const USAGE: &str = "\
Trace a simulated boot into fixed-size buffers and print the event tree read back from them.

Usage: firmware_trace [--etl OUT]

Options:
  --etl OUT   Also write the buffers as an .etl file
  -h, --help  Print help";

/// The command line.
struct Args {
    /// `--etl OUT`: also write the buffers as an .etl file.
    etl: Option<std::path::PathBuf>,
}

impl Args {
    /// The arguments after the program's name; `Err` with what is wrong, or `Ok(None)` for
    /// `--help`.
    fn parse(mut args: impl Iterator<Item = std::ffi::OsString>) -> Result<Option<Self>, String> {
        let mut etl = None;
        while let Some(arg) = args.next() {
            match arg.to_str() {
                Some("-h" | "--help") => return Ok(None),
                Some("--etl") => {
                    let path = args.next().ok_or("--etl needs a path: --etl OUT")?;
                    etl = Some(path.into());
                }
                Some(text) if text.starts_with("--etl=") => {
                    etl = Some(text.trim_start_matches("--etl=").into());
                }
                _ => return Err(format!("unexpected argument {arg:?}")),
            }
        }
        Ok(Some(Self { etl }))
    }
}

/// The event trace class of the whole boot.
const BOOT_CLASS: Guid = Guid::from_fields(
    0x6b0f_0a11,
    0x2c4e,
    0x4b8d,
    [0x9a, 0x31, 0x0e, 0x5c, 0x7f, 0x10, 0x42, 0x01],
);
/// The event trace class of one boot stage.
const STAGE_CLASS: Guid = Guid::from_fields(
    0x6b0f_0a12,
    0x2c4e,
    0x4b8d,
    [0x9a, 0x31, 0x0e, 0x5c, 0x7f, 0x10, 0x42, 0x02],
);
/// A plain (non-instance) event class for the watchdog.
const WATCHDOG_CLASS: Guid = Guid::from_fields(
    0x6b0f_0a13,
    0x2c4e,
    0x4b8d,
    [0x9a, 0x31, 0x0e, 0x5c, 0x7f, 0x10, 0x42, 0x03],
);

/// Small buffers, as a bootloader would afford: 512 bytes each, four of them.
const BUFFER_SIZE: usize = 512;
const BUFFER_COUNT: usize = 4;
/// A 32-bit firmware writes INSTANCE32 events and 8-byte EVENT_INSTANCE_INFOs.
const BITNESS: Bitness = Bitness::Bits32;
/// 2026-11-21 00:00:00 UTC as a FILETIME: the clock's start.
const BOOT_TIME: i64 = 134_396_928_000_000_000;

/// The provider side: everything a firmware would keep in statics.
struct Firmware {
    session: Session<BUFFER_SIZE, BUFFER_COUNT>,
    provider: Provider<2>,
    clock: SteppingContext,
    boot: u64,
    stage: u64,
    /// Buffers handed over so far (a firmware would write them to flash).
    stored: Vec<[u8; BUFFER_SIZE]>,
    filtered_out: usize,
}

impl Firmware {
    fn new() -> Result<Self, TraceError> {
        let mut provider = Provider::new(BITNESS);
        let boot = provider.register(BOOT_CLASS)?;
        let stage = provider.register(STAGE_CLASS)?;
        Ok(Self {
            session: Session::new(1, Level::VERBOSE),
            provider,
            clock: SteppingContext {
                now: BOOT_TIME,
                step: 10_000, // 1 ms in 100 ns units
                thread_id: 1,
                process_id: 0,
                kernel_time: 0,
                user_time: 0,
            },
            boot,
            stage,
            stored: Vec::new(),
            filtered_out: 0,
        })
    }

    /// Traces one instance event whose data is `text`.
    fn trace(
        &mut self,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
        event_type: EventType,
        level: Level,
        text: &str,
    ) -> Result<(), TraceError> {
        let header = EventInstanceHeader {
            size: u16::try_from(EventInstanceHeader::LEN + text.len()).unwrap_or(u16::MAX),
            class: Class::new(event_type, level, 1),
            reg_handle: instance.reg_handle(),
            parent_reg_handle: parent.map_or(0, |parent| parent.reg_handle()),
            times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
            ..Default::default()
        };
        let traced = self.provider.trace_event_instance(
            &mut self.session,
            &header,
            EventData::Inline(text.as_bytes()),
            instance,
            parent,
            &mut self.clock,
        )?;
        self.after(traced);
        Ok(())
    }

    /// Traces a plain `TraceEvent` event whose data is two MOF fields.
    fn trace_watchdog(&mut self, kicks: u32) -> Result<(), TraceError> {
        let fields: [&[u8]; 2] = [b"watchdog kicks=", &kicks.to_le_bytes()];
        let header = EventTraceHeader {
            size: u16::try_from(EventTraceHeader::LEN + 16 * fields.len()).unwrap_or(u16::MAX),
            class: Class::new(EventType::INFO, Level::VERBOSE, 1),
            guid: GuidOrPtr::from_guid(WATCHDOG_CLASS),
            times: TimesOrFlags::from_client_context(
                0,
                WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR,
            ),
            ..Default::default()
        };
        let traced = self.provider.trace_event(
            &mut self.session,
            &header,
            EventData::MofFields(&fields),
            &mut self.clock,
        )?;
        self.after(traced);
        Ok(())
    }

    /// Counts filtered events and hands over the buffers that filled up.
    fn after(&mut self, traced: Traced) {
        if traced == Traced::FilteredOut {
            self.filtered_out += 1;
        }
        self.hand_over();
    }

    /// Takes the full buffers out of the session, oldest first, and gives them back for reuse.
    fn hand_over(&mut self) {
        let stored = &mut self.stored;
        let _ = self.session.drain(|buffer| {
            stored.push(*buffer);
            Ok::<(), ()>(())
        });
    }

    /// The boot, traced.
    fn boot(&mut self) -> Result<(), TraceError> {
        let boot = self.provider.create_instance_id(self.boot)?;
        self.trace(
            &boot,
            None,
            EventType::START,
            Level::INFORMATION,
            "bootloader 1.4.2",
        )?;
        let stages = [
            ("clocks", 2, None),
            ("dram-training", 4, Some("rank 1 eye narrow, retrained")),
            ("flash", 3, None),
            ("kernel-load", 5, Some("signature checked")),
        ];
        for (name, steps, note) in stages {
            let stage = self.provider.create_instance_id(self.stage)?;
            self.trace(
                &stage,
                Some(&boot),
                EventType::START,
                Level::INFORMATION,
                name,
            )?;
            for step in 1..=steps {
                let text = format!("{name}: step {step} of {steps}");
                self.trace(
                    &stage,
                    Some(&boot),
                    EventType::CHECKPOINT,
                    Level::VERBOSE,
                    &text,
                )?;
            }
            if let Some(note) = note {
                self.trace(&stage, Some(&boot), EventType::INFO, Level::WARNING, note)?;
            }
            // A debug-only event above VERBOSE: the session's level filters it out.
            self.trace(
                &stage,
                Some(&boot),
                EventType::INFO,
                Level(6),
                "register dump",
            )?;
            self.trace(
                &stage,
                Some(&boot),
                EventType::END,
                Level::INFORMATION,
                name,
            )?;
            self.trace_watchdog(steps)?;
        }
        self.trace(
            &boot,
            None,
            EventType::END,
            Level::INFORMATION,
            "jumping to kernel",
        )?;
        let now = self.clock.now;
        self.session.flush(now);
        self.hand_over();
        Ok(())
    }
}

fn type_name(event_type: EventType) -> String {
    match event_type {
        EventType::INFO => "INFO".into(),
        EventType::START => "START".into(),
        EventType::END => "END".into(),
        EventType::CHECKPOINT => "CHECKPOINT".into(),
        other => format!("type {}", other.0),
    }
}

fn level_name(level: Level) -> String {
    level
        .name()
        .map_or_else(|| format!("level {}", level.0), str::to_owned)
}

fn class_name(guid: Guid) -> &'static str {
    match guid {
        BOOT_CLASS => "Boot",
        STAGE_CLASS => "Stage",
        WATCHDOG_CLASS => "Watchdog",
        _ => "?",
    }
}

/// The event data: text, or for a watchdog event its text field and its `u32` count.
fn data_text(data: &[u8]) -> String {
    if let Some((text, count)) = data.split_last_chunk::<4>() {
        if text == b"watchdog kicks=" {
            return format!("watchdog kicks={}", u32::from_le_bytes(*count));
        }
    }
    match std::str::from_utf8(data) {
        Ok(text) if !text.chars().any(char::is_control) => format!("{text:?}"),
        _ => data.iter().map(|byte| format!("{byte:02x}")).collect(),
    }
}

fn print_event(
    out: &mut impl Write,
    event: &DeliveredEvent<'_>,
    indent: &str,
) -> std::io::Result<()> {
    let header = event.event_trace.header();
    let since_boot = (header.timestamp - BOOT_TIME) / 10_000;
    writeln!(
        out,
        "{indent}+{since_boot:>3} ms  {:<10} {:<11} {}",
        type_name(header.class.event_type),
        level_name(header.class.level),
        data_text(event.data)
    )
}

fn print_instance(
    out: &mut impl Write,
    tree: &InstanceTree<16>,
    events: &BTreeMap<InstanceKey, Vec<DeliveredEvent<'_>>>,
    key: InstanceKey,
    depth: usize,
) -> std::io::Result<()> {
    let indent = "    ".repeat(depth);
    writeln!(
        out,
        "{indent}{} #{} ({})",
        class_name(key.class_guid),
        key.instance_id,
        key.class_guid
    )?;
    for event in events.get(&key).into_iter().flatten() {
        print_event(out, event, &format!("{indent}  "))?;
    }
    for child in tree.children(key) {
        print_instance(out, tree, events, child.key, depth + 1)?;
    }
    Ok(())
}

/// The .etl file: the logfile header's buffer, then every buffer the session handed over.
fn etl_file(firmware: &Firmware, file_name: &str) -> Result<Vec<u8>, etw_classic::CodecError> {
    let stats = firmware.session.stats();
    let header = {
        let mut header = EtlHeader::new(BITNESS, BUFFER_SIZE as u32);
        header.buffers_written = 1 + firmware.stored.len() as u32;
        header.events_lost = stats.events_lost;
        header.buffers_lost = stats.buffers_lost;
        header.number_of_processors = 1;
        header.cpu_speed_in_mhz = 64;
        header.timer_resolution = 156_250;
        header.clock_type = ClockType::SYSTEM_TIME;
        header.perf_freq = 10_000_000;
        header.start_time = BOOT_TIME;
        header.end_time = firmware.clock.now;
        header.boot_time = BOOT_TIME;
        header.version = VersionDetail {
            major_version: 10,
            minor_version: 0,
            sub_version: 0,
            sub_minor_version: 0,
        };
        header.provider_version = 0;
        header.logger_id = firmware.session.logger_id();
        header.logger_name = "firmware_trace";
        header.log_file_name = file_name;
        header
    };
    let mut file = vec![0; BUFFER_SIZE];
    header.write_first_buffer(&mut file)?;
    for buffer in &firmware.stored {
        file.extend_from_slice(buffer);
    }
    Ok(file)
}

/// What ends the example early, as one sentence.
enum Failure {
    /// The standard output was closed (`| head`): not an error.
    OutputClosed,
    Message(String),
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::OutputClosed
        } else {
            Failure::Message(format!("cannot write the output: {error}"))
        }
    }
}

/// A failure of the library, said with what was being done.
fn failed(doing: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Message(format!("{doing}: {error}"))
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args_os().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("firmware_trace: {problem}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = run(&args, &mut out).and_then(|()| out.flush().map_err(Failure::from));
    match result {
        Ok(()) | Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            // Nothing is left to tell when standard error cannot be written either.
            let _ = writeln!(std::io::stderr(), "firmware_trace: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args, out: &mut impl Write) -> Result<(), Failure> {
    let mut firmware = Firmware::new().map_err(|error| failed("registering the classes", error))?;
    firmware
        .boot()
        .map_err(|error| failed("tracing the boot", error))?;
    if let Some(path) = &args.etl {
        let file = etl_file(&firmware, &path.display().to_string())
            .map_err(|error| failed("writing the logfile header", error))?;
        std::fs::write(path, &file).map_err(|error| {
            Failure::Message(format!("cannot write {}: {error}", path.display()))
        })?;
        writeln!(
            out,
            "wrote {} ({} bytes, {} buffers)",
            path.display(),
            file.len(),
            file.len() / BUFFER_SIZE
        )?;
    }
    let stats = firmware.session.stats();
    let start = filetime_to_unix(BOOT_TIME);
    writeln!(
        out,
        "boot traced from Unix time {} (2026-11-21 00:00:00 UTC)",
        start.seconds
    )?;
    writeln!(
        out,
        "traced: {} events written, {} filtered out by level, {} lost; {} buffers of {} bytes",
        stats.events_written,
        firmware.filtered_out,
        stats.events_lost,
        firmware.stored.len(),
        BUFFER_SIZE
    )?;

    // The consumer side: walk every buffer, deliver each event as a 32-bit EVENT_TRACE.
    let mut tree = InstanceTree::<16>::new();
    let mut by_instance: BTreeMap<InstanceKey, Vec<DeliveredEvent<'_>>> = BTreeMap::new();
    let mut plain = Vec::new();
    for bytes in &firmware.stored {
        let buffer =
            TraceBuffer::parse(bytes).map_err(|error| failed("reading a buffer back", error))?;
        let header = buffer.header;
        let mut count = 0;
        for event in buffer.classic_events(BITNESS) {
            let event = event.map_err(|error| failed("reading an event back", error))?;
            count += 1;
            let instance = event.event_trace.instance_header();
            if instance.instance_id == 0 {
                plain.push(event);
            } else {
                let key = tree
                    .add(&instance)
                    .map_err(|error| failed("linking an instance", error))?;
                by_instance.entry(key).or_default().push(event);
            }
        }
        writeln!(
            out,
            "buffer {}: {count} events, {} of {} bytes used, flushed at +{} ms, logger {}",
            header.sequence_number,
            header.offset,
            header.buffer_size,
            (header.timestamp - BOOT_TIME) / 10_000,
            header.client_context.logger_id()
        )?;
    }

    writeln!(out, "\nevent tree:")?;
    for root in tree.roots() {
        print_instance(out, &tree, &by_instance, root.key, 0)?;
    }
    writeln!(out, "\nplain events:")?;
    for event in &plain {
        let guid = event.event_trace.header().guid.guid();
        write!(out, "  {}", class_name(guid))?;
        print_event(out, event, " ")?;
    }
    Ok(())
}
