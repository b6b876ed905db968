//! `TRACE_LOGFILE_HEADER`: the data of the first event of every .etl file, in its 32-bit and
//! 64-bit layouts, and the two names that follow it.

use crate::wire::codes::HeaderType;
use crate::wire::error::CodecError;
use crate::wire::field;
use crate::wire::file::time_zone_information::TimeZoneInformation;
use crate::wire::guid::Guid;
use crate::wire::headers::system_trace_header::SystemTraceHeader;
use crate::wire::layout::Bitness;
use crate::wire::utf16::Utf16Str;

/// `VersionDetail`: the structured view of the `Version` union at offset 4, the Windows version
/// that wrote the trace.
///
/// ```c
/// union {
///     ULONG Version;
///     struct { UCHAR MajorVersion; UCHAR MinorVersion; UCHAR SubVersion; UCHAR SubMinorVersion; } VersionDetail;
/// };
/// ```
/// The roll-up holds `MajorVersion` in its low-order byte and `SubMinorVersion` in its
/// high-order byte; the conversions are lossless both ways.
///
/// ```
/// use etw_classic::wire::VersionDetail;
/// let version = VersionDetail::from_roll_up(0x0002_000A);
/// assert_eq!((version.major_version, version.minor_version, version.sub_version), (10, 0, 2));
/// assert_eq!(version.roll_up(), 0x0002_000A);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VersionDetail {
    /// `VersionDetail.MajorVersion` (byte 0x04): 10 for Windows 10 and 11, 6 for Vista to 8.1.
    pub major_version: u8,
    /// `VersionDetail.MinorVersion` (byte 0x05).
    pub minor_version: u8,
    /// `VersionDetail.SubVersion` (byte 0x06), documented as reserved.
    pub sub_version: u8,
    /// `VersionDetail.SubMinorVersion` (byte 0x07), documented as reserved.
    pub sub_minor_version: u8,
}

impl VersionDetail {
    /// Splits the `Version` roll-up into its members.
    pub const fn from_roll_up(roll_up: u32) -> Self {
        let [major_version, minor_version, sub_version, sub_minor_version] = roll_up.to_le_bytes();
        Self {
            major_version,
            minor_version,
            sub_version,
            sub_minor_version,
        }
    }

    /// The `Version` roll-up of the members.
    pub const fn roll_up(self) -> u32 {
        u32::from_le_bytes([
            self.major_version,
            self.minor_version,
            self.sub_version,
            self.sub_minor_version,
        ])
    }
}

/// The 16-byte union at offset 0x28 of `TRACE_LOGFILE_HEADER`, kept as its raw bytes.
///
/// ```c
/// union {
///     GUID LogInstanceGuid;
///     struct { ULONG StartBuffers; ULONG PointerSize; ULONG EventsLost; ULONG CpuSpeedInMHz; };
/// };
/// ```
/// In .etl files the second view holds: `PointerSize` is the logger's pointer width in bytes
/// (8 in every PerfView sample trace). A setter writes only the bytes of its view.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LogInstance(pub [u8; 16]);

impl LogInstance {
    /// The union holding `log_instance_guid`.
    pub fn from_guid(log_instance_guid: Guid) -> Self {
        Self(log_instance_guid.to_bytes_le())
    }

    /// The union holding the four counters.
    pub fn from_counts(
        start_buffers: u32,
        pointer_size: u32,
        events_lost: u32,
        cpu_speed_in_mhz: u32,
    ) -> Self {
        let mut union = Self::default();
        union.set_start_buffers(start_buffers);
        union.set_pointer_size(pointer_size);
        union.set_events_lost(events_lost);
        union.set_cpu_speed_in_mhz(cpu_speed_in_mhz);
        union
    }

    fn word(&self, index: usize) -> u32 {
        self.0
            .chunks_exact(4)
            .nth(index)
            .and_then(<[u8]>::first_chunk::<4>)
            .map_or(0, |word| u32::from_le_bytes(*word))
    }

