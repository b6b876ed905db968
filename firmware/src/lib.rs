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
//!   steps 1 ms per reading ([`SteppingContext`]), so the bytes do not depend on the machine;
//! - in [`Mode::Interrupts`], timer ticks traced by an interrupt handler ([`on_interrupt`])
//!   into the same session, a [`SharedSession`] in a `static`, between the thread's events;
//! - in [`Mode::Described`], typed events of the [`STAGE_EVENTS`] class instead, preceded by
//!   one `MetaData/EventInfo` event per event type ([`DESCRIPTIONS`], constant bytes in
//!   flash), so that a reader names their provider, event types and fields from the trace
//!   alone.
//!
//! The file goes to an [`EtlSink`]: trace buffers at `BUFFER_SIZE` × (1 + index), then, once
//! the counts are known, the logfile header's buffer at offset 0, as Windows rewrites the
//! header when a log file is closed.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs, missing_debug_implementations)]

use core::cell::Cell;

use critical_section::Mutex;
use etw_classic::{
    describe::{trace_event_info, FileTime, Pointer, ProviderDescription, TypedError, TypedEvent},
    wire::{VersionDetail, WmiBufferHeader},
    write::{SessionStats, SharedSession, TraceContext, WhenFull},
    Bitness, Class, ClockType, CodecError, EtlHeader, EventData, EventInstanceHeader,
    EventInstanceInfo, EventTraceHeader, EventType, Guid, GuidOrPtr, Level, Provider, Session,
    SteppingContext, TimesOrFlags, TraceError, Traced, WnodeFlags,
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
/// The plain event class of the timer ticks the interrupt handler traces
/// ([`Mode::Interrupts`]).
pub const TIMER_CLASS: Guid = class_guid(5);
/// The `ThreadId` of the events traced in thread mode.
pub const THREAD_ID: u32 = 1;
/// The `ThreadId` of the events the interrupt handler traces: none, the handler runs on no
/// thread.
pub const INTERRUPT_THREAD_ID: u32 = 0;

/// The provider of the typed events ([`Mode::Described`]).
pub const BOOT_PROVIDER_GUID: Guid = class_guid(6);

etw_classic::event_class! {
    /// The boot's stages as typed events ([`Mode::Described`]): the class the trace describes
    /// in-band.
    pub const STAGE_EVENTS = (class_guid(7), "Stage", version 1);
    /// A stage starts: its number, how many steps it has, its entry point and its name.
    pub struct StageStart<'a> = (1, "Start") {
        /// The stage's number, from 1.
        pub stage: u32 => "Stage",
        /// Its steps.
        pub steps: u16 => "Steps",
        /// Its entry point.
        pub entry: Pointer => "Entry",
        /// Its name.
        pub name: &'a str => "Name",
    }
    /// A step of a stage is done.
    pub struct StageCheckpoint = (8, "Checkpoint") {
        /// Whether the step succeeded.
        pub ok: bool => "Ok",
        /// The image the step checked.
        pub image: Guid => "Image",
        /// When, as a FILETIME.
        pub at: FileTime => "At",
        /// The first bytes of the image's hash.
        pub hash: [u8; 4] => "Hash",
    }
    /// A stage ends: its number and its status.
    pub struct StageEnd = (2, "End") {
        /// The stage's number.
        pub stage: u32 => "Stage",
        /// Its status, 0 for success.
        pub status: i32 => "Status",
    }
}

/// The provider the trace describes in-band: `Boot`, with the one class [`STAGE_EVENTS`].
pub const BOOT_PROVIDER: ProviderDescription =
    ProviderDescription::new(BOOT_PROVIDER_GUID, "Boot", &[STAGE_EVENTS]);

const _: () = match BOOT_PROVIDER.check() {
    Ok(()) => (),
    Err(error) => panic!("{}", error.message()),
};

