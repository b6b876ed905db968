//! What the QEMU firmware binaries share: semihosting (files and standard output on the host,
//! the command line, the exit status), the panic handler, the critical section of the
//! Cortex-R5 (the Cortex-M cores use `cortex-m`'s), and the trace `image-traced` and
//! `image-session` make.
//!
//! Semihosting is the Arm convention by which a program asks its debugger (here QEMU, started
//! with `-semihosting-config enable=on,target=native`) to do I/O for it: the operation number
//! in r0, the address of a parameter block of 32-bit words in r1, then `BKPT 0xAB` on M-profile
//! cores or `SVC 0x123456` in the A32 state of A- and R-profile cores; the result comes back
//! in r0. The operation numbers and blocks are those of Arm's "Semihosting for AArch32 and
//! AArch64" specification. QEMU's `qemu-system-arm` reads the blocks' words little-endian
//! whatever the core's data byte order, so on a big-endian core they are stored byte-swapped.
#![no_std]

use core::fmt;

use core::hint::black_box;

use etw_classic::{
    Bitness, Class, EventData, EventInstanceHeader, EventTraceHeader, EventType, Guid, GuidOrPtr,
    Level, Provider, Session, SteppingContext, TimesOrFlags, WnodeFlags,
};
use etw_classic_firmware::{boot_trace, EtlSink, Interrupt, Mode, BUFFER_SIZE};

/// Semihosting operation numbers (`SYS_*`).
mod op {
    pub const OPEN: u32 = 0x01;
    pub const CLOSE: u32 = 0x02;
    pub const WRITE: u32 = 0x05;
    pub const SEEK: u32 = 0x0A;
    pub const GET_CMDLINE: u32 = 0x15;
    pub const EXIT: u32 = 0x18;
}

/// `SYS_OPEN` mode 5: "wb".
const MODE_WRITE_BINARY: usize = 5;
/// `SYS_OPEN` mode 4: "w"; with the name ":tt", the host's standard output.
const MODE_WRITE: usize = 4;
/// `SYS_EXIT` reasons: `ADP_Stopped_ApplicationExit` (QEMU exits with status 0) and
/// `ADP_Stopped_RunTimeErrorUnknown` (QEMU exits with status 1).
const APPLICATION_EXIT: usize = 0x2_0026;
const RUN_TIME_ERROR: usize = 0x2_0023;

/// One semihosting call: `operation` with `parameter` (a block's address, or a value).
///
/// The firmware's only `unsafe` besides the stack painting of the costs binary: the call is a
/// breakpoint instruction that the host handles, reading and writing the memory the block
/// names. Every caller passes a block that lives across the call and names memory it owns.
#[cfg(target_endian = "little")]
fn call(operation: u32, parameter: usize) -> isize {
    let result: isize;
    // SAFETY: `BKPT 0xAB` with r0/r1 set is the M-profile semihosting trap; QEMU reads the
    // block at r1 (and the buffers it points at) and writes r0 only. The buffers are borrowed
    // by the caller for the duration of the call.
    unsafe {
        core::arch::asm!(
            "bkpt #0xab",
            inout("r0") operation => result,
            in("r1") parameter,
            options(nostack, preserves_flags),
        );
    }
    result
}

/// One semihosting call on the big-endian Cortex-R5 (A32 state); see the little-endian one.
#[cfg(target_endian = "big")]
fn call(operation: u32, parameter: usize) -> isize {
    let result: isize;
    // SAFETY: `SVC 0x123456` with r0/r1 set is the A32 semihosting trap, handled by QEMU (no
    // SVC handler runs); as above, QEMU reads the block and buffers and writes r0 only.
    unsafe {
        core::arch::asm!(
            "svc #0x123456",
            inout("r0") operation => result,
            in("r1") parameter,
            options(nostack, preserves_flags),
        );
    }
    result
}

/// A parameter block as QEMU reads it: little-endian words.
fn block<const N: usize>(words: [usize; N]) -> [usize; N] {
    words.map(usize::to_le)
}

