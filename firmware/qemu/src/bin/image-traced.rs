//! The smallest firmware that uses the library as a firmware would: a provider with two classes
//! and a session in a `static`, one instance event with a parent, one plain event, the buffer
//! sealed and stored, and the logfile header written; the .etl goes to `image.etl` on the
//! host. `tools/firmware-costs/costs.py` compares its sections with `image-plain`, which does
//! the same I/O without the library: the difference is the library's flash and RAM.
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use etw_classic::{
    wire::VersionDetail, Bitness, Class, EtlHeader, EventData, EventInstanceHeader,
    EventTraceHeader, EventType, Guid, GuidOrPtr, Level, Provider, Session, SteppingContext,
    TimesOrFlags, WnodeFlags,
};
use etw_classic_firmware_qemu::{exit, HostFile};

const BUFFER_SIZE: usize = 512;
const CLASS: Guid = Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 1]);
const PARENT_CLASS: Guid =
    Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 2]);
/// The event data, in flash; `black_box` hides it from the optimiser.
static PAYLOAD: [u8; 16] = [0x42; 16];

fn run(session: &mut Session<BUFFER_SIZE, 2>, file: &mut HostFile) -> Option<()> {
    let mut provider = Provider::<2>::new(Bitness::Bits32);
    let class = provider.register(black_box(CLASS)).ok()?;
    let parent_class = provider.register(black_box(PARENT_CLASS)).ok()?;
    let parent = provider.create_instance_id(parent_class).ok()?;
    let instance = provider.create_instance_id(class).ok()?;
    let mut clock = SteppingContext {
        now: black_box(1_000),
        step: 10,
        ..SteppingContext::default()
    };
    let data: &[u8] = black_box(&PAYLOAD[..]);
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
        guid: GuidOrPtr::from_guid(CLASS),
        times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    let plain = black_box(plain);
    let traced = provider.trace_event(session, &plain, EventData::Inline(data), &mut clock);
    black_box(traced.is_ok());
    session.flush(clock.now);
    file.seek(BUFFER_SIZE).ok()?;
    session.drain(|buffer| file.write(buffer)).ok()?;
    let mut etl_header = EtlHeader::new(Bitness::Bits32, BUFFER_SIZE as u32);
    etl_header.buffers_written = 2;
    etl_header.start_time = 1_000;
    etl_header.end_time = clock.now;
    etl_header.version = VersionDetail {
        major_version: 10,
        minor_version: 0,
        sub_version: 0,
        sub_minor_version: 0,
    };
    etl_header.logger_name = "image";
    etl_header.log_file_name = "image.etl";
    let mut first = [0u8; BUFFER_SIZE];
    etl_header.write_first_buffer(&mut first).ok()?;
    file.seek(0).ok()?;
    file.write(&first).ok()
}

#[entry]
fn main() -> ! {
    static mut SESSION: Session<BUFFER_SIZE, 2> = Session::new(1, Level::VERBOSE);
    let Ok(mut file) = HostFile::create("image.etl\0") else {
        exit(false)
    };
    let done = run(SESSION, &mut file);
    exit(done.is_some() && file.close().is_ok())
}
