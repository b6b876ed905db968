//! Writing .etl files: the first buffer, which carries the logfile header, built from what the
//! session knows; the data buffers are the session's sealed buffers, written after it as they
//! are.

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
/// [`Session`](crate::Session)'s sealed buffers can be written after it unchanged (their
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

    /// Writes the first buffer of the file into `out`: a [`WmiBufferHeader`] (`BufferType`
    /// `HEADER`, `BufferFlag` `FLUSH_MARKER`, `SequenceNumber` 0, `State` 3, `Offset` the end
    /// of the event), the logfile header event (a `SYSTEM32`/`SYSTEM64` header with `HookId`
    /// 0, the `TRACE_LOGFILE_HEADER` with `StartBuffers` 1, `LogFileMode`
    /// `EVENT_TRACE_FILE_MODE_SEQUENTIAL` and a UTC time zone, then the two names), and 0xFF
    /// up to `buffer_size`. Returns `buffer_size`.
    ///
    /// # Errors
    /// [`CodecError::OutputTooSmall`] when `out` is shorter than `buffer_size`, or when the event
    /// does not fit `buffer_size` or the 64 KiB a `Size` can hold (long names); nothing is
    /// written then.
    pub fn write_first_buffer(&self, out: &mut [u8]) -> Result<usize, CodecError> {
        let (layout, struct_len) = match self.bitness {
            Bitness::Bits32 => (TraceLogfileHeader32::LAYOUT, TraceLogfileHeader32::LEN),
            Bitness::Bits64 => (TraceLogfileHeader64::LAYOUT, TraceLogfileHeader64::LEN),
        };
        let names_len = utf16_len(self.logger_name).saturating_add(utf16_len(self.log_file_name));
        let event_len = SystemTraceHeader::LEN
            .saturating_add(struct_len)
            .saturating_add(names_len);
        let buffer_len = usize::try_from(self.buffer_size).unwrap_or(usize::MAX);
        let events_end = WmiBufferHeader::LEN.saturating_add(event_len);
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
        let aligned_end = events_end
            .next_multiple_of(crate::wire::file::wmi_buffer_header::DEFAULT_TRACE_ALIGNMENT);
        let end = u32::try_from(aligned_end.min(buffer_len)).unwrap_or(u32::MAX);
        buffer.fill(0xFF);
        let rest = self.buffer_header(end).emit(buffer)?;
        let rest = self.system_header(size).emit(rest)?;
        let rest = self.emit_logfile_header(rest)?;
        let rest = write_utf16z(rest, self.logger_name);
        let rest = write_utf16z(rest, self.log_file_name);
        let padding = aligned_end.saturating_sub(events_end).min(rest.len());
        if let Some(padding) = rest.get_mut(..padding) {
            padding.fill(0);
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
            system_time: self.start_time,
            kernel_time: 0,
            user_time: 0,
        }
    }

    fn emit_logfile_header<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
        let pointer_size = u32::try_from(self.bitness.pointer_len()).unwrap_or_default();
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
        crate::TraceLogfileHeader::from_wide(self.bitness, header)?.emit(out)
    }
}

/// Bytes of `text` as NUL-terminated UTF-16.
fn utf16_len(text: &str) -> usize {
    text.encode_utf16()
        .count()
        .saturating_add(1)
        .saturating_mul(2)
}

/// Writes `text` as NUL-terminated little-endian UTF-16 to the start of `out` (which the caller
/// has sized for it) and returns the rest.
fn write_utf16z<'o>(out: &'o mut [u8], text: &str) -> &'o mut [u8] {
    let mut rest = out;
    for unit in text.encode_utf16().chain([0]) {
        let Some((pair, after)) = core::mem::take(&mut rest).split_first_chunk_mut::<2>() else {
            return &mut [];
        };
        *pair = unit.to_le_bytes();
        rest = after;
    }
    rest
}
