//! `etwc decode --json` then `etwc encode` gives back the bytes, for every layout: on the
//! headers of real traces (the PerfView traces' events and logfile headers, and the
//! `EVENT_TRACE`s the reader delivers for them) and on the structs the library writes (the boot
//! trace's events, the provider-side `EVENT_INSTANCE_HEADER`, `EVENT_INSTANCE_INFO` and
//! `MOF_FIELD` of its instance events). And `encode` reads at most 1 MiB, as `decode` does.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{boot_trace_file, etwc, to_hex, trace, utf8};
use etw_classic::wire::{TraceLogfileHeader32, TraceLogfileHeader64};
use etw_classic::{
    Bitness, EtlFile, EventInstanceHeader, EventInstanceInfo, EventKind, EventTraceHeader,
    MofField, SystemTraceHeader, TraceBuffer, WmiBufferHeader,
};
use etw_classic_firmware::Mode;

/// Structs of one layout found in a trace, at most this many of each.
const SAMPLES: usize = 3;

/// The bytes of every layout `etwc` knows, as a trace holds them or the library writes them,
/// by layout name.
#[derive(Default)]
struct Samples(Vec<(&'static str, Vec<u8>)>);

impl Samples {
    fn add(&mut self, layout: &'static str, bytes: &[u8]) {
        if self.0.iter().filter(|(name, _)| *name == layout).count() < SAMPLES {
            self.0.push((layout, bytes.to_vec()));
        }
    }

    fn has(&self, layout: &str) -> bool {
        self.0.iter().any(|(name, _)| *name == layout)
    }
}

/// The headers of `etl`: the logfile header's (its `SYSTEM_TRACE_HEADER` and
/// `TRACE_LOGFILE_HEADER`), then each buffer's classic and system events and the `EVENT_TRACE`
/// the reader delivers for the classic ones; with `provider_side`, the provider's structs for
/// each instance event.
fn samples_of(etl: &[u8], samples: &mut Samples, provider_side: bool) {
    let file = EtlFile::parse(etl).unwrap();
    let bitness = file.bitness();
    let (bits, info_layout, trace_layout) = match bitness {
        Bitness::Bits32 => ("logfile-header32", "instance-info32", "event-trace32"),
        Bitness::Bits64 => ("logfile-header64", "instance-info64", "event-trace64"),
    };
    // The first buffer: WMI_BUFFER_HEADER, SYSTEM_TRACE_HEADER, TRACE_LOGFILE_HEADER.
    let system = WmiBufferHeader::LEN;
    let logfile = system + SystemTraceHeader::LEN;
    let logfile_len = match bitness {
        Bitness::Bits32 => TraceLogfileHeader32::LEN,
        Bitness::Bits64 => TraceLogfileHeader64::LEN,
    };
    samples.add("system-header", &etl[system..logfile]);
    samples.add(bits, &etl[logfile..logfile + logfile_len]);

    let mut scratch = vec![0; file.logfile_header.buffer_size() as usize];
    for buffer in file.buffers().skip(1) {
        let buffer = buffer.unwrap();
        let Ok(trace_buffer) = buffer.trace_buffer(&mut scratch) else {
            continue;
        };
        let trace_buffer: TraceBuffer<'_> = trace_buffer;
        for event in trace_buffer.events() {
            let Ok(event) = event else { break };
            match event.kind() {
                EventKind::Full { .. } => {
                    samples.add("trace-header", &event.bytes[..EventTraceHeader::LEN]);
                }
                EventKind::Instance { header, data } => {
                    samples.add("instance-guid-header", &event.bytes[..0x48]);
                    if provider_side {
                        // What the provider handed TraceEventInstance for this event.
                        let first = header.header;
                        let provider_header = EventInstanceHeader {
                            size: first.size,
                            header_type: first.header_type,
                            marker_flags: first.marker_flags,
                            class: first.class,
                            thread_id: first.thread_id,
                            process_id: first.process_id,
                            timestamp: first.timestamp,
                            reg_handle: first.guid.guid_ptr(),
                            instance_id: header.instance_id,
                            parent_instance_id: header.parent_instance_id,
                            times: first.times,
                            parent_reg_handle: header.parent_guid.to_bytes_le()[0].into(),
                        };
                        samples.add("instance-header", &provider_header.to_bytes());
                        let info = EventInstanceInfo::new(bitness, 0x7000_1000, header.instance_id)
                            .unwrap();
                        let mut bytes = vec![0; info.byte_len()];
                        info.emit(&mut bytes).unwrap();
                        samples.add(info_layout, &bytes);
                        let field = MofField {
                            data_ptr: 0x2000_0400,
                            length: u32::try_from(data.len()).unwrap(),
                            data_type: 0,
                        };
                        samples.add("mof-field", &field.to_bytes());
                    }
                }
                EventKind::System { .. } => {
                    samples.add("system-header", &event.bytes[..SystemTraceHeader::LEN]);
                }
                _ => continue,
            }
            if let Some(Ok(delivered)) = trace_buffer.deliver(&event, bitness) {
                samples.add(trace_layout, &delivered.event_trace.to_bytes());
            }
        }
    }
}

/// `etwc decode LAYOUT HEX --json`, then `etwc encode LAYOUT @FILE` of what it printed: the
/// same bytes.
fn check_round_trip(dir: &Path, layout: &str, bytes: &[u8]) {
    let decoded = etwc()
        .args(["decode", layout, &to_hex(bytes), "--json"])
        .output()
        .unwrap();
    assert!(decoded.status.success(), "{}", utf8(&decoded.stderr));
    let json_path = dir.join(format!("{layout}.json"));
    std::fs::write(&json_path, &decoded.stdout).unwrap();
    let encoded = etwc()
        .args(["encode", layout])
        .arg(format!("@{}", json_path.display()))
        .output()
        .unwrap();
    assert!(
        encoded.status.success(),
        "{layout}: {}\nthe JSON: {}",
        utf8(&encoded.stderr),
        utf8(&decoded.stdout)
    );
    assert_eq!(
        utf8(&encoded.stdout),
        format!("{}\n", to_hex(bytes)),
        "{layout}"
    );
    // The same through standard input.
    let piped = etwc()
        .args(["encode", layout, "-"])
        .write_stdin(decoded.stdout.clone())
        .output()
        .unwrap();
    assert_eq!(
        utf8(&piped.stdout),
        format!("{}\n", to_hex(bytes)),
        "{layout}"
    );
}

/// A folder of the test `test`'s own: the tests run at once and write files of the same names.
fn scratch_dir(test: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("codec-round-trip")
        .join(test);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn decode_then_encode_gives_the_bytes_of_real_traces() {
    let dir = scratch_dir("real-traces");
    let mut samples = Samples::default();
    for name in [
        "net.4.5.2.x64.etl",
        "net.4.5.2.x86.etl",
        "gcevents.etl",
        "primitive-types.etl",
        "SelfDescribingSingleEvent.etl",
    ] {
        let Some(path) = trace(name) else { return };
        samples_of(&std::fs::read(path).unwrap(), &mut samples, false);
    }
    // What the real traces hold (all five were written by 64-bit loggers).
    for layout in [
        "system-header",
        "logfile-header64",
        "trace-header",
        "event-trace64",
    ] {
        assert!(samples.has(layout), "no {layout} in the PerfView traces");
    }
    for (layout, bytes) in &samples.0 {
        check_round_trip(&dir, layout, bytes);
    }
}

#[test]
fn decode_then_encode_gives_the_bytes_the_library_writes() {
    let dir = scratch_dir("library");
    let mut samples = Samples::default();
    for mode in [Mode::Streaming, Mode::SingleShot] {
        samples_of(&boot_trace_file(mode), &mut samples, true);
    }
    for layout in [
        "trace-header",
        "instance-header",
        "instance-guid-header",
        "event-trace32",
        "instance-info32",
        "mof-field",
        "system-header",
        "logfile-header32",
    ] {
        assert!(samples.has(layout), "no {layout} in the boot trace");
    }
    // The 64-bit layouts of the structs only a provider or a consumer holds, from the 32-bit
    // ones' values.
    let mut wide = Samples::default();
    for (layout, bytes) in &samples.0 {
        match *layout {
            "instance-info32" => {
                let info = EventInstanceInfo::parse(bytes, Bitness::Bits32).unwrap().0;
                let info = EventInstanceInfo::new(
                    Bitness::Bits64,
                    0x0000_7ff6_0000_1000,
                    info.instance_id(),
                )
                .unwrap();
                let mut bytes = vec![0; info.byte_len()];
                info.emit(&mut bytes).unwrap();
                wide.add("instance-info64", &bytes);
            }
            "event-trace32" => {
                let trace = etw_classic::EventTrace::parse(bytes, Bitness::Bits32)
                    .unwrap()
                    .0;
                let trace = etw_classic::EventTrace::new(
                    Bitness::Bits64,
                    trace.instance_header(),
                    trace.mof_data() + 0x0000_7ff6_0000_0000,
                    trace.mof_length(),
                    trace.buffer_context(),
                )
                .unwrap();
                wide.add("event-trace64", &trace.to_bytes());
            }
            _ => {}
        }
    }
    for (layout, bytes) in samples.0.iter().chain(&wide.0) {
        check_round_trip(&dir, layout, bytes);
    }
}

#[test]
fn views_that_disagree_are_an_error_naming_both_values() {
    // A decoded trace header whose Version was changed but not its class members.
    let bytes = common::from_hex(
        "ce0014c021000000600e00005c0e000060867f7500000000c1f6ccbbd16cc44880ff839482e37671\
         0100000001000000",
    );
    let decoded = etwc()
        .args(["decode", "trace-header", &to_hex(&bytes), "--json"])
        .output()
        .unwrap();
    let mut object: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
    assert_eq!(object["version"], 0x21);
    object["version"] = 0x22.into();
    etwc()
        .args(["encode", "trace-header", &object.to_string()])
        .assert()
        .code(1)
        .stderr(
            "etwc: trace-header: the Version/Class union's views disagree: `class_type` is 33, \
             but the view encoded (`version`) makes it 34 (give one view, or views that agree)\n",
        );
    // The other way: a class member changed, not Version.
    object["version"] = 0x21.into();
    object["class_level"] = 5.into();
    etwc()
        .args(["encode", "trace-header", &object.to_string()])
        .assert()
        .code(1)
        .stderr(
            "etwc: trace-header: the Version/Class union's views disagree: `class_level` is 5, \
             but the view encoded (`version`) makes it 0 (give one view, or views that agree)\n",
        );
}

#[test]
fn encode_reads_at_most_one_mib_as_decode_does() {
    for command in ["decode", "encode"] {
        let run = etwc()
            .args([command, "trace-header", "@/dev/zero"])
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(1), "{command}");
        assert_eq!(
            utf8(&run.stderr),
            "etwc: /dev/zero: expected at most 1048576 bytes (one struct), found more\n",
            "{command}"
        );
    }
    // Standard input too.
    etwc()
        .args(["encode", "mof-field", "-"])
        .write_stdin(vec![b' '; (1 << 20) + 1])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1)
        .stderr("etwc: standard input: expected at most 1048576 bytes (one struct), found more\n");
}
