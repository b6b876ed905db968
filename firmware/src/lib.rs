//! A bootloader's boot, traced with etw-classic into an .etl file: the same code runs on the
//! host (tests, `examples/boot_etl.rs`) and on Cortex-M cores under QEMU (`qemu/`), and both
//! must write the same bytes.
//!
//! The trace, for each [`Mode`]:
//! - a provider with three instance classes, `Boot`, `Stage` and `Step`, nested three deep: the
//!   boot's instance is the parent of each stage's, a stage's the parent of its steps';
//! - `START`/`END` events with inline text, `CHECKPOINT` events whose data is two `MOF_FIELD`s,
//!   plain `TraceEvent` events of an unregistered `Watchdog` class, events at a level the
//!   session filters out, and one event too large for a buffer (refused);
//! - a session of [`BUFFER_COUNT`] buffers of [`BUFFER_SIZE`] bytes, driven by a clock that
//!   steps 1 ms per reading ([`SteppingContext`]), so the bytes do not depend on the machine.
//!
//! The file goes to an [`EtlSink`]: trace buffers at `BUFFER_SIZE` × (1 + index), then, once
//! the counts are known, the logfile header's buffer at offset 0, as Windows rewrites the
//! header when a log file is closed.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs, missing_debug_implementations)]

use etw_classic::{
    wire::VersionDetail, Bitness, Class, ClockType, CodecError, EtlHeader, EventData,
    EventInstanceHeader, EventInstanceInfo, EventTraceHeader, EventType, Guid, GuidOrPtr, Level,
    Provider, Session, SteppingContext, TimesOrFlags, TraceError, Traced, WnodeFlags,
};

/// Bytes per trace buffer: small, as a bootloader affords.
pub const BUFFER_SIZE: usize = 512;
/// Buffers in the session's pool.
pub const BUFFER_COUNT: usize = 3;
/// A 32-bit firmware writes `INSTANCE32`/`FULL_HEADER32` events.
pub const BITNESS: Bitness = Bitness::Bits32;
/// The `LoggerId` in every buffer.
pub const LOGGER_ID: u16 = 7;
/// 2026-11-21 00:00:00 UTC as a FILETIME: the clock's start.
pub const BOOT_TIME: i64 = 134_396_928_000_000_000;
/// The clock's step, 1 ms in 100 ns units.
pub const CLOCK_STEP: i64 = 10_000;

/// The event trace class of the whole boot.
pub const BOOT_CLASS: Guid = class_guid(1);
/// The event trace class of one boot stage.
pub const STAGE_CLASS: Guid = class_guid(2);
/// The event trace class of one step of a stage.
pub const STEP_CLASS: Guid = class_guid(3);
/// A plain (non-instance, unregistered) event class.
pub const WATCHDOG_CLASS: Guid = class_guid(4);

const fn class_guid(last: u8) -> Guid {
    Guid::from_fields(
        0x6b0f_0a10,
        0x2c4e,
        0x4b8d,
        [0x9a, 0x31, 0x0e, 0x5c, 0x7f, 0x10, 0x42, last],
    )
}

/// How the session's buffers reach the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Each buffer is stored as soon as it is sealed ([`Session::drain`] after every call):
    /// nothing is lost.
    Streaming,
    /// The buffers stay in the session until the boot is over, as when nothing can store them
    /// during the boot: once the pool is full, later events are lost (`NoFreeBuffer`), and the
    /// stored file has the first [`BUFFER_COUNT`] buffers and counts the lost events.
    SingleShot,
}

impl Mode {
    /// Every mode, in the order the firmware traces them.
    pub const ALL: [Mode; 2] = [Mode::Streaming, Mode::SingleShot];

    /// The name of the mode's .etl file (also its `LogFileName`).
    pub const fn file_name(self) -> &'static str {
        match self {
            Mode::Streaming => "streaming.etl",
            Mode::SingleShot => "single-shot.etl",
        }
    }

    /// Whether full buffers are stored after every trace call.
    const fn stores_as_it_goes(self) -> bool {
        match self {
            Mode::Streaming => true,
            Mode::SingleShot => false,
        }
    }
}