/// The `TRACE_EVENT_INFO` of each event type of [`STAGE_EVENTS`], built when the crate is
/// built: constant bytes in flash, written as `MetaData/EventInfo` events at the start of the
/// [`Mode::Described`] trace.
pub const DESCRIPTIONS: [&[u8]; 3] = [
    etw_classic::event_info!(BOOT_PROVIDER, StageStart<'static>),
    etw_classic::event_info!(BOOT_PROVIDER, StageCheckpoint),
    etw_classic::event_info!(BOOT_PROVIDER, StageEnd),
];

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
    /// A flight recorder: the buffers stay in the session until the boot is over, and when the
    /// pool is full the oldest buffer is overwritten ([`WhenFull::OverwriteOldest`]). The
    /// stored file has the last [`BUFFER_COUNT`] buffers, in `SequenceNumber` order (the
    /// numbers go on from those of the overwritten ones), and nothing is lost.
    FlightRecorder,
    /// Thread mode and an interrupt handler trace into one [`SharedSession`], a `static` made
    /// with [`Session::disabled`] (in `.bss`): after each step's checkpoint the boot raises the
    /// interrupt ([`Interrupt::raise`]), whose handler ([`on_interrupt`]) traces a timer tick.
    /// Each buffer is stored as soon as it is sealed
    /// ([`SharedSession::take_oldest_full`] after every call): nothing is lost.
    Interrupts,
    /// As [`Mode::Streaming`], but the trace starts with the descriptions of the typed events
    /// ([`DESCRIPTIONS`], through [`trace_event_infos`]) and the boot's stages are traced as
    /// typed events of [`STAGE_EVENTS`]: [`StageStart`], a [`StageCheckpoint`] per step and
    /// [`StageEnd`].
    Described,
}

impl Mode {
    /// Every mode, in the order the firmware traces them.
    pub const ALL: [Mode; 5] = [
        Mode::Streaming,
        Mode::SingleShot,
        Mode::FlightRecorder,
        Mode::Interrupts,
        Mode::Described,
    ];

    /// The name of the mode's .etl file (also its `LogFileName`).
    pub const fn file_name(self) -> &'static str {
        match self {
            Mode::Streaming => "streaming.etl",
            Mode::SingleShot => "single-shot.etl",
            Mode::FlightRecorder => "flight-recorder.etl",
            Mode::Interrupts => "interrupts.etl",
            Mode::Described => "described.etl",
        }
    }

    /// Whether full buffers are stored after every trace call.
    const fn stores_as_it_goes(self) -> bool {
        match self {
            Mode::Streaming | Mode::Interrupts | Mode::Described => true,
            Mode::SingleShot | Mode::FlightRecorder => false,
        }
    }

    /// What the session does when every buffer is full.
    const fn when_full(self) -> WhenFull {
        match self {
            Mode::FlightRecorder => WhenFull::OverwriteOldest,
            Mode::Streaming | Mode::SingleShot | Mode::Interrupts | Mode::Described => {
                WhenFull::DropNewest
            }
        }
    }
}

/// How the boot raises the interrupt whose handler traces a timer tick ([`Mode::Interrupts`]).
pub trait Interrupt {
    /// Makes the interrupt handler, which calls [`on_interrupt`], run once, and returns after
    /// it has run: on a Cortex-M, pend the exception (it is taken at once, interrupts being
    /// enabled in thread mode).
    fn raise(&mut self);
}

/// An [`Interrupt`] that calls [`on_interrupt`] itself: for the host, which has no interrupt
/// to raise.
#[derive(Clone, Copy, Debug, Default)]
pub struct CalledDirectly;

