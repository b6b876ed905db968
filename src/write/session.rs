//! A trace session's fixed pool of trace buffers: events appended 8-byte aligned, full buffers
//! handed to the caller and taken back for reuse, lost and overwritten events counted.

use crate::invariant::not_reached;
use crate::wire::codes::Level;
use crate::wire::field::Writer;
use crate::wire::file::wmi_buffer_header::{
    BufferFlags, BufferType, WmiBufferHeader, DEFAULT_TRACE_ALIGNMENT,
};
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::records::buffer_context::BufferContext;
use crate::write::error::TraceError;
use crate::write::event::{EventBytes, Traced};

/// `ETW_BUFFER_STATE` 3 (Chappell: "flush"), the state of every buffer in the real traces'
/// files, and of a buffer this session has sealed.
const BUFFER_STATE_FLUSH: u32 = 3;

/// What fills the unused tail of a sealed buffer, eight bytes at a time: its first four bytes
/// read as the 0xFFFFFFFF end mark, as in the buffers Windows writes.
const FILL: [u8; 8] = [0xFF; 8];

/// "Size must be less than the size of the event tracing session's buffer minus 72 (0x48)."
const BUFFER_SIZE_MARGIN: usize = 72;

/// One more than the largest `Size` a header can hold: "The largest event you can log is 64K."
const SIZE_LIMIT: usize = 0x1_0000;

/// What a session does with an event that needs a new buffer when every buffer of the pool is
/// full (sealed and not yet taken back by the caller).
///
/// The choice only matters on that path: an event that fits the current buffer costs the same
/// in both modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[repr(u8)]
pub enum WhenFull {
    /// Windows' behaviour, and the default: "Rather than blocking until more buffers become
    /// available, TraceEvent discards the event." The call fails with
    /// [`TraceError::NoFreeBuffer`], the event is counted in [`SessionStats::events_lost`], and
    /// the next buffer sealed carries `ETW_BUFFER_FLAG_EVENTS_LOST`. The full buffers keep the
    /// oldest events.
    #[default]
    DropNewest = 0,
    /// A flight recorder: the oldest full buffer is overwritten, so the pool keeps the newest
    /// events. Its events are counted in [`SessionStats::events_overwritten`] and the buffer in
    /// [`SessionStats::buffers_overwritten`], not as lost: overwriting is what the mode is for,
    /// as in Windows' circular modes, whose `EventsLost` counts only events that were not
    /// logged. The buffers left still read back in order: their `SequenceNumber`s keep counting,
    /// with a gap where the overwritten ones were.
    OverwriteOldest = 1,
}

/// What a session has done so far, with the names of the `TRACE_LOGFILE_HEADER` and
/// `EVENT_TRACE_PROPERTIES` counters. Counts saturate at `u32::MAX`.
///
/// [`EtlHeader::record_losses`](crate::write::EtlHeader::record_losses) copies the loss counts
/// into the logfile header of an .etl file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct SessionStats {
    /// Events written to a buffer (overwritten ones included).
    pub events_written: u32,
    /// `EventsLost`: events discarded because no buffer was free
    /// ([`TraceError::NoFreeBuffer`], in [`WhenFull::DropNewest`] mode).
    pub events_lost: u32,
    /// `BuffersWritten`: buffers sealed and queued for the caller (overwritten ones included).
    pub buffers_written: u32,
    /// `BuffersLost` (`RealTimeBuffersLost`): full buffers the caller gave up on with
    /// [`Session::discard_oldest_full`].
    pub buffers_lost: u32,
    /// Events that were written and then overwritten with their buffer
    /// ([`WhenFull::OverwriteOldest`]).
    pub events_overwritten: u32,
    /// Full buffers overwritten before the caller took them ([`WhenFull::OverwriteOldest`]).
    pub buffers_overwritten: u32,
}