/// A host file opened for writing.
#[derive(Debug)]
pub struct HostFile {
    handle: usize,
}

/// A semihosting call that failed: the operation and its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostError {
    /// The `SYS_*` operation.
    pub operation: u32,
    /// What it returned.
    pub result: isize,
}

impl HostFile {
    /// Creates (or truncates) `name`, which must end with a NUL, in QEMU's working directory.
    ///
    /// # Errors
    /// The host could not open the file.
    pub fn create(name: &str) -> Result<Self, HostError> {
        Self::open(name, MODE_WRITE_BINARY)
    }

    /// The host's standard output.
    ///
    /// # Errors
    /// The host could not open it.
    pub fn stdout() -> Result<Self, HostError> {
        Self::open(":tt\0", MODE_WRITE)
    }

    fn open(name: &str, mode: usize) -> Result<Self, HostError> {
        let length = name.strip_suffix('\0').map_or(0, str::len);
        if length == 0 {
            return Err(HostError {
                operation: op::OPEN,
                result: -1,
            });
        }
        let block = block([name.as_ptr() as usize, mode, length]);
        match call(op::OPEN, block.as_ptr() as usize) {
            -1 => Err(HostError {
                operation: op::OPEN,
                result: -1,
            }),
            handle => Ok(Self {
                handle: handle as usize,
            }),
        }
    }

    /// Writes all of `bytes` at the current position.
    ///
    /// # Errors
    /// The host wrote less.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), HostError> {
        let block = block([self.handle, bytes.as_ptr() as usize, bytes.len()]);
        match call(op::WRITE, block.as_ptr() as usize) {
            0 => Ok(()),
            unwritten => Err(HostError {
                operation: op::WRITE,
                result: unwritten,
            }),
        }
    }

    /// Moves the position to `offset` from the start of the file.
    ///
    /// # Errors
    /// The host could not seek there.
    pub fn seek(&mut self, offset: usize) -> Result<(), HostError> {
        let block = block([self.handle, offset]);
        match call(op::SEEK, block.as_ptr() as usize) {
            0 => Ok(()),
            result => Err(HostError {
                operation: op::SEEK,
                result,
            }),
        }
    }

    /// Closes the file.
    ///
    /// # Errors
    /// The host could not close it.
    pub fn close(self) -> Result<(), HostError> {
        let block = block([self.handle]);
        match call(op::CLOSE, block.as_ptr() as usize) {
            0 => Ok(()),
            result => Err(HostError {
                operation: op::CLOSE,
                result,
            }),
        }
    }
}

impl EtlSink for HostFile {
    type Error = HostError;

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), HostError> {
        let offset = usize::try_from(offset).map_err(|_| HostError {
            operation: op::SEEK,
            result: -1,
        })?;
        self.seek(offset)?;
        self.write(bytes)
    }
}

impl fmt::Write for HostFile {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.write(text.as_bytes()).map_err(|_| fmt::Error)
    }
}

/// Prints to the host's standard output (nothing if it cannot be opened).
pub fn print(arguments: fmt::Arguments<'_>) {
    if let Ok(mut out) = HostFile::stdout() {
        let _ = fmt::Write::write_fmt(&mut out, arguments);
        let _ = out.close();
    }
}

/// `println!` to the host's standard output.
#[macro_export]
macro_rules! println {
    ($($argument:tt)*) => {
        $crate::print(format_args!("{}\n", format_args!($($argument)*)))
    };
}

/// The command line QEMU was given with `-append` (after the image's name), into `buffer`;
/// empty if there is none.
pub fn command_line(buffer: &mut [u8]) -> &str {
    let mut block = block([buffer.as_mut_ptr() as usize, buffer.len()]);
    if call(op::GET_CMDLINE, block.as_mut_ptr() as usize) != 0 {
        return "";
    }
    let length = usize::from_le(block[1]).min(buffer.len());
    core::str::from_utf8(&buffer[..length]).unwrap_or("")
}

