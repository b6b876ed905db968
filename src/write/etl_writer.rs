//! Writing .etl files: the first buffer, which carries the logfile header, built from what the
//! session knows; the data buffers are the session's sealed buffers, written after it as they
//! are.

use crate::invariant::usize_from_u32;
use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::file::time_zone_information::TimeZoneInformation;
use crate::wire::file::trace_logfile_header::{
    ClockType, LogInstance, TraceLogfileHeader32, TraceLogfileHeader64, VersionDetail,
};
use crate::wire::file::wmi_buffer_header::{BufferFlags, BufferType, WmiBufferHeader};
use crate::wire::headers::system_trace_header::SystemTraceHeader;
use crate::wire::layout::Bitness;
use crate::wire::records::buffer_context::BufferContext;

/// `EVENT_TRACE_FILE_MODE_SEQUENTIAL` (evntrace.h): events written one after another until the
/// file ends.
pub const EVENT_TRACE_FILE_MODE_SEQUENTIAL: u32 = 0x0000_0001;

/// The version of the logfile header event's `SYSTEM_TRACE_HEADER` in the real traces (its
/// first four bytes read 0xC0020002 for a 64-bit logger).
const SYSTEM_HEADER_VERSION: u16 = 2;

/// `ETW_BUFFER_STATE` 3, "flush", as in every buffer of the real traces.
const BUFFER_STATE_FLUSH: u32 = 3;

/// What the first buffer of an .etl file says about the trace: the fields of its
/// `TRACE_LOGFILE_HEADER` and the two names after it.
///
/// An .etl file is this buffer followed by the data buffers, all `buffer_size` bytes long: a
/// [`Session`](crate::write::Session)'s sealed buffers can be written after it unchanged (their
/// sequence numbers 1, 2, 3... follow this buffer's 0). A firmware that streams buffers to
/// storage can reserve the first `buffer_size` bytes and write this buffer last, once
/// `buffers_written` and the loss counts are known.
///
/// Build one with [`EtlHeader::new`] and set the members the trace knows; the struct is
/// `#[non_exhaustive]`, so later versions can describe more of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EtlHeader<'a> {
    /// The logger's pointer size (`PointerSize`, and `SYSTEM32`/`SYSTEM64` with the 0x110- or
    /// 0x118-byte `TRACE_LOGFILE_HEADER`).
    pub bitness: Bitness,
    /// `BufferSize`: the size of every buffer of the file, this one included. A multiple of 8.
    pub buffer_size: u32,
    /// `BuffersWritten`: the buffers in the file, this one included (as in the real traces).
    pub buffers_written: u32,
    /// `EventsLost` ([`SessionStats::events_lost`](crate::write::SessionStats::events_lost)).
    pub events_lost: u32,
    /// `BuffersLost` ([`SessionStats::buffers_lost`](crate::write::SessionStats::buffers_lost)).
    pub buffers_lost: u32,
    /// `NumberOfProcessors`.
    pub number_of_processors: u32,
    /// `CpuSpeedInMHz`: the processor's clock. Readers divide by it to scale CPU-cycle time
    /// stamps (dissect.etl does so whatever the clock type), so give the real, non-zero value.
    pub cpu_speed_in_mhz: u32,
    /// `TimerResolution`, in 100 ns units (156,250 is Windows' default 15.625 ms tick): the
    /// unit of `KernelTime`/`UserTime`.
    pub timer_resolution: u32,
    /// `ReservedFlags`: what the time stamps count. [`ClockType::SYSTEM_TIME`] for FILETIMEs.
    pub clock_type: ClockType,
    /// `PerfFreq`: ticks per second of the clock (10,000,000 for FILETIMEs).
    pub perf_freq: i64,
    /// `StartTime`, a FILETIME.
    pub start_time: i64,
    /// The raw clock reading that `StartTime` dates, written as the logfile header event's
    /// `SystemTime`: the anchor readers convert every raw timestamp from, `filetime =
    /// StartTime + (raw − anchor) × 10^7 / F` (EVENT-HEADERS.md §6; TraceEvent's
    /// `_syncTimeQPC`, dissect.etl's `timestamp_base`). `None` writes `StartTime` itself, as a
    /// clock whose raw values are FILETIMEs ([`ClockType::SYSTEM_TIME`]) needs; a QPC or CPU
    /// cycle clock needs its own reading here.
    pub reference_timestamp: Option<i64>,
    /// `EndTime`, a FILETIME.
    pub end_time: i64,
    /// `BootTime`, a FILETIME.
    pub boot_time: i64,
    /// `Version`: the operating system version the trace claims (Windows writes its own).
    pub version: VersionDetail,
    /// `ProviderVersion`: the build number that goes with [`version`](Self::version).
    pub provider_version: u32,
    /// `LoggerId` in the buffer's `ClientContext`.
    pub logger_id: u16,
    /// The session's name, written after the struct as NUL-terminated UTF-16.
    pub logger_name: &'a str,
    /// The file's name, written after the logger name as NUL-terminated UTF-16.
    pub log_file_name: &'a str,
}