    fn set_word(&mut self, index: usize, value: u32) {
        if let Some(word) = self
            .0
            .chunks_exact_mut(4)
            .nth(index)
            .and_then(<[u8]>::first_chunk_mut::<4>)
        {
            *word = value.to_le_bytes();
        }
    }

    /// The `LogInstanceGuid` view: all 16 bytes.
    pub fn log_instance_guid(&self) -> Guid {
        Guid::from_bytes_le(self.0)
    }

    /// Stores `LogInstanceGuid` (all 16 bytes).
    pub fn set_log_instance_guid(&mut self, log_instance_guid: Guid) {
        self.0 = log_instance_guid.to_bytes_le();
    }

    /// `StartBuffers`, bytes 0..4.
    pub fn start_buffers(&self) -> u32 {
        self.word(0)
    }

    /// Stores `StartBuffers` in bytes 0..4.
    pub fn set_start_buffers(&mut self, start_buffers: u32) {
        self.set_word(0, start_buffers);
    }

    /// `PointerSize`, bytes 4..8: the logger's pointer width in bytes.
    pub fn pointer_size(&self) -> u32 {
        self.word(1)
    }

    /// Stores `PointerSize` in bytes 4..8.
    pub fn set_pointer_size(&mut self, pointer_size: u32) {
        self.set_word(1, pointer_size);
    }

    /// `EventsLost`, bytes 8..12.
    pub fn events_lost(&self) -> u32 {
        self.word(2)
    }

    /// Stores `EventsLost` in bytes 8..12.
    pub fn set_events_lost(&mut self, events_lost: u32) {
        self.set_word(2, events_lost);
    }

    /// `CpuSpeedInMHz`, bytes 12..16.
    pub fn cpu_speed_in_mhz(&self) -> u32 {
        self.word(3)
    }

    /// Stores `CpuSpeedInMHz` in bytes 12..16.
    pub fn set_cpu_speed_in_mhz(&mut self, cpu_speed_in_mhz: u32) {
        self.set_word(3, cpu_speed_in_mhz);
    }
}

impl core::fmt::Debug for LogInstance {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "LogInstance {{ log_instance_guid: {}, start_buffers: {}, pointer_size: {}, \
             events_lost: {}, cpu_speed_in_mhz: {} }}",
            self.log_instance_guid(),
            self.start_buffers(),
            self.pointer_size(),
            self.events_lost(),
            self.cpu_speed_in_mhz()
        )
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for LogInstance {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "LogInstance {{ log_instance_guid: {}, start_buffers: {=u32}, pointer_size: {=u32}, \
             events_lost: {=u32}, cpu_speed_in_mhz: {=u32} }}",
            self.log_instance_guid(),
            self.start_buffers(),
            self.pointer_size(),
            self.events_lost(),
            self.cpu_speed_in_mhz()
        )
    }
}

open_code! {
    /// `ReservedFlags` of `TRACE_LOGFILE_HEADER`: the session's clock, which says what the
    /// time stamps of the trace count (values of `WNODE_HEADER.ClientContext` in the SDK
    /// documentation; dissect.etl names them `PERFORMANCE_FREQ`, `FILETIME`, `CPU_FREQ`).
    pub struct ClockType(u32) {
        /// `EVENT_TRACE_CLOCK_RAW` (ntwmi.h): raw time stamps with no frequency the header
        /// states, which cannot be converted to time.
        RAW = 0,
        /// Query performance counter: ticks of `PerfFreq` per second.
        QUERY_PERFORMANCE_COUNTER = 1,
        /// System time: 100-nanosecond units.
        SYSTEM_TIME = 2,
        /// CPU cycle counter: cycles at `CpuSpeedInMHz`.
        CPU_CYCLE_COUNTER = 3,
    }
}