impl Interrupt for CalledDirectly {
    fn raise(&mut self) {
        on_interrupt();
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
    /// The interrupt was raised, and its handler did not run.
    InterruptNotHandled,
    /// The boot in [`Mode::Interrupts`] was started while another one was running (its
    /// session is the one `static`).
    SharedSessionInUse,
    /// The sink failed.
    Sink(E),
    /// A typed event's value could not be written (the firmware's values always can).
    Typed(TypedError),
}

/// What [`boot_trace`] traced, as the caller can check it against the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BootSummary {
    /// Trace calls made (the interrupt handler's included).
    pub calls: u32,
    /// Events written to a buffer, instance events and plain ones (those overwritten later
    /// included).
    pub written: u32,
    /// Instance events in the file (`INSTANCE32`).
    pub instance_events: u32,
    /// Plain events in the file (`FULL_HEADER32`), the interrupt handler's included.
    pub plain_events: u32,
    /// Events written by the interrupt handler.
    pub interrupt_events: u32,
    /// Events overwritten with their buffer ([`Mode::FlightRecorder`]).
    pub overwritten: u32,
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

/// The one session of [`Mode::Interrupts`], shared by thread mode and the interrupt handler.
/// All zeros until a boot enables it, so it is in `.bss`: RAM, no flash.
static SHARED: SharedSession<BUFFER_SIZE, BUFFER_COUNT> = SharedSession::new(Session::disabled());

/// What thread mode and the interrupt handler share besides the session in
/// [`Mode::Interrupts`], each read or written inside a critical section.
struct SharedState {
    /// The time the next reading of the clock returns.
    now: Cell<i64>,
    /// Whether a boot in [`Mode::Interrupts`] is running.
    in_use: Cell<bool>,
    /// Timer ticks the handler has traced.
    ticks: Cell<u32>,
    /// The outcome of the handler's last trace call, until thread mode takes it.
    handled: Cell<Option<Result<Traced, TraceError>>>,
}

static STATE: Mutex<SharedState> = Mutex::new(SharedState {
    now: Cell::new(0),
    in_use: Cell::new(false),
    ticks: Cell::new(0),
    handled: Cell::new(None),
});

/// The clock of [`Mode::Interrupts`], read by thread mode and the handler alike: it steps
/// [`CLOCK_STEP`] per reading, as the [`SteppingContext`] of the other modes does, and each
/// reading is made inside a critical section.
struct SharedClock {
    thread_id: u32,
}

impl TraceContext for SharedClock {
    fn timestamp(&mut self) -> i64 {
        critical_section::with(|token| {
            let now = &STATE.borrow(token).now;
            let time = now.get();
            now.set(time.wrapping_add(CLOCK_STEP));
            time
        })
    }

    fn thread_id(&self) -> u32 {
        self.thread_id
    }
}

/// What the interrupt handler does in [`Mode::Interrupts`]: traces one timer tick, a plain
/// event of [`TIMER_CLASS`] whose data is the tick's number (a little-endian `u32`, 1 for the
/// first), into the shared session, with `ThreadId` [`INTERRUPT_THREAD_ID`]. Call it from the
/// handler of the interrupt [`Interrupt::raise`] raises; it is interrupt-safe (every access to
/// what it shares with thread mode is made inside a critical section).
///
/// Outside a boot in [`Mode::Interrupts`] the session is not enabled, and the tick is
/// filtered out.
pub fn on_interrupt() {
    let tick = critical_section::with(|token| {
        let ticks = &STATE.borrow(token).ticks;
        ticks.set(ticks.get().wrapping_add(1));
        ticks.get()
    });
    let tick = tick.to_le_bytes();
    let data = EventData::Inline(&tick);
    let (data_len, flags) = data_shape(data);
    let header = EventTraceHeader {
        size: event_size(EventTraceHeader::LEN, data_len),
        class: Class::new(EventType::INFO, Level::INFORMATION, 1),
        guid: GuidOrPtr::from_guid(TIMER_CLASS),
        times: TimesOrFlags::from_client_context(0, flags),
        ..Default::default()
    };
    // A plain event of an unregistered class: the provider checks it, registers nothing.
    let provider = Provider::<0>::new(BITNESS);
    let mut clock = SharedClock {
        thread_id: INTERRUPT_THREAD_ID,
    };
    let traced = SHARED.trace_event(&provider, &header, data, &mut clock);
    critical_section::with(|token| STATE.borrow(token).handled.set(Some(traced)));
}

/// The session a boot traces into, and its clock.
// One recorder per boot, on its stack; without an allocator the session cannot be boxed, and
// the shared one is a `static`.
#[allow(clippy::large_enum_variant)]
enum Recorder {
    /// A session and a clock of the boot's own.
    Own {
        session: Session<BUFFER_SIZE, BUFFER_COUNT>,
        clock: SteppingContext,
    },
    /// [`SHARED`] and the [`SharedClock`] ([`Mode::Interrupts`]); the boot owns them until the
    /// recorder is dropped.
    Shared,
}

impl Recorder {
    /// The session of `mode`, enabled at [`Level::VERBOSE`], its clock at [`BOOT_TIME`].
    fn new(mode: Mode) -> Result<Self, TraceError> {
        let enable = |session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>| {
            session.set_logger_id(LOGGER_ID);
            session.set_when_full(mode.when_full());
            session.set_enable_level(Level::VERBOSE);
        };
        if mode != Mode::Interrupts {
            let mut session = Session::disabled();
            enable(&mut session);
            let clock = SteppingContext {
                now: BOOT_TIME,
                step: CLOCK_STEP,
                thread_id: THREAD_ID,
                ..SteppingContext::default()
            };
            return Ok(Recorder::Own { session, clock });
        }
        let taken = critical_section::with(|token| {
            let state = STATE.borrow(token);
            let free = !state.in_use.replace(true);
            if free {
                state.now.set(BOOT_TIME);
                state.ticks.set(0);
                state.handled.set(None);
            }
            free
        });
        if !taken {
            return Err(TraceError::SessionBusy);
        }
        // From here on, dropping the recorder gives the shared session back.
        let recorder = Recorder::Shared;
        SHARED.with(|session| {
            *session = Session::disabled();
            enable(session);
        })?;
        Ok(recorder)
    }

