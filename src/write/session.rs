//! A trace session's fixed pool of trace buffers: events appended 8-byte aligned, full buffers
//! handed to the caller and taken back for reuse, lost events counted.

use crate::wire::codes::Level;
use crate::wire::file::wmi_buffer_header::{
    BufferFlags, BufferType, WmiBufferHeader, DEFAULT_TRACE_ALIGNMENT,
};
use crate::wire::records::buffer_context::BufferContext;
use crate::write::error::TraceError;
use crate::write::event::{EventData, Traced};

/// `ETW_BUFFER_STATE` 3 (Chappell: "flush"), the state of every buffer in the real traces'
/// files, and of a buffer this session has sealed.
const BUFFER_STATE_FLUSH: u32 = 3;

/// The byte that fills the unused tail of a sealed buffer; its first four bytes read as the
/// 0xFFFFFFFF end mark, as in the buffers Windows writes.
const FILL: u8 = 0xFF;

/// "Size must be less than the size of the event tracing session's buffer minus 72 (0x48)."
const BUFFER_SIZE_MARGIN: usize = 72;

/// One more than the largest `Size` a header can hold: "The largest event you can log is 64K."
const SIZE_LIMIT: usize = 0x1_0000;

/// Where a buffer of the pool is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
enum Slot {
    /// Ready to receive events.
    Free,
    /// Receiving events; `used` bytes (its header included) are taken.
    Current { used: usize },
    /// Sealed and waiting for the caller, oldest `sequence_number` first.
    Full { sequence_number: i64 },
}

/// What a session has done so far, with the names of the `TRACE_LOGFILE_HEADER` and
/// `EVENT_TRACE_PROPERTIES` counters. Counts saturate at `u32::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct SessionStats {
    /// Events written to a buffer.
    pub events_written: u32,
    /// `EventsLost`: events discarded because no buffer was free
    /// ([`TraceError::NoFreeBuffer`]).
    pub events_lost: u32,
    /// `BuffersWritten`: buffers sealed and queued for the caller.
    pub buffers_written: u32,
    /// `BuffersLost` (`RealTimeBuffersLost`): full buffers the caller gave up on with
    /// [`Session::discard_oldest_full`].
    pub buffers_lost: u32,
}

/// A trace session: a pool of `BUFFER_COUNT` trace buffers of `BUFFER_SIZE` bytes each, the
/// level it is enabled at, and its counters.
///
/// Events (written by a [`Provider`](crate::write::Provider)) go into the current buffer, each at an
/// offset that is a multiple of [`DEFAULT_TRACE_ALIGNMENT`] (8), followed by zero padding:
/// - "Size must be less than the size of the event tracing session's buffer minus 72 (0x48)":
///   a larger event fails with [`TraceError::EventTooLarge`] (`ERROR_MORE_DATA`), checked on
///   the `Size` the event has in the buffer.
/// - An event that does not fit what is left of the current buffer seals it (it becomes full)
///   and goes to the start of the next free buffer: "Data from a single event cannot span
///   multiple buffers".
/// - When no buffer is free the event "is discarded": the call fails with
///   [`TraceError::NoFreeBuffer`] (`ERROR_NOT_ENOUGH_MEMORY`), the event is counted in
///   [`SessionStats::events_lost`], and the next buffer sealed carries
///   `ETW_BUFFER_FLAG_EVENTS_LOST`.
///
/// A sealed buffer is what Windows flushes to an .etl file: a [`WmiBufferHeader`] with
/// `BufferSize` = `BUFFER_SIZE`; `SavedOffset`, `CurrentOffset` and `Offset` = the end of the
/// last event's padding (header included); `TimeStamp` = the time of the call that sealed it;
/// `SequenceNumber` counting 1, 2, 3... over the session; `ClientContext` = the session's
/// processor number, alignment 8 and logger id; `State` 3 (flush); `BufferFlag` normal or
/// `EVENTS_LOST`; `BufferType` generic; the rest zero. After the events the buffer is filled
/// with 0xFF, so a walk stops at the 0xFFFFFFFF end mark.
///
/// Full buffers wait, oldest first, until the caller takes them with
/// [`oldest_full`](Self::oldest_full) and gives them back with
/// [`release_oldest_full`](Self::release_oldest_full) (or [`drain`](Self::drain) does both);
/// [`flush`](Self::flush) seals a partly filled buffer.
///
/// `BUFFER_SIZE` must be a multiple of 8, more than 0x48 + 72 and at most `u32::MAX`, and
/// `BUFFER_COUNT` at least 1; other values fail to compile.
#[derive(Clone)]
pub struct Session<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> {
    buffers: [[u8; BUFFER_SIZE]; BUFFER_COUNT],
    slots: [Slot; BUFFER_COUNT],
    /// The slot holding [`Slot::Current`], if any.
    current: Option<usize>,
    logger_id: u16,
    processor_number: u8,
    enable_level: Level,
    next_sequence_number: i64,
    /// An event was lost since the last buffer was sealed.
    lost_since_seal: bool,
    stats: SessionStats,
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