/// Where the .etl file goes: the host's file system through semihosting, or memory.
pub trait EtlSink {
    /// What a failed write reports.
    type Error;
    /// Writes `bytes` at `offset` of the file (the file grows as needed).
    ///
    /// # Errors
    /// Whatever the storage reports.
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), Self::Error>;
}

/// What went wrong in [`boot_trace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BootError<E> {
    /// A trace call failed in a way the boot trace does not expect.
    Trace(TraceError),
    /// The logfile header could not be written.
    Codec(CodecError),
    /// The sink failed.
    Sink(E),
}

/// What [`boot_trace`] traced, as the caller can check it against the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BootSummary {
    /// Trace calls made.
    pub calls: u32,
    /// Events written to a buffer, instance events and plain ones.
    pub written: u32,
    /// Instance events written (`INSTANCE32`).
    pub instance_events: u32,
    /// Plain events written (`FULL_HEADER32`).
    pub plain_events: u32,
    /// Events the session's level filtered out.
    pub filtered_out: u32,
    /// Events lost because no buffer was free.
    pub lost: u32,
    /// Events refused as too large for a buffer.
    pub too_large: u32,
    /// Trace buffers in the file (the logfile header's buffer not counted).
    pub buffers: u32,
    /// Bytes of the file.
    pub file_len: u64,
}

/// One stage of the boot: its name, its steps, and a warning it reports, if any.
struct Stage {
    name: &'static str,
    steps: u32,
    warning: Option<&'static str>,
}

const STAGES: [Stage; 4] = [
    Stage {
        name: "clocks",
        steps: 2,
        warning: None,
    },
    Stage {
        name: "dram-training",
        steps: 3,
        warning: Some("rank 1 eye narrow, retrained"),
    },
    Stage {
        name: "flash",
        steps: 1,
        warning: None,
    },
    Stage {
        name: "kernel-load",
        steps: 2,
        warning: Some("signature checked"),
    },
];

/// A register dump: too large for a 512-byte buffer (the session refuses it).
const DUMP: [u8; 448] = [0x5a; 448];

/// The session, the provider and the clock, and what has been traced and stored so far.
struct Tracer<'s, S: EtlSink> {
    mode: Mode,
    session: Session<BUFFER_SIZE, BUFFER_COUNT>,
    provider: Provider<3>,
    clock: SteppingContext,
    sink: &'s mut S,
    summary: BootSummary,
}