/// A trace session: a pool of `BUFFER_COUNT` trace buffers of `BUFFER_SIZE` bytes each, the
/// level it is enabled at, what it does when the pool is full, and its counters.
///
/// Events (written by a [`Provider`](crate::write::Provider)) go into the current buffer, each at an
/// offset that is a multiple of [`DEFAULT_TRACE_ALIGNMENT`] (8), followed by zero padding:
/// - "Size must be less than the size of the event tracing session's buffer minus 72 (0x48)":
///   a larger event fails with [`TraceError::EventTooLarge`] (`ERROR_MORE_DATA`), checked on
///   the `Size` the event has in the buffer.
/// - An event that does not fit what is left of the current buffer seals it (it becomes full)
///   and goes to the start of the next buffer: "Data from a single event cannot span multiple
///   buffers".
/// - When every buffer is full, [`WhenFull`] decides: the event is discarded
///   ([`WhenFull::DropNewest`], Windows' way and the default) or the oldest full buffer is
///   overwritten ([`WhenFull::OverwriteOldest`], a flight recorder).
///
/// A lost event leaves no trace in what is kept: the session does not read the clock for it
/// (so a stepping clock does not step), and no `SequenceNumber` is spent on it. A buffer sealed
/// by an event that is then lost is stamped with the time of its own last event.
///
/// A sealed buffer is what Windows flushes to an .etl file: a [`WmiBufferHeader`] with
/// `BufferSize` = `BUFFER_SIZE`; `SavedOffset`, `CurrentOffset` and `Offset` = the end of the
/// last event's padding (header included); `TimeStamp` = the time of the call that sealed it
/// (the event that did not fit, or [`flush`](Self::flush)'s); `SequenceNumber` counting 1, 2,
/// 3... over the session; `ClientContext` = the session's processor number, alignment 8 and
/// logger id; `State` 3 (flush); `BufferFlag` normal or `EVENTS_LOST`; `BufferType` generic;
/// the rest zero. After the events the buffer is filled with 0xFF, so a walk stops at the
/// 0xFFFFFFFF end mark.
///
/// The buffers are used in turn, as a ring: slot 0, 1, 2... and back to 0. Full buffers wait,
/// oldest first, until the caller takes them with [`oldest_full`](Self::oldest_full) and gives
/// them back with [`release_oldest_full`](Self::release_oldest_full) (or [`drain`](Self::drain)
/// does both); [`flush`](Self::flush) seals a partly filled buffer.
///
/// A firmware keeps the session in a `static`. [`Session::disabled`] makes one whose bytes are
/// all zero, so that the static (and its buffers) goes to `.bss`, which costs RAM but no flash;
/// the other constructors put it in `.data`, whose initial image is stored in flash too.
///
/// `BUFFER_SIZE` must be a multiple of 8, more than 0x48 + 72 and at most `u32::MAX`, and
/// `BUFFER_COUNT` at least 1; other values fail to compile.
#[derive(Clone)]
pub struct Session<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> {
    buffers: [[u8; BUFFER_SIZE]; BUFFER_COUNT],
    /// The slot of the oldest full buffer (when `full` is not 0).
    oldest: usize,
    /// How many buffers are full: slots `oldest`, `oldest + 1`, ... (modulo `BUFFER_COUNT`).
    full: usize,
    /// The slot after the full ones, `(oldest + full) % BUFFER_COUNT`: the current buffer, or
    /// the one that becomes current next.
    current: usize,
    /// Bytes taken in the current buffer, its header included; 0 when there is no current
    /// buffer.
    used: usize,
    /// Buffers sealed so far: the next one's `SequenceNumber` is one more.
    sealed: i64,
    stats: SessionStats,
    logger_id: u16,
    processor_number: u8,
    enable_level: Level,
    when_full: WhenFull,
    /// An event was lost since the last buffer was sealed.
    lost_since_seal: bool,
}

impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> Session<BUFFER_SIZE, BUFFER_COUNT> {
    const VALID: () = {
        assert!(
            BUFFER_SIZE.is_multiple_of(DEFAULT_TRACE_ALIGNMENT),
            "BUFFER_SIZE must be a multiple of 8"
        );
        assert!(
            BUFFER_SIZE > WmiBufferHeader::LEN + BUFFER_SIZE_MARGIN,
            "BUFFER_SIZE must leave room for an event after the 0x48-byte buffer header"
        );
        assert!(
            fits_u32(BUFFER_SIZE),
            "BUFFER_SIZE must fit the u32 BufferSize"
        );
        assert!(BUFFER_COUNT >= 1, "a session needs at least one buffer");
    };

    /// `BUFFER_SIZE` as the `u32` of `BufferSize`.
    // `VALID` holds it to a `u32`.
    #[allow(clippy::as_conversions)]
    const BUFFER_SIZE_U32: u32 = BUFFER_SIZE as u32;

    /// The smallest event `Size` the session refuses (see [`event_size_limit`](Self::event_size_limit)).
    const EVENT_SIZE_LIMIT: usize = {
        // `VALID` holds `BUFFER_SIZE` above 0x48 + 72.
        #[allow(clippy::arithmetic_side_effects)]
        let limit = BUFFER_SIZE - BUFFER_SIZE_MARGIN;
        if limit < SIZE_LIMIT {
            limit
        } else {
            SIZE_LIMIT
        }
    };

    /// A session with all buffers free, whose buffers carry `logger_id` in their
    /// `ClientContext`, enabled at `enable_level` (see [`Level::enables`]), that discards new
    /// events when every buffer is full ([`WhenFull::DropNewest`]).
    pub const fn new(logger_id: u16, enable_level: Level) -> Self {
        Self::with_when_full(logger_id, enable_level, WhenFull::DropNewest)
    }

    /// A session as [`new`](Self::new) makes it, that does `when_full` when every buffer is
    /// full: [`WhenFull::OverwriteOldest`] makes a flight recorder.
    pub const fn with_when_full(logger_id: u16, enable_level: Level, when_full: WhenFull) -> Self {
        let mut session = Self::disabled();
        session.logger_id = logger_id;
        session.enable_level = enable_level;
        session.when_full = when_full;
        session
    }

    /// A session whose every byte is zero: `LoggerId` 0, enabled at [`Level::NONE`] (it writes
    /// nothing until [`set_enable_level`](Self::set_enable_level)), in
    /// [`WhenFull::DropNewest`] mode, all buffers free.
    ///
    /// A `static` initialised with it goes to `.bss`, which start-up code zeroes: the buffers
    /// cost RAM but no flash. Set the level, and the logger id and mode if they are not the
    /// defaults, at start-up.
    ///
    /// ```
    /// use etw_classic::{write::WhenFull, Level, Session};
    /// // All zeros: in `.bss`.
    /// static SESSION: std::sync::Mutex<Session<512, 4>> = std::sync::Mutex::new(Session::disabled());
    ///
    /// let mut session = Session::<512, 4>::disabled();
    /// session.set_logger_id(1);
    /// session.set_when_full(WhenFull::OverwriteOldest);
    /// session.set_enable_level(Level::VERBOSE);
    /// assert_eq!(session.enable_level(), Level::VERBOSE);
    /// ```
    pub const fn disabled() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID;
        Self {
            buffers: [const { [0; BUFFER_SIZE] }; BUFFER_COUNT],
            oldest: 0,
            full: 0,
            current: 0,
            used: 0,
            sealed: 0,
            stats: SessionStats {
                events_written: 0,
                events_lost: 0,
                buffers_written: 0,
                buffers_lost: 0,
                events_overwritten: 0,
                buffers_overwritten: 0,
            },
            logger_id: 0,
            processor_number: 0,
            enable_level: Level::NONE,
            when_full: WhenFull::DropNewest,
            lost_since_seal: false,
        }
    }

    /// The level the session is enabled at: events whose `Class.Level` it does not
    /// [enable](Level::enables) are not written.
    #[inline]
    pub const fn enable_level(&self) -> Level {
        self.enable_level
    }

    /// Enables the session at another level (the controller's `EnableTrace` role);
    /// [`Level::NONE`] stops every event.
    pub fn set_enable_level(&mut self, level: Level) {
        self.enable_level = level;
    }

    /// The `LoggerId` the session's buffers carry.
    pub const fn logger_id(&self) -> u16 {
        self.logger_id
    }

    /// Sets the `LoggerId` stamped into the `ClientContext` of the buffers sealed from now on.
    pub fn set_logger_id(&mut self, logger_id: u16) {
        self.logger_id = logger_id;
    }

    /// What the session does when every buffer is full.
    pub const fn when_full(&self) -> WhenFull {
        self.when_full
    }

    /// Changes what the session does the next time every buffer is full.
    pub fn set_when_full(&mut self, when_full: WhenFull) {
        self.when_full = when_full;
    }

    /// Sets the `ProcessorNumber` stamped into the `ClientContext` of the buffers sealed from
    /// now on.
    pub fn set_processor_number(&mut self, processor_number: u8) {
        self.processor_number = processor_number;
    }

    /// The session's counters.
    pub const fn stats(&self) -> SessionStats {
        self.stats
    }

    /// The buffer size, `BUFFER_SIZE`.
    pub const fn buffer_size(&self) -> usize {
        BUFFER_SIZE
    }

    /// The smallest event `Size` the session refuses: `BUFFER_SIZE - 72`, or 0x10000 for
    /// buffers over 64 KiB.
    pub const fn event_size_limit(&self) -> usize {
        Self::EVENT_SIZE_LIMIT
    }

    /// Bytes of events (with their padding) in the current buffer, 0 when there is none.
    pub fn current_fill(&self) -> usize {
        self.used.saturating_sub(WmiBufferHeader::LEN)
    }

    /// How many sealed buffers wait for the caller.
    pub fn full_count(&self) -> usize {
        self.full
    }

    /// How many buffers are free.
    pub fn free_count(&self) -> usize {
        BUFFER_COUNT
            .saturating_sub(self.full)
            .saturating_sub(usize::from(self.used != 0))
    }

    /// Seals the current buffer if it holds any event, stamping `timestamp` as its flush time;
    /// returns whether a buffer was sealed. Call it at the end of a trace so that the last
    /// events reach [`oldest_full`](Self::oldest_full).
    pub fn flush(&mut self, timestamp: i64) -> bool {
        if self.used > WmiBufferHeader::LEN {
            self.seal_current(timestamp);
            true
        } else {
            false
        }
    }

    /// The oldest sealed buffer, all `BUFFER_SIZE` bytes of it (header, events, 0xFF fill).
    pub fn oldest_full(&self) -> Option<&[u8; BUFFER_SIZE]> {
        if self.full == 0 {
            return None;
        }
        self.buffers.get(self.oldest)
    }

    /// Gives the oldest sealed buffer back to the pool once the caller has stored it; returns
    /// `false` when no buffer was full.
    pub fn release_oldest_full(&mut self) -> bool {
        self.free_oldest_full()
    }

    /// Gives the oldest sealed buffer back to the pool without storing it: it is counted in
    /// [`SessionStats::buffers_lost`]. Returns `false` when no buffer was full.
    pub fn discard_oldest_full(&mut self) -> bool {
        let freed = self.free_oldest_full();
        if freed {
            self.stats.buffers_lost = self.stats.buffers_lost.saturating_add(1);
        }
        freed
    }

    /// Hands every sealed buffer, oldest first, to `store`, and gives each back to the pool once
    /// `store` has returned `Ok`. Stops at the first error, which it returns, and keeps that
    /// buffer (and the later ones) full, so nothing is lost. Returns how many were stored.
    ///
    /// # Errors
    /// The first error `store` returns.
    pub fn drain<E>(
        &mut self,
        mut store: impl FnMut(&[u8; BUFFER_SIZE]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut stored = 0usize;
        while let Some(buffer) = self.oldest_full() {
            store(buffer)?;
            self.free_oldest_full();
            #[allow(clippy::arithmetic_side_effects)]
            {
                // At most `BUFFER_COUNT`: each pass frees one full buffer, and `store` cannot
                // fill another.
                stored += 1;
            }
        }
        Ok(stored)
    }

    /// Appends one event of `total` bytes (its `Size` in the buffer, header included; MOF
    /// fields whose lengths add up to more than a `usize` holds come as `usize::MAX`):
    /// `write_header` writes the header for the event's `Size` and time in place (given
    /// `context` back), then the data follows. The provider has checked everything but size
    /// and room. Returns the event's `Size`, or `None` when the event is refused:
    /// [`write_error`](Self::write_error) then says why, and [`written`](Self::written) says
    /// where a written event is, so that the outcome is a `u16` in a register rather than a
    /// `Result` in memory and neither the slot nor the offset is kept for it.
    ///
    /// `timestamp` is called once, only when the event will be written (never for an event
    /// that is lost), and gives the event's time, which also stamps a buffer the event seals.
    #[inline]
    pub(crate) fn write_event<const HEADER_LEN: usize, Context>(
        &mut self,
        total: usize,
        data: impl EventBytes,
        context: &mut Context,
        timestamp: impl FnOnce(&mut Context) -> i64,
        write_header: impl FnOnce(&mut [u8; HEADER_LEN], u16, i64, &Context),
    ) -> Option<u16> {
        let size = match u16::try_from(total) {
            Ok(size) if total < Self::EVENT_SIZE_LIMIT => size,
            _ => return None,
        };
        let padded = padded_len(size);
        // The fast path: the current buffer has room. (`used` is at most `BUFFER_SIZE` and
        // `padded` below 0x10008, so the sum fits a `usize`, which has at least 32 bits.)
        let end = self.used.saturating_add(padded);
        let (offset, end, time) = if self.used != 0 && end <= BUFFER_SIZE {
            (self.used, end, timestamp(context))
        } else {
            // The clock is read here, between the two halves, so that the context stays in the
            // caller (neither half takes it), and only once a buffer is sure.
            if !self.room_after_current() {
                self.lose_event();
                return None;
            }
            let time = timestamp(context);
            self.start_buffer(time);
            (
                WmiBufferHeader::LEN,
                WmiBufferHeader::LEN.saturating_add(padded),
                time,
            )
        };
        // The test above, or `start_buffer`, found `padded` bytes free at `offset` in the
        // current buffer; were they not there, the event would be lost, not written.
        let Some(event) = self
            .buffers
            .get_mut(self.current)
            .and_then(|buffer| buffer.get_mut(offset..end))
        else {
            not_reached();
            self.lose_event();
            return None;
        };
        // The padding is zeros: the last 8 bytes are cleared first, and the header and the
        // data written over the part of them that is not padding (`padded` is at least 0x30).
        if let Some(last) = event.last_chunk_mut::<8>() {
            *last = [0; 8];
        }
        // `padded` is at least the header, and holds the data after it (the provider checked
        // `total`, the header and the data, before): these arms are not reached either.
        let Some((header_out, rest)) = event.split_first_chunk_mut::<HEADER_LEN>() else {
            not_reached();
            self.lose_event();
            return None;
        };
        // The header first: the values it is built from are then done with before the data
        // is copied, and need not be kept across it.
        write_header(header_out, size, time, context);
        if data.write_to(rest).is_none() {
            not_reached();
            self.lose_event();
            return None;
        }
        self.used = end;
        self.stats.events_written = self.stats.events_written.saturating_add(1);
        Some(size)
    }

    /// Where the event of `Size` `size` that [`write_event`](Self::write_event) has just
    /// written is: the last in the current buffer.
    #[inline(always)]
    pub(crate) fn written(&self, size: u16) -> Traced {
        Traced::Written {
            slot: self.current,
            offset: self.used.saturating_sub(padded_len(size)),
            size,
        }
    }

    /// Why [`write_event`](Self::write_event) refused an event of `total` bytes that the
    /// provider had checked: too large ([`TraceError::EventTooLarge`]), else lost
    /// ([`TraceError::NoFreeBuffer`], already counted).
    #[cold]
    pub(crate) fn write_error(&self, total: usize) -> TraceError {
        if total >= Self::EVENT_SIZE_LIMIT {
            TraceError::EventTooLarge {
                size: total,
                limit: Self::EVENT_SIZE_LIMIT,
            }
        } else {
            TraceError::NoFreeBuffer {
                events_lost: self.stats.events_lost,
            }
        }
    }

    /// Whether an event that does not fit the current buffer (or finds none) will have a
    /// buffer: one is free once the current one is sealed, or the session overwrites the
    /// oldest full one. When it will not, the current buffer is sealed all the same (full
    /// buffers go to the caller), stamped with its last event's time, as the clock is not read
    /// for a lost event.
    #[inline(never)]
    fn room_after_current(&mut self) -> bool {
        let has_current = self.used != 0;
        // Sealing the current buffer would leave none free.
        let none_free = self.full.saturating_add(usize::from(has_current)) >= BUFFER_COUNT;
        if none_free && self.when_full == WhenFull::DropNewest {
            let last = self
                .buffers
                .get(self.current)
                .and_then(|buffer| walk(buffer, self.used).1);
            // A current buffer always holds an event (it is started for one); were it empty,
            // it would stay current, and the next event would take it.
            if let Some(last) = last {
                self.seal_current(last);
            }
            return false;
        }
        true
    }

    /// Seals the current buffer (if any) at `timestamp`, overwrites the oldest full buffer if
    /// none is free ([`room_after_current`](Self::room_after_current) has said one may be),
    /// and makes the next buffer current, empty.
    #[inline(never)]
    fn start_buffer(&mut self, timestamp: i64) {
        self.seal_current(timestamp);
        if self.full >= BUFFER_COUNT {
            self.overwrite_oldest();
        }
        self.used = WmiBufferHeader::LEN;
    }

    /// Counts one lost event.
    #[cold]
    fn lose_event(&mut self) {
        self.stats.events_lost = self.stats.events_lost.saturating_add(1);
        self.lost_since_seal = true;
    }

    /// Writes the current buffer's header and fill, and queues it for the caller.
    #[inline(never)]
    fn seal_current(&mut self, timestamp: i64) {
        let used = self.used;
        if used == 0 {
            return;
        }
        // `SequenceNumber` is a `LONG64` that wraps, as Windows lets it (at a buffer a
        // nanosecond, after 292 years).
        let sequence_number = self.sealed.wrapping_add(1);
        // At most `BUFFER_SIZE`, which `VALID` holds to a `u32`.
        #[allow(clippy::as_conversions)]
        let end = used as u32;
        let header = WmiBufferHeader {
            buffer_size: Self::BUFFER_SIZE_U32,
            saved_offset: end,
            current_offset: end,
            reference_count: 0,
            timestamp,
            sequence_number,
            clock_or_link: 0,
            client_context: BufferContext::new(
                self.processor_number,
                ALIGNMENT_BYTE,
                self.logger_id,
            ),
            state: BUFFER_STATE_FLUSH,
            offset: end,
            buffer_flag: if self.lost_since_seal {
                BufferFlags::EVENTS_LOST
            } else {
                BufferFlags::NORMAL
            },
            buffer_type: BufferType::GENERIC,
            reference_time: [0; 16],
        };
        // `current` is always a slot of the pool (see `next_slot`); were it not, nothing would
        // be written, and the counters below would still move on.
        debug_assert!(
            self.current < BUFFER_COUNT,
            "broken invariant: no current slot"
        );
        if let Some(buffer) = self.buffers.get_mut(self.current) {
            // `VALID` holds `BUFFER_SIZE` above 0x48: the header always fits, and the check is
            // resolved when the code is built, as both lengths are constants. Written member by
            // member in place, so that the 72 bytes are never built on the stack first.
            if let Some(out) = buffer.first_chunk_mut::<{ WmiBufferHeader::LEN }>() {
                header.write(&mut Writer::new(out));
            }
            // The fill, from the end of the events on, eight bytes at a time (both are multiples
            // of 8): two word stores each, without a `memset` (220 bytes of code).
            if let Some(tail) = buffer.get_mut(used..) {
                for chunk in tail.chunks_exact_mut(FILL.len()) {
                    if let Ok(chunk) = <&mut [u8; 8]>::try_from(chunk) {
                        *chunk = FILL;
                    }
                }
            }
        }
        self.current = Self::next_slot(self.current);
        self.used = 0;
        // At most `BUFFER_COUNT`: a buffer is sealed only when it was current, so not full.
        self.full = self.full.saturating_add(1);
        self.sealed = sequence_number;
        self.lost_since_seal = false;
        self.stats.buffers_written = self.stats.buffers_written.saturating_add(1);
    }

    /// Drops the oldest full buffer to make room (every buffer is full), counting it and its
    /// events as overwritten. Out of line: the walk's frame is not added to the seal's.
    #[inline(never)]
    fn overwrite_oldest(&mut self) {
        // The events of the buffer, up to the `Offset` its seal wrote (0 were it not there).
        let events = self.buffers.get(self.oldest).map_or(0, |buffer| {
            let end = buffer
                .first_chunk::<{ WmiBufferHeader::LEN }>()
                .map_or(0, |header| WmiBufferHeader::from_bytes(header).offset);
            walk(buffer, usize::try_from(end).unwrap_or(BUFFER_SIZE)).0
        });
        if self.free_oldest_full() {
            self.stats.events_overwritten = self.stats.events_overwritten.saturating_add(events);
            self.stats.buffers_overwritten = self.stats.buffers_overwritten.saturating_add(1);
        }
    }

    fn free_oldest_full(&mut self) -> bool {
        if self.full == 0 {
            return false;
        }
        self.oldest = Self::next_slot(self.oldest);
        // Not 0, just checked.
        self.full = self.full.saturating_sub(1);
        true
    }

    /// The slot after `slot` in the ring.
    #[inline]
    const fn next_slot(slot: usize) -> usize {
        // `slot` is below `BUFFER_COUNT`, so the sum does not overflow.
        #[allow(clippy::arithmetic_side_effects)]
        let next = slot + 1;
        if next >= BUFFER_COUNT {
            0
        } else {
            next
        }
    }

    /// The state of slot `slot`, for `Debug` and `defmt`.
    fn slot_state(&self, slot: usize) -> Slot {
        // How far `slot` is past the oldest full buffer, going round the ring.
        let distance = if slot >= self.oldest {
            slot.wrapping_sub(self.oldest)
        } else {
            slot.wrapping_add(BUFFER_COUNT).wrapping_sub(self.oldest)
        };
        if distance < self.full {
            // The oldest full buffer was sealed `full - 1` buffers before the last one;
            // `distance` is below `full`, which is at most `BUFFER_COUNT`.
            #[allow(clippy::as_conversions, clippy::arithmetic_side_effects)]
            let newer = (self.full - 1 - distance) as i64;
            Slot::Full {
                sequence_number: self.sealed.wrapping_sub(newer),
            }
        } else if distance == self.full && self.used != 0 {
            Slot::Current { used: self.used }
        } else {
            Slot::Free
        }
    }
}