/// Stops QEMU, which exits with status 0 if `success`, else 1.
pub fn exit(success: bool) -> ! {
    let reason = if success {
        APPLICATION_EXIT
    } else {
        RUN_TIME_ERROR
    };
    call(op::EXIT, reason);
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    println!("panic: {info}");
    exit(false)
}

/// `Mode::file_name` with its `.etl` replaced by `extension` and the NUL semihosting wants.
fn c_name<'b>(mode: Mode, extension: &str, buffer: &'b mut [u8; 40]) -> Option<&'b str> {
    let stem = mode.file_name().strip_suffix(".etl")?.as_bytes();
    let length = stem.len() + extension.len();
    let with_nul = buffer.get_mut(..length + 1)?;
    let (text, nul) = with_nul.split_at_mut(length);
    let (text_stem, text_extension) = text.split_at_mut(stem.len());
    text_stem.copy_from_slice(stem);
    text_extension.copy_from_slice(extension.as_bytes());
    nul.fill(0);
    core::str::from_utf8(with_nul).ok()
}

/// The bytes of the last trace buffer that [`Dumped`] writes once more after the trace, as a
/// transfer cut short: its header and the start of its events, not the whole buffer.
const TORN_LEN: usize = 200;

/// The .etl file, and beside it the dump: every trace buffer appended as it is handed over
/// (the raw buffers `etwc assemble` turns into an .etl file), the logfile header's buffer not.
struct Dumped {
    etl: HostFile,
    dump: HostFile,
    /// The last trace buffer handed over.
    last: [u8; BUFFER_SIZE],
}

impl EtlSink for Dumped {
    type Error = HostError;

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), HostError> {
        self.etl.write_at(offset, bytes)?;
        if offset != 0 {
            self.dump.write(bytes)?;
            if let Some(last) = bytes.first_chunk::<BUFFER_SIZE>() {
                self.last = *last;
            }
        }
        Ok(())
    }
}

/// Creates the host file `name` of `mode`, printing why it cannot be.
fn create(mode: Mode, extension: &str) -> Option<HostFile> {
    let mut name = [0; 40];
    let name = c_name(mode, extension, &mut name)?;
    match HostFile::create(name) {
        Ok(file) => Some(file),
        Err(error) => {
            println!("{}: {error:?}", name.trim_end_matches('\0'));
            None
        }
    }
}

/// Traces the boot in `mode` into the mode's file in QEMU's working directory, and its trace
/// buffers into `<mode>.buffers` followed by the first [`TORN_LEN`] bytes of the last one
/// again; prints what it traced and returns whether all went well.
fn trace_to_file(mode: Mode, interrupt: &mut impl Interrupt) -> bool {
    let (Some(etl), Some(dump)) = (create(mode, ".etl"), create(mode, ".buffers")) else {
        return false;
    };
    let mut files = Dumped {
        etl,
        dump,
        last: [0; BUFFER_SIZE],
    };
    let traced = boot_trace(mode, &mut files, interrupt);
    let torn = files.dump.write(&files.last[..TORN_LEN]);
    let closed = (files.etl.close(), files.dump.close());
    match (traced, torn, closed) {
        (Ok(summary), Ok(()), (Ok(()), Ok(()))) => {
            println!("{}: {summary:?}", mode.file_name());
            true
        }
        (traced, torn, closed) => {
            println!("{}: {traced:?} {torn:?} {closed:?}", mode.file_name());
            false
        }
    }
}

/// The boot firmware: traces the boot in every mode, each into its .etl file, then stops QEMU
/// with status 0, or 1 if anything failed. `interrupt` raises the exception whose handler calls
/// `etw_classic_firmware::on_interrupt`.
pub fn trace_boot_and_exit(interrupt: &mut impl Interrupt) -> ! {
    let mut success = true;
    for mode in Mode::ALL {
        success &= trace_to_file(mode, interrupt);
    }
    exit(success)
}