impl<S: EtlSink> Tracer<'_, S> {
    /// Traces one instance event of `instance` (a child of `parent`, if given).
    fn instance(
        &mut self,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
        event_type: EventType,
        level: Level,
        data: EventData<'_>,
    ) -> Result<(), BootError<S::Error>> {
        let (data_len, flags) = data_shape(data);
        let header = EventInstanceHeader {
            size: event_size(EventInstanceHeader::LEN, data_len),
            class: Class::new(event_type, level, 1),
            reg_handle: instance.reg_handle(),
            parent_reg_handle: parent.map_or(0, EventInstanceInfo::reg_handle),
            times: TimesOrFlags::from_event_id(0, flags),
            ..Default::default()
        };
        let traced = self.provider.trace_event_instance(
            &mut self.session,
            &header,
            data,
            instance,
            parent,
            &mut self.clock,
        );
        self.count(traced, true)
    }

    /// Traces one plain `TraceEvent` event of the watchdog class.
    fn watchdog(&mut self, kicks: u32) -> Result<(), BootError<S::Error>> {
        let kicks = kicks.to_le_bytes();
        let fields: [&[u8]; 2] = [b"watchdog kicks=", &kicks];
        let data = EventData::MofFields(&fields);
        let (data_len, flags) = data_shape(data);
        let header = EventTraceHeader {
            size: event_size(EventTraceHeader::LEN, data_len),
            class: Class::new(EventType::INFO, Level::VERBOSE, 1),
            guid: GuidOrPtr::from_guid(WATCHDOG_CLASS),
            times: TimesOrFlags::from_client_context(0, flags),
            ..Default::default()
        };
        let traced = self
            .provider
            .trace_event(&mut self.session, &header, data, &mut self.clock);
        self.count(traced, false)
    }

    /// Counts a call's outcome and, when streaming, stores the buffers it sealed.
    fn count(
        &mut self,
        traced: Result<Traced, TraceError>,
        instance: bool,
    ) -> Result<(), BootError<S::Error>> {
        let summary = &mut self.summary;
        summary.calls = summary.calls.saturating_add(1);
        match traced {
            Ok(Traced::FilteredOut) => {
                summary.filtered_out = summary.filtered_out.saturating_add(1);
            }
            Ok(_) => {
                summary.written = summary.written.saturating_add(1);
                if instance {
                    summary.instance_events = summary.instance_events.saturating_add(1);
                } else {
                    summary.plain_events = summary.plain_events.saturating_add(1);
                }
            }
            Err(TraceError::NoFreeBuffer { .. }) => summary.lost = summary.lost.saturating_add(1),
            Err(TraceError::EventTooLarge { .. }) => {
                summary.too_large = summary.too_large.saturating_add(1);
            }
            Err(error) => return Err(BootError::Trace(error)),
        }
        if self.mode.stores_as_it_goes() {
            self.store()?;
        }
        Ok(())
    }

    /// Stores every sealed buffer after those already stored, and gives it back to the pool.
    fn store(&mut self) -> Result<(), BootError<S::Error>> {
        let sink = &mut *self.sink;
        let buffers = &mut self.summary.buffers;
        self.session
            .drain(|buffer| {
                let index = u64::from(*buffers).saturating_add(1);
                sink.write_at(index.saturating_mul(BUFFER_LEN), buffer)?;
                *buffers = buffers.saturating_add(1);
                Ok(())
            })
            .map_err(BootError::Sink)?;
        Ok(())
    }

    /// The boot: nested instances, filtered and refused events, watchdog kicks.
    fn boot(&mut self) -> Result<(), BootError<S::Error>> {
        let boot_class = self.register(BOOT_CLASS)?;
        let stage_class = self.register(STAGE_CLASS)?;
        let step_class = self.register(STEP_CLASS)?;
        let boot = self.create_instance(boot_class)?;
        let text = |text: &'static str| EventData::Inline(text.as_bytes());
        self.instance(
            &boot,
            None,
            EventType::START,
            Level::INFORMATION,
            text("bootloader 1.4.2"),
        )?;
        for (kicks, stage_plan) in (1..).zip(STAGES.iter()) {
            let stage = self.create_instance(stage_class)?;
            let name = text(stage_plan.name);
            let parent = Some(&boot);
            self.instance(&stage, parent, EventType::START, Level::INFORMATION, name)?;
            for step_number in 1..=stage_plan.steps {
                let step = self.create_instance(step_class)?;
                let number = step_number.to_le_bytes();
                let fields: [&[u8]; 2] = [stage_plan.name.as_bytes(), &number];
                let parent = Some(&stage);
                self.instance(&step, parent, EventType::START, Level::VERBOSE, name)?;
                let progress = EventData::MofFields(&fields);
                self.instance(
                    &step,
                    parent,
                    EventType::CHECKPOINT,
                    Level::VERBOSE,
                    progress,
                )?;
                self.instance(&step, parent, EventType::END, Level::VERBOSE, name)?;
            }
            if let Some(warning) = stage_plan.warning {
                self.instance(
                    &stage,
                    parent,
                    EventType::INFO,
                    Level::WARNING,
                    text(warning),
                )?;
            }
            // A debug-only event above VERBOSE: the session's level filters it out.
            let dump = EventData::Inline(&DUMP[..16]);
            self.instance(&stage, parent, EventType::INFO, Level(6), dump)?;
            self.instance(&stage, parent, EventType::END, Level::INFORMATION, name)?;
            self.watchdog(kicks)?;
        }
        // The whole dump: larger than a buffer holds, refused.
        let dump = EventData::Inline(&DUMP);
        self.instance(&boot, None, EventType::INFO, Level::ERROR, dump)?;
        self.instance(
            &boot,
            None,
            EventType::END,
            Level::INFORMATION,
            text("jumping to kernel"),
        )
    }

    fn register(&mut self, class: Guid) -> Result<u64, BootError<S::Error>> {
        self.provider.register(class).map_err(BootError::Trace)
    }

    fn create_instance(&mut self, class: u64) -> Result<EventInstanceInfo, BootError<S::Error>> {
        self.provider
            .create_instance_id(class)
            .map_err(BootError::Trace)
    }

    /// Seals the last buffer, stores what is left and writes the logfile header's buffer.
    fn finish(&mut self) -> Result<BootSummary, BootError<S::Error>> {
        self.session.flush(self.clock.now);
        self.store()?;
        let stats = self.session.stats();
        let mut header = EtlHeader::new(BITNESS, BUFFER_LEN_U32);
        header.buffers_written = self.summary.buffers.saturating_add(1);
        header.events_lost = stats.events_lost;
        header.buffers_lost = stats.buffers_lost;
        header.number_of_processors = 1;
        header.cpu_speed_in_mhz = 25;
        header.timer_resolution = 156_250;
        header.clock_type = ClockType::SYSTEM_TIME;
        header.perf_freq = 10_000_000;
        header.start_time = BOOT_TIME;
        header.end_time = self.clock.now;
        header.boot_time = BOOT_TIME;
        header.version = VersionDetail {
            major_version: 10,
            minor_version: 0,
            sub_version: 0,
            sub_minor_version: 0,
        };
        header.logger_id = self.session.logger_id();
        header.logger_name = "boot";
        header.log_file_name = self.mode.file_name();
        let mut first = [0u8; BUFFER_SIZE];
        header
            .write_first_buffer(&mut first)
            .map_err(BootError::Codec)?;
        self.sink.write_at(0, &first).map_err(BootError::Sink)?;
        self.summary.file_len = u64::from(self.summary.buffers)
            .saturating_add(1)
            .saturating_mul(BUFFER_LEN);
        Ok(self.summary)
    }
}