    /// A session with all buffers free, whose buffers carry `logger_id` in their
    /// `ClientContext`, enabled at `enable_level` (see [`Level::enables`]).
    pub const fn new(logger_id: u16, enable_level: Level) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID;
        Self {
            buffers: [const { [0; BUFFER_SIZE] }; BUFFER_COUNT],
            slots: [Slot::Free; BUFFER_COUNT],
            current: None,
            logger_id,
            processor_number: 0,
            enable_level,
            next_sequence_number: 1,
            lost_since_seal: false,
            stats: SessionStats {
                events_written: 0,
                events_lost: 0,
                buffers_written: 0,
                buffers_lost: 0,
            },
        }
    }

    /// The level the session is enabled at: events whose `Class.Level` it does not
    /// [enable](Level::enables) are not written.
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
        // `VALID`, checked when the session was made, holds `BUFFER_SIZE` above 0x48 + 72.
        #[allow(clippy::arithmetic_side_effects)]
        let limit = BUFFER_SIZE - BUFFER_SIZE_MARGIN;
        if limit < SIZE_LIMIT {
            limit
        } else {
            SIZE_LIMIT
        }
    }

    /// Bytes of events (with their padding) in the current buffer, 0 when there is none.
    pub fn current_fill(&self) -> usize {
        match self.current.and_then(|slot| self.slots.get(slot)) {
            // A current buffer's `used` starts at the header's length and only grows.
            #[allow(clippy::arithmetic_side_effects)]
            Some(Slot::Current { used }) => used - WmiBufferHeader::LEN,
            _ => 0,
        }
    }

    /// How many sealed buffers wait for the caller.
    pub fn full_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| matches!(slot, Slot::Full { .. }))
            .count()
    }

    /// How many buffers are free.
    pub fn free_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| matches!(slot, Slot::Free))
            .count()
    }

    /// Seals the current buffer if it holds any event, stamping `timestamp` as its flush time;
    /// returns whether a buffer was sealed. Call it at the end of a trace so that the last
    /// events reach [`oldest_full`](Self::oldest_full).
    pub fn flush(&mut self, timestamp: i64) -> bool {
        match self.current.and_then(|slot| self.slots.get(slot)) {
            Some(Slot::Current { used }) if *used > WmiBufferHeader::LEN => {
                self.seal_current(timestamp);
                true
            }
            _ => false,
        }
    }

    /// The oldest sealed buffer, all `BUFFER_SIZE` bytes of it (header, events, 0xFF fill).
    pub fn oldest_full(&self) -> Option<&[u8; BUFFER_SIZE]> {
        self.oldest_full_slot()
            .and_then(|slot| self.buffers.get(slot))
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

    /// Appends one event: the header `build_header` returns for the event's `Size`, then the
    /// data. The provider has checked everything but room.
    pub(crate) fn write_event<const HEADER_LEN: usize>(
        &mut self,
        build_header: impl FnOnce(u16) -> [u8; HEADER_LEN],
        data: EventData<'_>,
        timestamp: i64,
    ) -> Result<Traced, TraceError> {
        let limit = self.event_size_limit();
        // MOF fields whose lengths add up to more than a `usize` holds are reported with
        // `usize::MAX` as their size.
        let total = data
            .written_len()
            .and_then(|len| len.checked_add(HEADER_LEN))
            .unwrap_or(usize::MAX);
        let size = match u16::try_from(total) {
            Ok(size) if total < limit => size,
            _ => return Err(TraceError::EventTooLarge { size: total, limit }),
        };
        // Below 0x10000 + 8: `total` is below `limit`.
        let padded = total.next_multiple_of(DEFAULT_TRACE_ALIGNMENT);
        let (slot, offset) = self.room_for(padded, timestamp)?;
        // `room_for` found `padded` bytes free at `offset` in buffer `slot`, which it made the
        // current one; were they not there, the event would be lost, not written.
        let written = self
            .slots
            .get_mut(slot)
            .zip(self.buffers.get_mut(slot))
            .and_then(|(state, buffer)| {
                let event = buffer.get_mut(offset..)?.get_mut(..padded)?;
                let (header_out, rest) = event.split_first_chunk_mut::<HEADER_LEN>()?;
                write_data(rest, data)?.fill(0);
                *header_out = build_header(size);
                // The event's `padded` bytes were there from `offset`: within the buffer.
                #[allow(clippy::arithmetic_side_effects)]
                let used = offset + padded;
                *state = Slot::Current { used };
                Some(())
            });
        if written.is_none() {
            return Err(self.lose_event());
        }
        self.stats.events_written = self.stats.events_written.saturating_add(1);
        Ok(Traced::Written { slot, offset, size })
    }

    /// The slot and offset where an event of `size` bytes (with its padding) goes: the current
    /// buffer if it has room, else the next free one (sealing the current buffer). Counts the
    /// event as lost when no buffer is free.
    fn room_for(&mut self, size: usize, timestamp: i64) -> Result<(usize, usize), TraceError> {
        if let Some(slot) = self.current {
            if let Some(Slot::Current { used }) = self.slots.get(slot) {
                // A sum past `usize` would be past the buffer's end too.
                if used.checked_add(size).is_some_and(|end| end <= BUFFER_SIZE) {
                    return Ok((slot, *used));
                }
            }
            self.seal_current(timestamp);
        }
        let free = self
            .slots
            .iter_mut()
            .enumerate()
            .find(|(_, state)| **state == Slot::Free);
        match free {
            Some((slot, state)) => {
                *state = Slot::Current {
                    used: WmiBufferHeader::LEN,
                };
                self.current = Some(slot);
                Ok((slot, WmiBufferHeader::LEN))
            }
            None => Err(self.lose_event()),
        }
    }

    /// Counts one lost event and returns the error that reports it.
    fn lose_event(&mut self) -> TraceError {
        self.stats.events_lost = self.stats.events_lost.saturating_add(1);
        self.lost_since_seal = true;
        TraceError::NoFreeBuffer {
            events_lost: self.stats.events_lost,
        }
    }

    /// Writes the current buffer's header and fill, and queues it for the caller.
    fn seal_current(&mut self, timestamp: i64) {
        let Some(slot) = self.current.take() else {
            return;
        };
        // `room_for` only ever names a slot of the pool, made current; a `current` that named
        // anything else would be dropped here, and the next event would take a free buffer.
        let (Some(state), Some(buffer)) = (self.slots.get_mut(slot), self.buffers.get_mut(slot))
        else {
            return;
        };
        let Slot::Current { used } = *state else {
            return;
        };
        // At most `BUFFER_SIZE`, which `VALID` holds to a `u32`.
        #[allow(clippy::as_conversions)]
        let end = used as u32;
        let header = WmiBufferHeader {
            buffer_size: Self::BUFFER_SIZE_U32,
            saved_offset: end,
            current_offset: end,
            reference_count: 0,
            timestamp,
            sequence_number: self.next_sequence_number,
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
        // `VALID` holds `BUFFER_SIZE` above 0x48, so the chunk is always there: both lengths are
        // constants of the session's type, and the check is resolved when its code is built.
        if let Some(out) = buffer.first_chunk_mut::<{ WmiBufferHeader::LEN }>() {
            *out = header.to_bytes();
        }
        // The fill, from the end of the events on.
        for out in buffer.iter_mut().skip(used) {
            *out = FILL;
        }
        *state = Slot::Full {
            sequence_number: self.next_sequence_number,
        };
        // `SequenceNumber` is a `LONG64` that wraps, as Windows lets it (at a buffer a
        // nanosecond, after 292 years).
        self.next_sequence_number = self.next_sequence_number.wrapping_add(1);
        self.lost_since_seal = false;
        self.stats.buffers_written = self.stats.buffers_written.saturating_add(1);
    }

    fn oldest_full_slot(&self) -> Option<usize> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(slot, state)| match state {
                Slot::Full { sequence_number } => Some((*sequence_number, slot)),
                _ => None,
            })
            .min()
            .map(|(_, slot)| slot)
    }

    fn free_oldest_full(&mut self) -> bool {
        match self
            .oldest_full_slot()
            .and_then(|slot| self.slots.get_mut(slot))
        {
            Some(state) => {
                *state = Slot::Free;
                true
            }
            None => false,
        }
    }
}