impl<'a> EtlHeader<'a> {
    /// The header of a file of `buffer_size`-byte buffers from a logger of `bitness`, whose
    /// time stamps are FILETIMEs: [`ClockType::SYSTEM_TIME`], `PerfFreq` 10,000,000,
    /// `TimerResolution` 156,250, one processor, `Version` 10.0, and for the rest zero or empty
    /// (`BuffersWritten` 1: this buffer alone; no losses; no times; `CpuSpeedInMHz` 0, which
    /// the caller should set to the real clock; `LoggerId` 0; no names).
    ///
    /// ```
    /// use etw_classic::{Bitness, EtlHeader};
    /// let mut header = EtlHeader::new(Bitness::Bits32, 0x400);
    /// header.logger_name = "boot";
    /// header.cpu_speed_in_mhz = 64;
    /// let mut first = [0u8; 0x400];
    /// assert_eq!(header.write_first_buffer(&mut first)?, 0x400);
    /// # Ok::<(), etw_classic::CodecError>(())
    /// ```
    pub const fn new(bitness: Bitness, buffer_size: u32) -> Self {
        Self {
            bitness,
            buffer_size,
            buffers_written: 1,
            events_lost: 0,
            buffers_lost: 0,
            number_of_processors: 1,
            cpu_speed_in_mhz: 0,
            timer_resolution: 156_250,
            clock_type: ClockType::SYSTEM_TIME,
            perf_freq: 10_000_000,
            start_time: 0,
            reference_timestamp: None,
            end_time: 0,
            boot_time: 0,
            version: VersionDetail {
                major_version: 10,
                minor_version: 0,
                sub_version: 0,
                sub_minor_version: 0,
            },
            provider_version: 0,
            logger_id: 0,
            logger_name: "",
            log_file_name: "",
        }
    }

    /// Copies the session's loss counts into the header: `EventsLost` from
    /// [`SessionStats::events_lost`](crate::write::SessionStats::events_lost) (events discarded
    /// for want of a free buffer) and `BuffersLost` from
    /// [`SessionStats::buffers_lost`](crate::write::SessionStats::buffers_lost) (full buffers
    /// given up without being stored). Buffers a flight recorder overwrote are not losses
    /// there, as in Windows' circular modes; their gap shows in the `SequenceNumber`s.
    pub fn record_losses(&mut self, stats: &crate::write::session::SessionStats) {
        self.events_lost = stats.events_lost;
        self.buffers_lost = stats.buffers_lost;
    }

