//! Decompresses every Plain LZ77 buffer of the .etl files given, PASSES times over, and prints
//! how many buffers and bytes one pass decompresses: the work docs/PERFORMANCE.md counts the
//! instructions and branch mispredictions of ("Plain LZ77 decompression").
//!
//! Under cachegrind, the difference between a run of 2 passes and a run of 1 is one pass alone
//! (reading and parsing the files cancel out):
//!
//! ```sh
//! cargo build --release --example lz77_passes
//! for passes in 1 2; do
//!     valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file=/dev/null \
//!         target/release/examples/lz77_passes $passes \
//!         ../shared/data/perfview/net.4.5.2.x64.etl ../shared/data/perfview/net.4.5.2.x86.etl
//! done
//! ```
//!
//! Instructions per output byte: the difference of the two `I refs` over the bytes one pass
//! prints; mispredictions per pass: the difference of the two `Mispredicts`.

use std::process::ExitCode;

use etw_classic::{read::plain_lz77, EtlFile, WmiBufferHeader};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(passes) = args.next().and_then(|passes| passes.parse::<u32>().ok()) else {
        eprintln!("usage: lz77_passes PASSES FILE.etl...");
        return ExitCode::from(2);
    };
    let mut files = Vec::new();
    for path in args {
        match std::fs::read(&path) {
            Ok(bytes) => files.push((path, bytes)),
            Err(error) => {
                eprintln!("lz77_passes: cannot read {path}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    // Each compressed buffer's stream and the length its Offset says it decompresses to.
    let mut streams: Vec<(&[u8], usize)> = Vec::new();
    let mut scratch = Vec::new();
    for (path, bytes) in &files {
        let file = match EtlFile::parse(bytes) {
            Ok(file) => file,
            Err(error) => {
                eprintln!("lz77_passes: {path}: {error}");
                return ExitCode::FAILURE;
            }
        };
        scratch.resize(scratch.len().max(file.buffer_size()), 0);
        for buffer in file.buffers() {
            let buffer = match buffer {
                Ok(buffer) => buffer,
                Err(error) => {
                    eprintln!("lz77_passes: {path}: {error}");
                    return ExitCode::FAILURE;
                }
            };
            if buffer.is_compressed() {
                let length = (buffer.header.offset as usize).saturating_sub(WmiBufferHeader::LEN);
                streams.push((&buffer.bytes[WmiBufferHeader::LEN..], length));
            }
        }
    }
    let mut written = 0usize;
    for _ in 0..passes {
        for &(stream, length) in &streams {
            match plain_lz77::decompress(stream, &mut scratch) {
                Ok(bytes) if bytes == length => written += bytes,
                Ok(bytes) => {
                    eprintln!("lz77_passes: a stream decompressed to {bytes} bytes, not {length}");
                    return ExitCode::FAILURE;
                }
                Err(error) => {
                    eprintln!("lz77_passes: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let per_pass: usize = streams.iter().map(|&(_, length)| length).sum();
    let compressed: usize = streams.iter().map(|&(stream, _)| stream.len()).sum();
    println!(
        "{} compressed buffers, {compressed} bytes -> {per_pass} bytes a pass; {passes} passes, \
         {written} bytes written",
        streams.len()
    );
    ExitCode::SUCCESS
}
