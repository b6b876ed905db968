//! The smallest firmware that uses the library as a firmware would: a provider with two classes
//! and a session in a `static` made with `Session::disabled` (in `.bss`), one instance event
//! with a parent, one plain event, the buffer sealed and stored, and the logfile header written;
//! the .etl goes to `image.etl` on the host. `tools/firmware-costs/costs.py` compares its
//! sections with `image-plain`, which does the same I/O without the library: the difference is
//! the library's flash and RAM.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use etw_classic::{wire::VersionDetail, Bitness, EtlHeader, Session};
use etw_classic_firmware_qemu::{
    exit, image_trace, HostFile, ImageSession, IMAGE_BUFFER_SIZE as BUFFER_SIZE,
};

fn run(session: &mut ImageSession, file: &mut HostFile) -> Option<()> {
    let end_time = image_trace(session, file)?;
    let mut etl_header = EtlHeader::new(Bitness::Bits32, BUFFER_SIZE as u32);
    etl_header.buffers_written = 2;
    etl_header.start_time = 1_000;
    etl_header.end_time = end_time;
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
    // All zeros: `.bss`, RAM only.
    static mut SESSION: ImageSession = Session::disabled();
    let Ok(mut file) = HostFile::create("image.etl\0") else {
        exit(false)
    };
    let done = run(SESSION, &mut file);
    exit(done.is_some() && file.close().is_ok())
}