    /// Writes the first buffer of the file into `out`: a [`WmiBufferHeader`] (`BufferType`
    /// `HEADER`, `BufferFlag` `FLUSH_MARKER`, `SequenceNumber` 0, `State` 3, `Offset` the end
    /// of the event), the logfile header event (a `SYSTEM32`/`SYSTEM64` header with `HookId`
    /// 0 and `SystemTime` the [`reference_timestamp`](Self::reference_timestamp) or else
    /// `StartTime`, the `TRACE_LOGFILE_HEADER` with `StartBuffers` 1, `LogFileMode`
    /// `EVENT_TRACE_FILE_MODE_SEQUENTIAL` and a UTC time zone, then the two names), and 0xFF
    /// up to `buffer_size`. Returns `buffer_size`.
    ///
    /// # Errors
    /// [`CodecError::OutputTooSmall`] when `out` is shorter than `buffer_size`, or when the event
    /// does not fit `buffer_size` or the 64 KiB a `Size` can hold (long names); nothing is
    /// written then. Its `needed` is capped at `usize::MAX` for names too long for a `usize` to
    /// count their bytes.
    pub fn write_first_buffer(&self, out: &mut [u8]) -> Result<usize, CodecError> {
        let (layout, struct_len) = match self.bitness {
            Bitness::Bits32 => (TraceLogfileHeader32::LAYOUT, TraceLogfileHeader32::LEN),
            Bitness::Bits64 => (TraceLogfileHeader64::LAYOUT, TraceLogfileHeader64::LEN),
        };
        // Saturating: the length is only compared with a room of at most 0xFFFF bytes, which a
        // capped length exceeds as well.
        let names_len = utf16_len(self.logger_name).saturating_add(utf16_len(self.log_file_name));
        let event_len = SystemTraceHeader::LEN
            .saturating_add(struct_len)
            .saturating_add(names_len);
        let buffer_len = usize_from_u32(self.buffer_size);
        // The room after the buffer header (none in a buffer shorter than it), up to what a
        // `Size` can say.
        let room = buffer_len
            .saturating_sub(WmiBufferHeader::LEN)
            .min(usize::from(u16::MAX));
        let (Ok(size), true) = (u16::try_from(event_len), event_len <= room) else {
            return Err(CodecError::OutputTooSmall {
                layout,
                needed: event_len,
                found: room,
            });
        };
        let too_small = CodecError::OutputTooSmall {
            layout: WmiBufferHeader::LAYOUT,
            needed: buffer_len,
            found: out.len(),
        };
        let buffer = out.get_mut(..buffer_len).ok_or(too_small)?;
        // Where the event ends, and its padding: at most 0x48 + 0xFFFF + 7.
        let events_end = WmiBufferHeader::LEN + usize::from(size);
        let aligned_end = events_end
            .next_multiple_of(crate::wire::file::wmi_buffer_header::DEFAULT_TRACE_ALIGNMENT);
        // `Offset`: the end of the padding, or of a buffer whose size is not a multiple of 8.
        // (An `aligned_end` past `u32` would be past `BufferSize` as well.)
        let end = u32::try_from(aligned_end).map_or(self.buffer_size, |aligned_end| {
            aligned_end.min(self.buffer_size)
        });
        buffer.fill(0xFF);
        let rest = self.buffer_header(end).emit(buffer)?;
        let rest = self.system_header(size).emit(rest)?;
        let rest = self.emit_logfile_header(rest)?;
        let rest = write_utf16z(rest, self.logger_name, layout)?;
        write_utf16z(rest, self.log_file_name, layout)?;
        // The padding is zeros, as far as the buffer goes.
        for byte in buffer.iter_mut().take(aligned_end).skip(events_end) {
            *byte = 0;
        }
        Ok(buffer_len)
    }

    fn buffer_header(&self, end: u32) -> WmiBufferHeader {
        WmiBufferHeader {
            buffer_size: self.buffer_size,
            saved_offset: end,
            current_offset: end,
            reference_count: 0,
            timestamp: 0,
            sequence_number: 0,
            clock_or_link: 0,
            client_context: BufferContext::new(0, 0, self.logger_id),
            state: BUFFER_STATE_FLUSH,
            offset: end,
            buffer_flag: BufferFlags::FLUSH_MARKER,
            buffer_type: BufferType::HEADER,
            reference_time: [0; 16],
        }
    }

    fn system_header(&self, size: u16) -> SystemTraceHeader {
        SystemTraceHeader {
            version: SYSTEM_HEADER_VERSION,
            header_type: match self.bitness {
                Bitness::Bits32 => HeaderType::SYSTEM32,
                Bitness::Bits64 => HeaderType::SYSTEM64,
            },
            flags: MarkerFlags::EVENT_TRACE_HEADER,
            size,
            hook_id: SystemTraceHeader::WMI_LOG_TYPE_HEADER,
            thread_id: 0,
            process_id: 0,
            system_time: self.reference_timestamp.unwrap_or(self.start_time),
            kernel_time: 0,
            user_time: 0,
        }
    }