    fn trace_event_instance(
        &mut self,
        provider: &Provider<3>,
        header: &EventInstanceHeader,
        data: EventData<'_>,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
    ) -> Result<Traced, TraceError> {
        match self {
            Recorder::Own { session, clock } => {
                provider.trace_event_instance(session, header, data, instance, parent, clock)
            }
            Recorder::Shared => {
                let mut clock = SharedClock {
                    thread_id: THREAD_ID,
                };
                SHARED.trace_event_instance(provider, header, data, instance, parent, &mut clock)
            }
        }
    }

    fn trace_event(
        &mut self,
        provider: &Provider<3>,
        header: &EventTraceHeader,
        data: EventData<'_>,
    ) -> Result<Traced, TraceError> {
        match self {
            Recorder::Own { session, clock } => provider.trace_event(session, header, data, clock),
            Recorder::Shared => {
                let mut clock = SharedClock {
                    thread_id: THREAD_ID,
                };
                SHARED.trace_event(provider, header, data, &mut clock)
            }
        }
    }

    /// Writes a `MetaData/EventInfo` event of `info` ([`trace_event_info`]).
    fn trace_event_info(
        &mut self,
        provider: &Provider<3>,
        info: &[u8],
    ) -> Result<Traced, TraceError> {
        match self {
            Recorder::Own { session, clock } => trace_event_info(provider, session, info, clock),
            Recorder::Shared => {
                let mut clock = SharedClock {
                    thread_id: THREAD_ID,
                };
                SHARED.with(|session| trace_event_info(provider, session, info, &mut clock))?
            }
        }
    }

    /// Writes a typed event at `level` ([`TypedEvent::trace`]).
    fn trace_typed(
        &mut self,
        provider: &Provider<3>,
        event: &impl TypedEvent,
        level: Level,
    ) -> Result<Traced, TypedError> {
        match self {
            Recorder::Own { session, clock } => event.trace(provider, session, level, clock),
            Recorder::Shared => {
                let mut clock = SharedClock {
                    thread_id: THREAD_ID,
                };
                SHARED
                    .with(|session| event.trace(provider, session, level, &mut clock))
                    .map_err(TypedError::Trace)?
            }
        }
    }