// The offsets: mingw-w64's evntrace.h compiled by gcc for i686 and x86_64
// (`tools/abi-vectors/generate.py`, which also checks them against mingw's explicit
// `TRACE_LOGFILE_HEADER32`/`TRACE_LOGFILE_HEADER64`), Geoff Chappell's `TRACE_LOGFILE_HEADER` page
// (x86 and x64 columns) and dissect.etl 3.14's `TraceLogfileHeader` cstruct, which agree on every
// one.
field::pointer_width_pair! {
    /// `TRACE_LOGFILE_HEADER` in the layout a [`Bitness`] value chooses: the data of the first
    /// event of an .etl file, which describes the whole trace.
    ///
    /// The bitness is the logger's: `HeaderType` `SYSTEM32` or `SYSTEM64` of the event's
    /// [`SystemTraceHeader`] (marker 0xC0010002 or 0xC0020002), never the host's.
    /// [`parse_event`](Self::parse_event) reads the whole event and chooses it.
    ///
    /// ```
    /// use etw_classic::{Bitness, TraceLogfileHeader, wire::TraceLogfileHeader32};
    /// let bytes = [0u8; TraceLogfileHeader32::LEN];
    /// let (header, rest) = TraceLogfileHeader::parse(&bytes, Bitness::Bits32)?;
    /// assert!(rest.is_empty());
    /// assert_eq!(header.byte_len(), 0x110);
    /// let mut out = [0xFFu8; 0x110];
    /// header.emit(&mut out)?;
    /// assert_eq!(out, bytes);
    /// # Ok::<(), etw_classic::CodecError>(())
    /// ```
    pub enum TraceLogfileHeader {
        /// `TRACE_LOGFILE_HEADER` (evntrace.h) as a 32-bit logger writes it: 0x110 bytes,
        /// `LoggerName` and `LogFileName` 4-byte pointers. In an .etl file it is the data of
        /// the first buffer's first event (a `SYSTEM32` header with `HookId` 0), followed by
        /// the two names as NUL-terminated UTF-16 ([`LogfileNames`]); the pointers do not point
        /// at them.
        Bits32(TraceLogfileHeader32) = TraceLogfileHeader32, 0x110;
        /// `TRACE_LOGFILE_HEADER` (evntrace.h) as a 64-bit logger writes it: 0x118 bytes,
        /// `LoggerName` and `LogFileName` 8-byte pointers, so everything after them 8 bytes later
        /// than in [`TraceLogfileHeader32`]. In an .etl file it is the data of the first
        /// buffer's first event (a `SYSTEM64` header with `HookId` 0), followed by the two names
        /// as NUL-terminated UTF-16 ([`LogfileNames`]); the pointers do not point at them.
        Bits64(TraceLogfileHeader64) = TraceLogfileHeader64, 0x118;
    }
    members {
        /// `BufferSize`: the size of the session's buffers in bytes.
        buffer_size: u32[4] @ 0x00, 0x00 => "`BufferSize`",
        /// `Version` | `VersionDetail`: the Windows version that wrote the trace.
        version: VersionDetail[4] @ 0x04, 0x04 => "`Version` \\| `VersionDetail`",
        /// `ProviderVersion`: the build number of that Windows.
        provider_version: u32[4] @ 0x08, 0x08 => "`ProviderVersion`",
        /// `NumberOfProcessors`.
        number_of_processors: u32[4] @ 0x0C, 0x0C => "`NumberOfProcessors`",
        /// `EndTime`: when the session stopped (`LARGE_INTEGER`, 100 ns since 1601).
        end_time: i64[8] @ 0x10, 0x10 => "`EndTime`",
        /// `TimerResolution`: the resolution of the system timer in 100 ns units (156,250 =
        /// 15.625 ms); the tick that `KernelTime` and `UserTime` count.
        timer_resolution: u32[4] @ 0x18, 0x18 => "`TimerResolution`",
        /// `MaximumFileSize`: the file size limit in megabytes, 0 for none.
        maximum_file_size: u32[4] @ 0x1C, 0x1C => "`MaximumFileSize`",
        /// `LogFileMode`: the session's `EVENT_TRACE_*_MODE` flags.
        log_file_mode: u32[4] @ 0x20, 0x20 => "`LogFileMode`",
        /// `BuffersWritten`: the number of buffers in the file.
        buffers_written: u32[4] @ 0x24, 0x24 => "`BuffersWritten`",
        /// `LogInstanceGuid` | `StartBuffers`, `PointerSize`, `EventsLost`, `CpuSpeedInMHz`.
        log_instance: LogInstance[16] @ 0x28, 0x28
            => "`LogInstanceGuid` \\| `StartBuffers`+`PointerSize`+`EventsLost`+`CpuSpeedInMHz`",
        /// `LoggerName`: a pointer in the logger's memory, meaningless in a file (newer Windows
        /// stores small values here; the name itself follows the struct, see [`LogfileNames`]).
        logger_name: pointer @ 0x38, 0x38 => "`LoggerName`",
        /// `LogFileName`: likewise a pointer, the name following the struct.
        log_file_name: pointer @ 0x3C, 0x40 => "`LogFileName`",
        /// `TimeZone`: the time zone of the machine that wrote the trace.
        time_zone: TimeZoneInformation[0xAC] @ 0x40, 0x48 => "`TimeZone`",
        /// The 4 bytes before `BootTime`, padding that aligns it to 8. Kept as read; zero in
        /// values built from fields.
        padding: [u8; 4][4] @ 0xEC, 0xF4 => "(padding)",
        /// `BootTime`: when the machine started (100 ns since 1601).
        boot_time: i64[8] @ 0xF0, 0xF8 => "`BootTime`",
        /// `PerfFreq`: the frequency of the query performance counter, in ticks per second.
        perf_freq: i64[8] @ 0xF8, 0x100 => "`PerfFreq`",
        /// `StartTime`: when the session started (100 ns since 1601).
        start_time: i64[8] @ 0x100, 0x108 => "`StartTime`",
        /// `ReservedFlags`: the session's clock type.
        reserved_flags: ClockType[4] @ 0x108, 0x110 => "`ReservedFlags`",
        /// `BuffersLost`.
        buffers_lost: u32[4] @ 0x10C, 0x114 => "`BuffersLost`",
    }
}