/// The session's state without the buffers' bytes.
impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> core::fmt::Debug
    for Session<BUFFER_SIZE, BUFFER_COUNT>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("buffer_size", &BUFFER_SIZE)
            .field("slots", &self.slots)
            .field("logger_id", &self.logger_id)
            .field("processor_number", &self.processor_number)
            .field("enable_level", &self.enable_level)
            .field("next_sequence_number", &self.next_sequence_number)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// The session's state without the buffers' bytes.
#[cfg(feature = "defmt")]
impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> defmt::Format
    for Session<BUFFER_SIZE, BUFFER_COUNT>
{
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "Session {{ buffer_size: {=usize}, slots: {}, logger_id: {=u16}, enable_level: {}, stats: {} }}",
            BUFFER_SIZE,
            self.slots,
            self.logger_id,
            self.enable_level,
            self.stats
        );
    }
}

/// Whether `value` fits a `u32`, on hosts of any pointer width (two shifts by 16, because one
/// shift by 32 is out of range where `usize` has 32 bits).
const fn fits_u32(value: usize) -> bool {
    value >> 16 >> 16 == 0
}

/// `ETW_BUFFER_CONTEXT.Alignment`: "Alignment between events (always eight)".
const ALIGNMENT_BYTE: u8 = 8;
const _: () = assert!(DEFAULT_TRACE_ALIGNMENT == 8);

/// Copies the event data to the start of `out` (the MOF fields one after another) and returns
/// the part of `out` after it; `None` if `out` is too short for it.
fn write_data<'o>(out: &'o mut [u8], data: EventData<'_>) -> Option<&'o mut [u8]> {
    let copy = |out: &'o mut [u8], bytes: &[u8]| {
        let (target, after) = out.split_at_mut_checked(bytes.len())?;
        for (to, from) in target.iter_mut().zip(bytes) {
            *to = *from;
        }
        Some(after)
    };
    match data {
        EventData::Inline(bytes) => copy(out, bytes),
        EventData::MofFields(fields) => fields.iter().try_fold(out, |out, field| copy(out, field)),
    }
}

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
