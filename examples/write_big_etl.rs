//! Writes a large .etl file, for measuring readers on more than the sample traces hold: a
//! session of two 64 KiB buffers traces `FULL_HEADER64` events with 0 to 199 bytes of data each,
//! and every buffer it seals goes straight to the file. Nothing is held whole in memory: the
//! first `BufferSize` bytes are reserved, and the logfile header's buffer is written there at
//! the end, once `BuffersWritten` is known (as [`EtlHeader`] suggests for streaming writers).
//!
//! ```sh
//! cargo run --release --example write_big_etl -- big.etl --megabytes 500
//! ```
//!
//! The sealed buffers take turns among `--processors` processor numbers, as a real trace's
//! per-processor buffers do.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::PathBuf;

use clap::Parser;
use etw_classic::{
    Bitness, Class, EtlHeader, EventData, EventTraceHeader, EventType, Guid, GuidOrPtr, Level,
    Provider, Session, SteppingContext, TimesOrFlags, WnodeFlags,
};

/// Write an .etl file of about the given size, buffer by buffer.
#[derive(Parser)]
struct Args {
    /// The file to write
    out: PathBuf,
    /// Its size in megabytes (10^6 bytes), rounded up to whole 64 KiB buffers
    #[arg(long, default_value_t = 50)]
    megabytes: u64,
    /// How many processors the buffers take turns among
    #[arg(long, default_value_t = 8)]
    processors: u8,
}

/// The buffers of the file: 64 KiB, as in the PerfView traces.
const BUFFER_SIZE: usize = 64 << 10;
/// Buffers of the session: one filling while the sealed one is written.
const BUFFER_COUNT: usize = 2;
const BITNESS: Bitness = Bitness::Bits64;
/// 2026-11-21 00:00:00 UTC as a FILETIME: the first event's time stamp.
const START_TIME: i64 = 134_396_928_000_000_000;
/// The event trace class of every event.
const CLASS: Guid = Guid::from_fields(
    0x7a1c_55e0,
    0x3b9d,
    0x4f02,
    [0x8e, 0x61, 0x2d, 0x0b, 0x94, 0xc3, 0x17, 0x5a],
);

/// `len` bytes of a fixed pseudo-random sequence (xorshift64), the events' data.
fn data_bytes(len: usize) -> Vec<u8> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let target = args.megabytes.saturating_mul(1_000_000);
    let mut file = BufWriter::with_capacity(BUFFER_SIZE, File::create(&args.out)?);
    // Room for the logfile header's buffer, written last.
    file.write_all(&[0u8; BUFFER_SIZE])?;
    let mut buffers = 1u64;

    let mut session = Box::new(Session::<BUFFER_SIZE, BUFFER_COUNT>::new(1, Level::VERBOSE));
    let provider = Provider::<1>::new(BITNESS);
    let mut clock = SteppingContext {
        now: START_TIME,
        step: 1_000, // 100 µs
        thread_id: 0x1A2C,
        process_id: 0x0F04,
        kernel_time: 3,
        user_time: 5,
    };
    let data = data_bytes(256);
    let processors = u64::from(args.processors.max(1));
    let mut events = 0u64;
    let mut store = |buffer: &[u8; BUFFER_SIZE], buffers: &mut u64| -> std::io::Result<()> {
        file.write_all(buffer)?;
        *buffers += 1;
        Ok(())
    };
    while buffers * (BUFFER_SIZE as u64) < target {
        let len = usize::try_from(events * 37 % 200)?;
        let header = EventTraceHeader {
            size: u16::try_from(EventTraceHeader::LEN + len)?,
            class: Class::new(EventType::INFO, Level::INFORMATION, 1),
            guid: GuidOrPtr::from_guid(CLASS),
            times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
            ..Default::default()
        };
        provider.trace_event(
            &mut session,
            &header,
            EventData::Inline(&data[..len]),
            &mut clock,
        )?;
        events += 1;
        let before = buffers;
        session.drain(|buffer| store(buffer, &mut buffers))?;
        if buffers != before {
            session.set_processor_number(u8::try_from(buffers % processors)?);
        }
    }
    session.flush(clock.now);
    session.drain(|buffer| store(buffer, &mut buffers))?;

    let mut header = EtlHeader::new(BITNESS, u32::try_from(BUFFER_SIZE)?);
    header.buffers_written = u32::try_from(buffers)?;
    header.number_of_processors = u32::from(args.processors.max(1));
    header.cpu_speed_in_mhz = 3000;
    header.start_time = START_TIME;
    header.end_time = clock.now;
    header.boot_time = START_TIME;
    header.logger_name = "write_big_etl";
    let name = args.out.display().to_string();
    header.log_file_name = &name;
    let mut first = vec![0u8; BUFFER_SIZE];
    header.write_first_buffer(&mut first)?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&first)?;
    file.flush()?;
    println!(
        "wrote {} ({} bytes, {buffers} buffers, {events} events)",
        args.out.display(),
        buffers * (BUFFER_SIZE as u64)
    );
    Ok(())
}