impl TraceLogfileHeader {
    /// Reads the logfile header event at the start of `input` (the first event of an .etl file,
    /// right after the first buffer's 0x48-byte `WMI_BUFFER_HEADER`): its [`SystemTraceHeader`],
    /// the `TRACE_LOGFILE_HEADER` in the layout the header type names, and the names after it.
    /// Returns those and the bytes after the event (`Size` bytes from the start).
    ///
    /// # Errors
    /// Those of [`SystemTraceHeader::parse_event`]; [`CodecError::UnexpectedHookId`] when `HookId`
    /// is not [`SystemTraceHeader::WMI_LOG_TYPE_HEADER`]; [`CodecError::Truncated`] when `Size`
    /// leaves less event data than the logfile header's layout needs.
    pub fn parse_event(
        input: &[u8],
    ) -> Result<(SystemTraceHeader, Self, LogfileNames<'_>, &[u8]), CodecError> {
        let (system, data, rest) = SystemTraceHeader::parse_event(input)?;
        if system.hook_id != SystemTraceHeader::WMI_LOG_TYPE_HEADER {
            return Err(CodecError::UnexpectedHookId {
                layout: SystemTraceHeader::LAYOUT,
                expected: SystemTraceHeader::WMI_LOG_TYPE_HEADER,
                found: system.hook_id,
            });
        }
        let bitness = if system.header_type == HeaderType::SYSTEM32 {
            Bitness::Bits32
        } else {
            Bitness::Bits64
        };
        let (header, names) = Self::parse(data, bitness)?;
        Ok((system, header, LogfileNames::parse(names), rest))
    }

    /// `PointerSize` (of the union at 0x28): the logger's pointer width in bytes.
    pub fn pointer_size(&self) -> u32 {
        self.log_instance().pointer_size()
    }

    /// `EventsLost` (of the union at 0x28).
    pub fn events_lost(&self) -> u32 {
        self.log_instance().events_lost()
    }