/// `BUFFER_SIZE` as a file offset step.
const BUFFER_LEN: u64 = BUFFER_SIZE as u64;
/// `BUFFER_SIZE` as the logfile header's `BufferSize`.
const BUFFER_LEN_U32: u32 = BUFFER_SIZE as u32;

/// The data's length as the header's `Size` counts it, and the flags that go with it.
fn data_shape(data: EventData<'_>) -> (usize, WnodeFlags) {
    match data {
        EventData::Inline(bytes) => (bytes.len(), WnodeFlags::TRACED_GUID),
        EventData::MofFields(fields) => (
            fields.len().saturating_mul(etw_classic::MofField::LEN),
            WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR,
        ),
    }
}

/// The header's `Size` for `data_len` bytes after a header of `header_len`.
fn event_size(header_len: usize, data_len: usize) -> u16 {
    u16::try_from(header_len.saturating_add(data_len)).unwrap_or(u16::MAX)
}

/// Traces the boot in `mode` and writes the .etl file to `sink`.
///
/// # Errors
/// [`BootError::Sink`] when the sink fails; the other variants only if the library breaks a
/// rule this trace relies on.
pub fn boot_trace<S: EtlSink>(
    mode: Mode,
    sink: &mut S,
) -> Result<BootSummary, BootError<S::Error>> {
    let mut tracer = Tracer {
        mode,
        session: Session::new(LOGGER_ID, Level::VERBOSE),
        provider: Provider::new(BITNESS),
        clock: SteppingContext {
            now: BOOT_TIME,
            step: CLOCK_STEP,
            thread_id: 1,
            ..SteppingContext::default()
        },
        sink,
        summary: BootSummary::default(),
    };
    tracer.boot()?;
    tracer.finish()
}