/// The critical section of the Cortex-R5 (single core): IRQs masked with `CPSID I`, and
/// unmasked on release only if they were unmasked before, so that critical sections nest.
#[cfg(target_endian = "big")]
mod cortex_r_critical_section {
    struct MaskIrq;
    critical_section::set_impl!(MaskIrq);

    /// CPSR.I: IRQs masked.
    const CPSR_I: u32 = 1 << 7;

    // SAFETY: a single core, whose only interrupts are IRQs: with CPSR.I set nothing else runs
    // until `release` (FIQs and the SVC the boot raises are never used inside a critical
    // section).
    unsafe impl critical_section::Impl for MaskIrq {
        unsafe fn acquire() -> bool {
            let cpsr: u32;
            // SAFETY: reads CPSR and masks IRQs; a compiler barrier (memory is not `nomem`).
            unsafe { core::arch::asm!("mrs {}, cpsr", "cpsid i", out(reg) cpsr, options(nostack)) };
            cpsr & CPSR_I == 0
        }

        unsafe fn release(were_unmasked: bool) {
            if were_unmasked {
                // SAFETY: unmasks IRQs, as they were before `acquire`.
                unsafe { core::arch::asm!("cpsie i", options(nostack)) };
            }
        }
    }
}

/// The buffer size of `image-traced` and `image-session`.
pub const IMAGE_BUFFER_SIZE: usize = 512;

/// The session of `image-traced` and `image-session`, kept in a `static`.
pub type ImageSession = Session<IMAGE_BUFFER_SIZE, 2>;

const IMAGE_CLASS: Guid =
    Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 1]);
const IMAGE_PARENT_CLASS: Guid =
    Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 2]);
/// The event data, in flash; `black_box` hides it from the optimiser.
static IMAGE_PAYLOAD: [u8; 16] = [0x42; 16];

/// What `image-traced` and `image-session` trace, as a firmware would: `session` (a `static`
/// made with `Session::disabled`) given its logger id and level, a provider with two classes,
/// one 16-byte instance event with a parent and one 16-byte plain event, the buffer sealed
/// and stored at `IMAGE_BUFFER_SIZE` in `file`. Returns the clock's time after the trace.
pub fn image_trace(session: &mut ImageSession, file: &mut HostFile) -> Option<i64> {
    session.set_logger_id(1);
    session.set_enable_level(Level::VERBOSE);
    let mut provider = Provider::<2>::new(Bitness::Bits32);
    let class = provider.register(black_box(IMAGE_CLASS)).ok()?;
    let parent_class = provider.register(black_box(IMAGE_PARENT_CLASS)).ok()?;
    let parent = provider.create_instance_id(parent_class).ok()?;
    let instance = provider.create_instance_id(class).ok()?;
    let mut clock = SteppingContext {
        now: black_box(1_000),
        step: 10,
        ..SteppingContext::default()
    };
    let data: &[u8] = black_box(&IMAGE_PAYLOAD[..]);
    let header = EventInstanceHeader {
        size: (EventInstanceHeader::LEN + data.len()) as u16,
        class: Class::new(EventType::START, Level::INFORMATION, 1),
        reg_handle: class,
        parent_reg_handle: parent_class,
        times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    let header = black_box(header);
    let traced = provider.trace_event_instance(
        session,
        &header,
        EventData::Inline(data),
        &instance,
        Some(&parent),
        &mut clock,
    );
    black_box(traced.is_ok());
    let plain = EventTraceHeader {
        size: (EventTraceHeader::LEN + data.len()) as u16,
        class: Class::new(EventType::INFO, Level::INFORMATION, 1),
        guid: GuidOrPtr::from_guid(IMAGE_CLASS),
        times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    let plain = black_box(plain);
    let traced = provider.trace_event(session, &plain, EventData::Inline(data), &mut clock);
    black_box(traced.is_ok());
    session.flush(clock.now);
    file.seek(IMAGE_BUFFER_SIZE).ok()?;
    session.drain(|buffer| file.write(buffer)).ok()?;
    Some(clock.now)
}