    fn emit_logfile_header<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
        // `PointerSize`: the bytes of a pointer, as `Bitness::pointer_len` says.
        let pointer_size: u32 = match self.bitness {
            Bitness::Bits32 => 4,
            Bitness::Bits64 => 8,
        };
        let log_instance =
            LogInstance::from_counts(1, pointer_size, self.events_lost, self.cpu_speed_in_mhz);
        // Built in the 64-bit layout and narrowed for a 32-bit logger (its pointers are zero, so
        // narrowing cannot fail).
        let header = TraceLogfileHeader64 {
            buffer_size: self.buffer_size,
            version: self.version,
            provider_version: self.provider_version,
            number_of_processors: self.number_of_processors,
            end_time: self.end_time,
            timer_resolution: self.timer_resolution,
            maximum_file_size: 0,
            log_file_mode: EVENT_TRACE_FILE_MODE_SEQUENTIAL,
            buffers_written: self.buffers_written,
            log_instance,
            logger_name: 0,
            log_file_name: 0,
            time_zone: TimeZoneInformation::default(),
            padding: [0; 4],
            boot_time: self.boot_time,
            perf_freq: self.perf_freq,
            start_time: self.start_time,
            reserved_flags: self.clock_type,
            buffers_lost: self.buffers_lost,
        };
        crate::wire::TraceLogfileHeader::from_wide(self.bitness, header)?.emit(out)
    }
}

/// Bytes of `text` as NUL-terminated UTF-16, capped at `usize::MAX` (see `write_first_buffer`).
fn utf16_len(text: &str) -> usize {
    text.encode_utf16()
        .count()
        .saturating_add(1)
        .saturating_mul(2)
}

/// Writes `text` as NUL-terminated little-endian UTF-16 to the start of `out` and returns the
/// rest; [`CodecError::OutputTooSmall`] for `layout` if `out` is too short (the caller has sized
/// it, so it is not).
fn write_utf16z<'o>(
    out: &'o mut [u8],
    text: &str,
    layout: crate::wire::layout::Layout,
) -> Result<&'o mut [u8], CodecError> {
    let found = out.len();
    let mut rest = out;
    for unit in text.encode_utf16().chain([0]) {
        let Some((pair, after)) = core::mem::take(&mut rest).split_first_chunk_mut::<2>() else {
            return Err(CodecError::OutputTooSmall {
                layout,
                needed: utf16_len(text),
                found,
            });
        };
        *pair = unit.to_le_bytes();
        rest = after;
    }
    Ok(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(buffer_size: u32) -> EtlHeader<'static> {
        EtlHeader {
            bitness: Bitness::Bits64,
            buffer_size,
            buffers_written: 1,
            events_lost: 0,
            buffers_lost: 0,
            number_of_processors: 1,
            cpu_speed_in_mhz: 100,
            timer_resolution: 156_250,
            clock_type: ClockType::SYSTEM_TIME,
            perf_freq: 10_000_000,
            start_time: 0,
            reference_timestamp: None,
            end_time: 0,
            boot_time: 0,
            version: VersionDetail::default(),
            provider_version: 0,
            logger_id: 1,
            logger_name: "ab",
            log_file_name: "c",
        }
    }

    #[test]
    fn offset_and_padding_end_at_the_alignment_or_the_buffer() {
        // The event ends 2 bytes past a multiple of 8: "ab\0" and "c\0" are 10 bytes.
        let events_end =
            WmiBufferHeader::LEN + SystemTraceHeader::LEN + TraceLogfileHeader64::LEN + 10;
        assert_eq!(events_end % 8, 2);
        let aligned_end = events_end + 6;
        let offset = |buffer: &[u8]| u32::from_le_bytes(buffer[0x30..0x34].try_into().unwrap());

        let mut out = [0xAA; 0x400];
        assert_eq!(header(0x400).write_first_buffer(&mut out), Ok(0x400));
        assert_eq!(offset(&out), aligned_end as u32);
        assert!(out[events_end..aligned_end].iter().all(|&byte| byte == 0));
        assert!(out[aligned_end..].iter().all(|&byte| byte == 0xFF));

        // A buffer that ends inside the padding: `Offset` is its end.
        let short = events_end + 4;
        let mut out = [0xAA; 0x400];
        assert_eq!(header(short as u32).write_first_buffer(&mut out), Ok(short));
        assert_eq!(offset(&out), short as u32);
        assert!(out[events_end..short].iter().all(|&byte| byte == 0));
        assert!(out[short..].iter().all(|&byte| byte == 0xAA));

        // One byte too short for the event.
        assert_eq!(
            header(events_end as u32 - 1).write_first_buffer(&mut out),
            Err(CodecError::OutputTooSmall {
                layout: TraceLogfileHeader64::LAYOUT,
                needed: events_end - WmiBufferHeader::LEN,
                found: events_end - 1 - WmiBufferHeader::LEN,
            })
        );
    }
}