/// Where a buffer of the pool is in its cycle, as `Debug` and `defmt` show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
enum Slot {
    /// Ready to receive events.
    Free,
    /// Receiving events; `used` bytes (its header included) are taken.
    Current { used: usize },
    /// Sealed and waiting for the caller.
    Full { sequence_number: i64 },
}

/// The session's state without the buffers' bytes.
impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> core::fmt::Debug
    for Session<BUFFER_SIZE, BUFFER_COUNT>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        struct Slots<'a, const S: usize, const N: usize>(&'a Session<S, N>);
        impl<const S: usize, const N: usize> core::fmt::Debug for Slots<'_, S, N> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_list()
                    .entries((0..N).map(|slot| self.0.slot_state(slot)))
                    .finish()
            }
        }
        f.debug_struct("Session")
            .field("buffer_size", &BUFFER_SIZE)
            .field("slots", &Slots(self))
            .field("logger_id", &self.logger_id)
            .field("processor_number", &self.processor_number)
            .field("enable_level", &self.enable_level)
            .field("when_full", &self.when_full)
            .field("next_sequence_number", &self.sealed.wrapping_add(1))
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// The session's state without the buffers' bytes.
#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> defmt::Format
    for Session<BUFFER_SIZE, BUFFER_COUNT>
{
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "Session {{ buffer_size: {=usize}, full: {=usize}, used: {=usize}, logger_id: {=u16}, enable_level: {}, when_full: {}, stats: {} }}",
            BUFFER_SIZE,
            self.full,
            self.used,
            self.logger_id,
            self.enable_level,
            self.when_full,
            self.stats
        );
    }
}