    /// Hands every sealed buffer, oldest first, to `store`, and gives it back to the pool.
    fn drain<E>(
        &mut self,
        mut store: impl FnMut(&[u8; BUFFER_SIZE]) -> Result<(), E>,
    ) -> Result<(), BootError<E>> {
        match self {
            Recorder::Own { session, .. } => {
                session.drain(store).map_err(BootError::Sink)?;
            }
            Recorder::Shared => {
                // Copied out inside the critical section, stored outside it.
                let mut buffer = [0u8; BUFFER_SIZE];
                while SHARED
                    .take_oldest_full(&mut buffer)
                    .map_err(BootError::Trace)?
                {
                    store(&buffer).map_err(BootError::Sink)?;
                }
            }
        }
        Ok(())
    }

    /// The time the clock's next reading returns.
    fn now(&self) -> i64 {
        match self {
            Recorder::Own { clock, .. } => clock.now,
            Recorder::Shared => critical_section::with(|token| STATE.borrow(token).now.get()),
        }
    }

    /// Seals the current buffer at `now`.
    fn flush(&mut self, now: i64) -> Result<(), TraceError> {
        match self {
            Recorder::Own { session, .. } => {
                session.flush(now);
            }
            Recorder::Shared => {
                SHARED.with(|session| session.flush(now))?;
            }
        }
        Ok(())
    }

    /// The session's counters and logger id.
    fn stats(&self) -> Result<(SessionStats, u16), TraceError> {
        match self {
            Recorder::Own { session, .. } => Ok((session.stats(), session.logger_id())),
            Recorder::Shared => SHARED.with(|session| (session.stats(), session.logger_id())),
        }
    }
}

impl Drop for Recorder {
    /// Gives the shared session back for the next boot in [`Mode::Interrupts`].
    fn drop(&mut self) {
        if let Recorder::Shared = self {
            critical_section::with(|token| STATE.borrow(token).in_use.set(false));
        }
    }
}

/// The kinds of event the boot counts, as indexes of [`Tracer::slot_events`].
#[derive(Clone, Copy)]
enum Kind {
    /// An instance event (`INSTANCE32`).
    Instance = 0,
    /// A plain event (`FULL_HEADER32`).
    Plain = 1,
}

/// The session, the provider and the interrupt, and what has been traced and stored so far.
struct Tracer<'s, S: EtlSink, I: Interrupt> {
    mode: Mode,
    recorder: Recorder,
    provider: Provider<3>,
    sink: &'s mut S,
    interrupt: &'s mut I,
    summary: BootSummary,
    /// Instance and plain events in the buffer of each slot of the pool: what a buffer held
    /// when the flight recorder overwrites it.
    slot_events: [[u32; 2]; BUFFER_COUNT],
    /// `SessionStats::buffers_overwritten` when last looked at.
    buffers_overwritten: u32,
}