    /// `CpuSpeedInMHz` (of the union at 0x28).
    pub fn cpu_speed_in_mhz(&self) -> u32 {
        self.log_instance().cpu_speed_in_mhz()
    }
}

/// `Version` as its roll-up.
impl field::Member<4> for VersionDetail {
    fn decode(bytes: [u8; 4]) -> Self {
        Self::from_roll_up(u32::from_le_bytes(bytes))
    }

    fn encode(&self) -> [u8; 4] {
        self.roll_up().to_le_bytes()
    }
}

/// The union's raw bytes.
impl field::Member<16> for LogInstance {
    fn decode(bytes: [u8; 16]) -> Self {
        Self(field::move16(&bytes))
    }

    fn encode(&self) -> [u8; 16] {
        field::move16(&self.0)
    }
}

impl field::Member<4> for ClockType {
    fn decode(bytes: [u8; 4]) -> Self {
        Self(u32::from_le_bytes(bytes))
    }

    fn encode(&self) -> [u8; 4] {
        self.0.to_le_bytes()
    }
}

/// The two names after a `TRACE_LOGFILE_HEADER` in the logfile header event: `LoggerName`
/// and `LogFileName` as NUL-terminated little-endian UTF-16 strings, one after the other,
/// borrowed from the event's bytes (the pointer members of the struct do not point at them).
///
/// In the PerfView sample traces the event's `Size` covers exactly the system header, the
/// struct and both strings with their NULs (for example "Relogger" and "[multiple files]").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct LogfileNames<'a> {
    /// The session's name, without its NUL.
    pub logger_name: Utf16Str<'a>,
    /// The log file's name, without its NUL.
    pub log_file_name: Utf16Str<'a>,
    /// Whether both NULs were found; when not, the last name runs to the end of the bytes.
    pub terminated: bool,
    /// The bytes after the second NUL (none in real traces).
    pub rest: &'a [u8],
}