/// The events of a buffer the session wrote, from its header to `end`, walked by their `Size`
/// (padded to 8): how many, and the `TimeStamp` of the last. Every event the session writes
/// starts with an `EVENT_TRACE_HEADER` (an instance event's header begins with one), so its
/// `Size` is at 0 and its `TimeStamp` at 0x10. Walked only when a buffer is overwritten or
/// sealed by a lost event, so that writing an event counts nothing.
fn walk(buffer: &[u8], end: usize) -> (u32, Option<i64>) {
    let (mut count, mut last) = (0u32, None);
    let mut at = WmiBufferHeader::LEN;
    while at < end {
        let Some(header) = buffer
            .get(at..end)
            .and_then(<[u8]>::first_chunk::<{ EventTraceHeader::LEN }>)
            .map(EventTraceHeader::from_bytes)
        else {
            break;
        };
        count = count.saturating_add(1);
        last = Some(header.timestamp);
        // A `Size` of 0 would not move on; the session writes none.
        match usize::from(header.size).next_multiple_of(DEFAULT_TRACE_ALIGNMENT) {
            0 => break,
            size => at = at.saturating_add(size),
        }
    }
    (count, last)
}

/// Whether `value` fits a `u32`, on hosts of any pointer width (two shifts by 16, because one
/// shift by 32 is out of range where `usize` has 32 bits).
const fn fits_u32(value: usize) -> bool {
    value >> 16 >> 16 == 0
}

/// An event's `Size` rounded up to the next multiple of 8: the bytes it takes in a buffer.
#[inline(always)]
fn padded_len(size: u16) -> usize {
    // At most 0xFFFF + 7: no overflow.
    #[allow(clippy::arithmetic_side_effects)]
    let padded =
        (usize::from(size) + (DEFAULT_TRACE_ALIGNMENT - 1)) & !(DEFAULT_TRACE_ALIGNMENT - 1);
    padded
}

/// `ETW_BUFFER_CONTEXT.Alignment`: "Alignment between events (always eight)".
const ALIGNMENT_BYTE: u8 = 8;
const _: () = assert!(DEFAULT_TRACE_ALIGNMENT == 8);

#[cfg(test)]
mod tests {
    use super::fits_u32;

    #[test]
    fn fits_u32_is_the_range_of_buffer_size() {
        assert!(fits_u32(0));
        assert!(fits_u32(0xFFFF_FFFF));
        #[cfg(target_pointer_width = "64")]
        {
            assert!(!fits_u32(0x1_0000_0000));
            assert!(!fits_u32(usize::MAX));
        }
    }
}