impl<S: EtlSink, I: Interrupt> Tracer<'_, S, I> {
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
        let traced =
            self.recorder
                .trace_event_instance(&self.provider, &header, data, instance, parent);
        self.count(traced, Kind::Instance)
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
        let traced = self.recorder.trace_event(&self.provider, &header, data);
        self.count(traced, Kind::Plain)
    }

    /// In [`Mode::Interrupts`], raises the interrupt and counts what its handler traced.
    fn timer_tick(&mut self) -> Result<(), BootError<S::Error>> {
        if self.mode != Mode::Interrupts {
            return Ok(());
        }
        self.interrupt.raise();
        let handled = critical_section::with(|token| STATE.borrow(token).handled.take());
        let traced = handled.ok_or(BootError::InterruptNotHandled)?;
        if let Ok(Traced::Written { .. }) = traced {
            let summary = &mut self.summary;
            summary.interrupt_events = summary.interrupt_events.saturating_add(1);
        }
        self.count(traced, Kind::Plain)
    }

    /// Counts a call's outcome and, when streaming, stores the buffers it sealed.
    fn count(
        &mut self,
        traced: Result<Traced, TraceError>,
        kind: Kind,
    ) -> Result<(), BootError<S::Error>> {
        self.summary.calls = self.summary.calls.saturating_add(1);
        match traced {
            Ok(Traced::FilteredOut) => {
                self.summary.filtered_out = self.summary.filtered_out.saturating_add(1);
            }
            Ok(written) => {
                self.summary.written = self.summary.written.saturating_add(1);
                if let Traced::Written { slot, offset, .. } = written {
                    if offset == WmiBufferHeader::LEN {
                        self.new_buffer_in(slot)?;
                    }
                    let in_slot = self.slot_events.get_mut(slot);
                    if let Some(count) = in_slot.and_then(|counts| counts.get_mut(kind as usize)) {
                        *count = count.saturating_add(1);
                    }
                }
                match kind {
                    Kind::Instance => {
                        self.summary.instance_events =
                            self.summary.instance_events.saturating_add(1);
                    }
                    Kind::Plain => {
                        self.summary.plain_events = self.summary.plain_events.saturating_add(1);
                    }
                }
            }
            Err(TraceError::NoFreeBuffer { .. }) => {
                self.summary.lost = self.summary.lost.saturating_add(1);
            }
            Err(TraceError::EventTooLarge { .. }) => {
                self.summary.too_large = self.summary.too_large.saturating_add(1);
            }
            Err(error) => return Err(BootError::Trace(error)),
        }
        if self.mode.stores_as_it_goes() {
            self.store()?;
        }
        Ok(())
    }

    /// An event started a new buffer in `slot`. If the session overwrote a buffer to make
    /// room, it was the one `slot` held (the oldest full buffer, whose slot comes next in the
    /// ring once the others are full): its events leave the file's counts.
    fn new_buffer_in(&mut self, slot: usize) -> Result<(), BootError<S::Error>> {
        let (stats, _) = self.recorder.stats().map_err(BootError::Trace)?;
        let Some(held) = self.slot_events.get_mut(slot) else {
            return Ok(());
        };
        if stats.buffers_overwritten != self.buffers_overwritten {
            self.buffers_overwritten = stats.buffers_overwritten;
            let [instance, plain] = *held;
            let summary = &mut self.summary;
            summary.instance_events = summary.instance_events.saturating_sub(instance);
            summary.plain_events = summary.plain_events.saturating_sub(plain);
        }
        *held = [0; 2];
        Ok(())
    }

    /// Stores every sealed buffer after those already stored, and gives it back to the pool.
    fn store(&mut self) -> Result<(), BootError<S::Error>> {
        let sink = &mut *self.sink;
        let buffers = &mut self.summary.buffers;
        self.recorder.drain(|buffer| {
            let index = u64::from(*buffers).saturating_add(1);
            sink.write_at(index.saturating_mul(BUFFER_LEN), buffer)?;
            *buffers = buffers.saturating_add(1);
            Ok(())
        })
    }

    /// The boot: nested instances, filtered and refused events, watchdog kicks (and timer
    /// ticks in [`Mode::Interrupts`]).
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
                self.timer_tick()?;
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

    /// The boot of [`Mode::Described`]: the descriptions, then for each stage a typed
    /// [`StageStart`], a [`StageCheckpoint`] per step and a [`StageEnd`], and the watchdog
    /// kicks as in the other modes.
    fn described_boot(&mut self) -> Result<(), BootError<S::Error>> {
        for info in DESCRIPTIONS {
            let traced = self.recorder.trace_event_info(&self.provider, info);
            self.count(traced, Kind::Plain)?;
        }
        let mut at = BOOT_TIME.unsigned_abs();
        for ((stage, kicks), plan) in (1u32..).zip(1u32..).zip(STAGES.iter()) {
            let steps = u8::try_from(plan.steps).unwrap_or(u8::MAX);
            let start = StageStart {
                stage,
                steps: u16::from(steps),
                entry: Pointer(0x0800_0000 | u64::from(stage) << 12),
                name: plan.name,
            };
            self.typed(&start, Level::INFORMATION)?;
            for step in 1..=steps {
                at = at.saturating_add(CLOCK_STEP.unsigned_abs());
                let checkpoint = StageCheckpoint {
                    ok: plan.warning.is_none() || step != steps,
                    image: class_guid(step),
                    at: FileTime(at),
                    hash: [step, steps, 0xa5, 0x5a],
                };
                self.typed(&checkpoint, Level::VERBOSE)?;
            }
            let status = if plan.warning.is_some() { -1 } else { 0 };
            self.typed(&StageEnd { stage, status }, Level::INFORMATION)?;
            self.watchdog(kicks)?;
        }
        Ok(())
    }

    /// Traces a typed event and counts it as a plain event.
    fn typed(&mut self, event: &impl TypedEvent, level: Level) -> Result<(), BootError<S::Error>> {
        let traced = match self.recorder.trace_typed(&self.provider, event, level) {
            Ok(traced) => Ok(traced),
            Err(TypedError::Trace(error)) => Err(error),
            Err(error) => return Err(BootError::Typed(error)),
        };
        self.count(traced, Kind::Plain)
    }

    fn register(&mut self, class: Guid) -> Result<u64, BootError<S::Error>> {
        self.provider.register(class).map_err(BootError::Trace)
    }

    fn create_instance(&mut self, class: u64) -> Result<EventInstanceInfo, BootError<S::Error>> {
        self.provider
            .create_instance_id(class)
            .map_err(BootError::Trace)
    }

    /// Seals the last buffer, stores what is left (oldest first: in `SequenceNumber` order)
    /// and writes the logfile header's buffer.
    fn finish(&mut self) -> Result<BootSummary, BootError<S::Error>> {
        let now = self.recorder.now();
        self.recorder.flush(now).map_err(BootError::Trace)?;
        self.store()?;
        let (stats, logger_id) = self.recorder.stats().map_err(BootError::Trace)?;
        self.summary.overwritten = stats.events_overwritten;
        let mut header = EtlHeader::new(BITNESS, BUFFER_LEN_U32);
        header.buffers_written = self.summary.buffers.saturating_add(1);
        header.record_losses(&stats);
        header.number_of_processors = 1;
        header.cpu_speed_in_mhz = 25;
        header.timer_resolution = 156_250;
        header.clock_type = ClockType::SYSTEM_TIME;
        header.perf_freq = 10_000_000;
        header.start_time = BOOT_TIME;
        header.end_time = now;
        header.boot_time = BOOT_TIME;
        header.version = VersionDetail {
            major_version: 10,
            minor_version: 0,
            sub_version: 0,
            sub_minor_version: 0,
        };
        header.logger_id = logger_id;
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

/// Traces the boot in `mode` and writes the .etl file to `sink`; in [`Mode::Interrupts`],
/// `interrupt` raises the interrupt whose handler calls [`on_interrupt`] ([`CalledDirectly`]
/// on the host).
///
/// # Errors
/// [`BootError::Sink`] when the sink fails; [`BootError::InterruptNotHandled`] when the
/// handler did not run; [`BootError::SharedSessionInUse`] when a boot in
/// [`Mode::Interrupts`] is already running; the other variants only if the library breaks a
/// rule this trace relies on.
pub fn boot_trace<S: EtlSink, I: Interrupt>(
    mode: Mode,
    sink: &mut S,
    interrupt: &mut I,
) -> Result<BootSummary, BootError<S::Error>> {
    let recorder = Recorder::new(mode).map_err(|error| match error {
        TraceError::SessionBusy => BootError::SharedSessionInUse,
        other => BootError::Trace(other),
    })?;
    let mut tracer = Tracer {
        mode,
        recorder,
        provider: Provider::new(BITNESS),
        sink,
        interrupt,
        summary: BootSummary::default(),
        slot_events: [[0; 2]; BUFFER_COUNT],
        buffers_overwritten: 0,
    };
    if mode == Mode::Described {
        tracer.described_boot()?;
    } else {
        tracer.boot()?;
    }
    tracer.finish()
}