impl<'a> LogfileNames<'a> {
    /// Reads the two names from the bytes that follow the struct in the event's data; never
    /// fails (missing names are empty, see [`terminated`](Self::terminated)).
    pub fn parse(bytes: &'a [u8]) -> Self {
        let (logger_name, after_logger) = Utf16Str::split_nul_terminated(bytes);
        let (log_file_name, after_file) =
            Utf16Str::split_nul_terminated(after_logger.unwrap_or_default());
        Self {
            logger_name,
            log_file_name,
            terminated: after_logger.is_some() && after_file.is_some(),
            rest: after_file.unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::file::time_zone_information::SystemTime;
    use crate::wire::layout::Layout;

    /// The C-ABI vector "TRACE_LOGFILE_HEADER detail+counts": byte `k` is `1 + (0x10 + k) % 255`
    /// (the generator's ascending pattern), padding zero.
    fn golden<const N: usize>(padding: usize) -> [u8; N] {
        let mut bytes: [u8; N] = core::array::from_fn(|k| 1 + ((0x10 + k) % 255) as u8);
        bytes[padding..padding + 4].fill(0);
        bytes
    }

    /// The 32 code units of a name whose first byte is `first` in the ascending pattern.
    fn units(first: u16) -> [u16; 32] {
        core::array::from_fn(|index| {
            let low = first.wrapping_add(2 * index as u16) as u8;
            u16::from_le_bytes([low, low.wrapping_add(1)])
        })
    }

    #[test]
    fn the_32_bit_layout() {
        let bytes = golden::<0x110>(0xEC);
        let header = TraceLogfileHeader32::from_bytes(&bytes);
        assert_eq!(header.buffer_size, 0x1413_1211); //            0x00
        assert_eq!(header.version, VersionDetail::from_roll_up(0x1817_1615));
        assert_eq!(header.version.major_version, 0x15); //        0x04
        assert_eq!(header.version.sub_minor_version, 0x18); //    0x07
        assert_eq!(header.provider_version, 0x1c1b_1a19); //       0x08
        assert_eq!(header.number_of_processors, 0x201f_1e1d); //   0x0C
        assert_eq!(header.end_time, 0x2827_2625_2423_2221); //     0x10
        assert_eq!(header.timer_resolution, 0x2c2b_2a29); //       0x18
        assert_eq!(header.maximum_file_size, 0x302f_2e2d); //      0x1C
        assert_eq!(header.log_file_mode, 0x3433_3231); //          0x20
        assert_eq!(header.buffers_written, 0x3837_3635); //        0x24
        assert_eq!(header.log_instance.start_buffers(), 0x3c3b_3a39); // 0x28
        assert_eq!(header.log_instance.pointer_size(), 0x403f_3e3d); //  0x2C
        assert_eq!(header.log_instance.events_lost(), 0x4443_4241); //   0x30
        assert_eq!(header.log_instance.cpu_speed_in_mhz(), 0x4847_4645); // 0x34
        assert_eq!(header.logger_name, 0x4c4b_4a49); //            0x38, 4 bytes
        assert_eq!(header.log_file_name, 0x504f_4e4d); //          0x3C
        let zone = header.time_zone; //                             0x40
        assert_eq!(zone.bias, 0x5453_5251);
        assert_eq!(zone.standard_name, units(0x55));
        assert_eq!(zone.standard_date.year, 0x9695);
        assert_eq!(zone.standard_date.milliseconds, 0xa4a3);
        assert_eq!(zone.standard_bias, -0x5758_595b);
        assert_eq!(zone.daylight_name, units(0xa9));
        assert_eq!(
            zone.daylight_date,
            SystemTime {
                year: 0xeae9,
                month: 0xeceb,
                day_of_week: 0xeeed,
                day: 0xf0ef,
                hour: 0xf2f1,
                minute: 0xf4f3,
                second: 0xf6f5,
                milliseconds: 0xf8f7,
            }
        );
        assert_eq!(zone.daylight_bias, -0x0304_0507);
        assert_eq!(header.padding, [0; 4]); //                      0xEC
        assert_eq!(header.boot_time, 0x0908_0706_0504_0302); //    0xF0
        assert_eq!(header.perf_freq, 0x1110_0f0e_0d0c_0b0a); //    0xF8
        assert_eq!(header.start_time, 0x1918_1716_1514_1312); //   0x100
        assert_eq!(header.reserved_flags, ClockType(0x1d1c_1b1a)); // 0x108
        assert_eq!(header.buffers_lost, 0x2120_1f1e); //           0x10C
        assert_eq!(header.to_bytes(), bytes);
    }

    #[test]
    fn the_64_bit_layout() {
        let bytes = golden::<0x118>(0xF4);
        let header = TraceLogfileHeader64::from_bytes(&bytes);
        assert_eq!(header.buffer_size, 0x1413_1211);
        assert_eq!(header.log_instance.pointer_size(), 0x403f_3e3d);
        assert_eq!(header.log_instance.cpu_speed_in_mhz(), 0x4847_4645);
        assert_eq!(header.logger_name, 0x504f_4e4d_4c4b_4a49); //  0x38, 8 bytes
        assert_eq!(header.log_file_name, 0x5857_5655_5453_5251); // 0x40
        let zone = header.time_zone; //                              0x48
        assert_eq!(zone.bias, 0x5c5b_5a59);
        assert_eq!(zone.standard_name, units(0x5d));
        assert_eq!(zone.standard_date.year, 0x9e9d);
        assert_eq!(zone.standard_bias, -0x4f50_5153);
        assert_eq!(zone.daylight_name, units(0xb1));
        assert_eq!(zone.daylight_date.milliseconds, 0x01ff); //    wraps past offset 0xEF
        assert_eq!(zone.daylight_bias, 0x0504_0302);
        assert_eq!(header.padding, [0; 4]); //                       0xF4
        assert_eq!(header.boot_time, 0x1110_0f0e_0d0c_0b0a); //     0xF8
        assert_eq!(header.perf_freq, 0x1918_1716_1514_1312); //     0x100
        assert_eq!(header.start_time, 0x2120_1f1e_1d1c_1b1a); //    0x108
        assert_eq!(header.reserved_flags, ClockType(0x2524_2322)); // 0x110
        assert_eq!(header.buffers_lost, 0x2928_2726); //            0x114
        assert_eq!(header.to_bytes(), bytes);
    }

    #[test]
    fn the_bitness_chosen_type_and_its_views() {
        let bytes = golden::<0x118>(0xF4);
        let (header, rest) = TraceLogfileHeader::parse(&bytes, Bitness::Bits64).unwrap();
        assert!(rest.is_empty());
        assert_eq!(header.layout(), Layout::TraceLogfileHeader64);
        assert_eq!(header.logger_name(), 0x504f_4e4d_4c4b_4a49);
        let (narrow, rest) = TraceLogfileHeader::parse(&bytes, Bitness::Bits32).unwrap();
        assert_eq!(rest.len(), 8);
        assert_eq!(narrow.logger_name(), 0x4c4b_4a49);
        assert_eq!(narrow.buffer_size(), header.buffer_size());

        let guid = Guid::from_fields(1, 2, 3, [4; 8]);
        let mut union = LogInstance::from_counts(1, 8, 0, 3192);
        assert_eq!(union.0[..8], [1, 0, 0, 0, 8, 0, 0, 0]);
        let mut text = heapless::String::<200>::new();
        core::fmt::write(&mut text, format_args!("{union:?}")).unwrap();
        assert_eq!(
            text,
            "LogInstance { log_instance_guid: 00000001-0008-0000-0000-0000780c0000, \
             start_buffers: 1, pointer_size: 8, events_lost: 0, cpu_speed_in_mhz: 3192 }"
        );
        union.set_log_instance_guid(guid);
        assert_eq!(union.log_instance_guid(), guid);
        assert_eq!(union.start_buffers(), 1);
    }

    #[test]
    fn names_after_the_struct() {
        let bytes = [b'R', 0, b'e', 0, 0, 0, b'C', 0, b':', 0, 0, 0];
        let names = LogfileNames::parse(&bytes);
        assert!(names.logger_name == "Re");
        assert!(names.log_file_name == "C:");
        assert!(names.terminated);
        assert!(names.rest.is_empty());
        let cut = LogfileNames::parse(&bytes[..8]);
        assert!(cut.log_file_name == "C");
        assert!(!cut.terminated);
    }

    #[test]
    fn parse_event_checks_the_hook_id_and_the_length() {
        let mut event = [0u8; 0x20 + 0x110 + 4];
        event[..8].copy_from_slice(&[0x02, 0x00, 0x01, 0xC0, 0x34, 0x01, 0x00, 0x00]);
        event[0x20 + 0x110..].copy_from_slice(&[b'A', 0, 0, 0]);
        let (system, header, names, rest) = TraceLogfileHeader::parse_event(&event).unwrap();
        assert_eq!(system.marker(), 0xC001_0002);
        assert_eq!(header.bitness(), Bitness::Bits32);
        assert!(names.logger_name == "A" && names.log_file_name.is_empty());
        assert!(!names.terminated);
        assert!(rest.is_empty());

        event[6] = 0x01;
        assert_eq!(
            TraceLogfileHeader::parse_event(&event),
            Err(CodecError::UnexpectedHookId {
                layout: Layout::SystemTraceHeader,
                expected: 0,
                found: 1
            })
        );
        extern crate std;
        use std::string::ToString;
        assert_eq!(
            TraceLogfileHeader::parse_event(&event)
                .unwrap_err()
                .to_string(),
            "SYSTEM_TRACE_HEADER.HookId (offset 0x06): expected 0x0000, found 0x0001"
        );
        event[6] = 0;
        event[2] = 0x02; // SYSTEM64: the event is 4 bytes short of a 0x118-byte struct.
        assert_eq!(
            TraceLogfileHeader::parse_event(&event),
            Err(CodecError::Truncated {
                layout: Layout::TraceLogfileHeader64,
                needed: 0x118,
                found: 0x114
            })
        );
    }
}
