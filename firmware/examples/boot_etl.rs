//! Writes the boot trace of every mode into a folder, as the QEMU firmware does through
//! semihosting, and prints what each file should hold as one JSON line per mode:
//! `{"file": ..., "buffers": ..., "events": ..., "kinds": {...}, "lost": ..., ...}`, with
//! `buffers`, `events` and `kinds` as `etwc etl --summary --json` counts them (the logfile
//! header's buffer and its `SYSTEM32` event included). The interrupt handler's timer ticks
//! ([`Mode::Interrupts`]) are traced by calling the handler's work directly.
//!
//! `cargo run -p etw-classic-firmware --example boot_etl -- OUT_DIR`

use etw_classic_firmware::{boot_trace, CalledDirectly, EtlSink, Mode};

/// The file in memory.
struct FileImage(Vec<u8>);

impl EtlSink for FileImage {
    type Error = std::num::TryFromIntError;

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), Self::Error> {
        let start = usize::try_from(offset)?;
        let end = start + bytes.len();
        if self.0.len() < end {
            self.0.resize(end, 0);
        }
        self.0[start..end].copy_from_slice(bytes);
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args_os()
        .nth(1)
        .ok_or("usage: boot_etl OUT_DIR")?;
    let out = std::path::Path::new(&out);
    std::fs::create_dir_all(out)?;
    for mode in Mode::ALL {
        let mut file = FileImage(Vec::new());
        let summary = boot_trace(mode, &mut file, &mut CalledDirectly)
            .map_err(|error| format!("{error:?}"))?;
        std::fs::write(out.join(mode.file_name()), &file.0)?;
        // The kinds etwc counts: those with events.
        let kinds: Vec<String> = [
            ("FULL_HEADER32", summary.plain_events),
            ("INSTANCE32", summary.instance_events),
            ("SYSTEM32", 1),
        ]
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(kind, count)| format!("\"{kind}\": {count}"))
        .collect();
        println!(
            "{{\"file\": \"{}\", \"buffers\": {}, \"events\": {}, \"kinds\": {{{}}}, \"lost\": {}, \"overwritten\": {}, \"filtered_out\": {}, \"too_large\": {}, \"interrupt_events\": {}}}",
            mode.file_name(),
            summary.buffers + 1,
            summary.instance_events + summary.plain_events + 1,
            kinds.join(", "),
            summary.lost,
            summary.overwritten,
            summary.filtered_out,
            summary.too_large,
            summary.interrupt_events,
        );
    }
    Ok(())
}
