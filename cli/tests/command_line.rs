//! The built `etwc` binary: version, usage errors, the example inputs in `tests/data/`, the
//! notes on stderr and the errors of `decode`, `encode` and `etl`.

mod common;

use common::{etwc, run, utf8};
use predicates::prelude::*;
use serde_json::{json, Value};

const LAYOUT_NAMES: [&str; 11] = [
    "trace-header",
    "instance-header",
    "instance-guid-header",
    "event-trace32",
    "event-trace64",
    "instance-info32",
    "instance-info64",
    "mof-field",
    "system-header",
    "logfile-header32",
    "logfile-header64",
];

/// `@` and the path of an example input in `tests/data/`.
fn example(name: &str) -> String {
    format!("@{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn version() {
    let expected = format!("etwc {}\n", env!("CARGO_PKG_VERSION"));
    etwc()
        .arg("--version")
        .assert()
        .success()
        .stdout(expected.clone())
        .stderr("");
    etwc().arg("-V").assert().success().stdout(expected);
}

#[test]
fn help_names_the_subcommands() {
    etwc().arg("--help").assert().success().stdout(
        predicate::str::contains("Usage: etwc <COMMAND>")
            .and(predicate::str::contains("decode"))
            .and(predicate::str::contains("encode"))
            .and(predicate::str::contains("etl"))
            .and(predicate::str::contains("schemas")),
    );
    // The layouts are listed as the possible values of the argument.
    let help = etwc()
        .args(["decode", "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = utf8(&help);
    for name in LAYOUT_NAMES {
        assert!(help.contains(name), "{name} missing from {help}");
    }
}

#[test]
fn usage_errors_exit_with_2() {
    // No command at all: the help, on stderr.
    etwc()
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("Usage: etwc <COMMAND>"));
    // An unknown layout: clap names the value and lists every layout.
    let stderr = etwc()
        .args(["decode", "trace-headr", "00"])
        .assert()
        .code(2)
        .stdout("")
        .get_output()
        .stderr
        .clone();
    let stderr = utf8(&stderr);
    assert!(
        stderr.contains("invalid value 'trace-headr' for '<LAYOUT>'"),
        "{stderr}"
    );
    for name in LAYOUT_NAMES {
        assert!(stderr.contains(name), "{name} missing from {stderr}");
    }
    etwc()
        .args(["encode", "event-trace", "{}"])
        .assert()
        .code(2)
        .stdout("");
    // An unknown flag, a missing argument, an unknown command.
    etwc()
        .args(["etl", "x.etl", "--sumary"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("--sumary"));
    etwc()
        .arg("etl")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("<FILE>"));
    etwc().arg("dump").assert().code(2).stdout("");
}

#[test]
fn every_layout_name_is_accepted() {
    for name in LAYOUT_NAMES {
        etwc()
            .args(["encode", name, "{}"])
            .assert()
            .success()
            .stderr("");
    }
}

#[test]
fn the_full_header64_example_as_a_table() {
    // A real FULL_HEADER64 of net.4.5.2.x64.etl (buffer 29, offset 0x5ab0); the values are the
    // ones dissect.etl decoded (the library's tests/data/perfview-full-headers.json).
    let output = run(&["decode", "trace-header", &example("full-header64.hex")]);
    let table = output;
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 17, "{table}");
    let expected = [
        "size                 206                    0xce                 ",
        "header_type          20                     0x14                 FULL_HEADER64",
        "marker_flags         192                    0xc0                 MarkerFlags(0xc0: TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE)",
        "class_type           33                     0x21                 EventType(0x21)",
        "class_level          0                      0x0                  NONE",
        "thread_id            3680                   0xe60                ",
        "process_id           3676                   0xe5c                ",
        "timestamp            1971291744             0x757f8660           ",
        "guid                 bbccf6c1-6cd1-48c4-80ff-839482e37671",
        "kernel_time          1                      0x1                  ",
        "user_time            1                      0x1                  ",
        "flags                1                      0x1                  WnodeFlags(0x1: ALL_DATA)",
    ];
    for line in expected {
        assert!(lines.contains(&line), "{line:?} missing from\n{table}");
    }
}

#[test]
fn the_full_header64_example_as_json() {
    let output = run(&[
        "decode",
        "trace-header",
        &example("full-header64.hex"),
        "--json",
    ]);
    assert_eq!(
        output,
        "{\"size\":206,\"header_type\":20,\"marker_flags\":192,\"version\":33,\"class_type\":33,\
         \"class_level\":0,\"class_version\":0,\"thread_id\":3680,\"process_id\":3676,\
         \"timestamp\":1971291744,\"guid\":\"bbccf6c1-6cd1-48c4-80ff-839482e37671\",\
         \"guid_ptr\":5243435514220836545,\"kernel_time\":1,\"user_time\":1,\
         \"processor_time\":4294967297,\"client_context\":1,\"flags\":1}\n"
    );
}

#[test]
fn the_instance_guid_header_example() {
    // A START event at level INFORMATION, class version 2, instance 7 whose parent is instance 1
    // of another class, in an 88-byte INSTANCE64 event.
    let output = run(&[
        "decode",
        "instance-guid-header",
        &example("instance-guid-header.hex"),
        "--json",
    ]);
    let decoded: Value = serde_json::from_str(&output).unwrap();
    assert_eq!(decoded["size"], json!(88));
    assert_eq!(decoded["header_type"], json!(0x15));
    assert_eq!(decoded["marker_flags"], json!(0xC0));
    assert_eq!(decoded["class_type"], json!(1));
    assert_eq!(decoded["class_level"], json!(4));
    assert_eq!(decoded["class_version"], json!(2));
    assert_eq!(decoded["instance_id"], json!(7));
    assert_eq!(decoded["parent_instance_id"], json!(1));
    assert_eq!(
        decoded["guid"],
        json!("6c3e1f8b-2f6b-4b3a-9a55-1b7c0d8e9f10")
    );
    assert_eq!(
        decoded["parent_guid"],
        json!("2a9d0f43-5e71-4c88-b0d2-7f31e6a4c955")
    );
    etwc()
        .args([
            "decode",
            "instance-guid-header",
            &example("instance-guid-header.hex"),
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(
                "class_type           1                      0x1                  START\n",
            )
            .and(predicate::str::contains(
                "class_level          4                      0x4                  INFORMATION\n",
            )),
        );
}

#[test]
fn encode_prints_lowercase_hex() {
    etwc()
        .args([
            "encode",
            "mof-field",
            r#"{"data_ptr": 4096, "length": 16, "data_type": 1}"#,
        ])
        .assert()
        .success()
        .stdout("00100000000000001000000001000000\n")
        .stderr("");
    etwc()
        .args(["encode", "mof-field", r#"{"data_ptr": 4096, "length": 16}"#])
        .assert()
        .success()
        .stdout("00100000000000001000000000000000\n");
}

#[test]
fn encode_reads_json_from_a_file() {
    let dir = std::env::temp_dir().join(format!("etwc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mof-field.json");
    std::fs::write(&path, r#"{"length": 3}"#).unwrap();
    etwc()
        .args(["encode", "mof-field", &format!("@{}", path.display())])
        .assert()
        .success()
        .stdout("00000000000000000300000000000000\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn encode_refuses_out_of_range_values() {
    etwc()
        .args(["encode", "mof-field", r#"{"length": 4294967296}"#])
        .assert()
        .code(1)
        .stdout("")
        .stderr("etwc: mof-field: `length` must be an integer that fits u32, found 4294967296\n");
    etwc()
        .args(["encode", "mof-field", "{"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with("etwc: invalid JSON: "));
}

#[test]
fn decode_notes_trailing_bytes_and_failed_wire_checks_on_stderr() {
    // The example with one byte more: decoded the same, with a note.
    let hex = format!("{}ff", "00".repeat(0x30));
    etwc()
        .args(["decode", "trace-header", &hex, "--json"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("{\"size\":0,"))
        .stderr(
            predicate::str::starts_with(
                "note: 1 bytes after the 48-byte trace-header were not decoded\n\
                 note: not a valid trace-buffer header: EVENT_TRACE_HEADER",
            )
            .and(predicate::str::ends_with("\n")),
        );
    // A logfile header followed by its two names: the note reads them.
    let mut bytes = vec![0u8; 0x118];
    for text in ["Relogger", "x.etl"] {
        for unit in text.encode_utf16().chain([0]) {
            bytes.extend(unit.to_le_bytes());
        }
    }
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    etwc()
        .args(["decode", "logfile-header64", &hex, "--json"])
        .assert()
        .success()
        .stderr(
            "note: 30 bytes after the 280-byte logfile-header64 were not decoded\n\
             note: read as the names after the struct: logger name \"Relogger\", log file name \
             \"x.etl\"\n",
        );
}

#[test]
fn bad_input_is_an_error_with_exit_code_1() {
    let failures = [
        (
            vec!["decode", "trace-header", "0g"],
            "etwc: the hex argument: bad hex: expected a hex digit or whitespace at position 1 \
             (line 1, column 2), found 'g'\n",
        ),
        (
            vec!["decode", "trace-header", "123"],
            "etwc: the hex argument: bad hex: expected an even number of digits, found 3\n",
        ),
    ];
    for (args, stderr) in failures {
        etwc()
            .args(&args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(stderr);
    }
    let missing = std::env::temp_dir().join("etwc-test-no-such-file.etl");
    let missing = missing.to_str().unwrap();
    for args in [
        vec!["decode", "trace-header", &format!("@{missing}")],
        vec!["encode", "trace-header", &format!("@{missing}")],
        vec!["etl", missing],
    ] {
        etwc()
            .args(&args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with(format!(
                "etwc: cannot read {missing}: "
            )));
    }
}

#[test]
fn etl_refuses_a_file_that_is_not_a_trace() {
    let dir = std::env::temp_dir().join(format!("etwc-test-etl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zeros.etl");
    std::fs::write(&path, vec![0u8; 0x1000]).unwrap();
    etwc()
        .args(["etl", path.to_str().unwrap(), "--summary", "--json"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with(format!(
            "etwc: {}: ",
            path.display()
        )));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scratch directory of its own for a test, removed at the end.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("etwc-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_hex_file_with_a_stray_character_is_an_error_naming_file_and_position() {
    let dir = scratch("stray");
    let path = dir.join("header.hex");
    // Hex with an `x` on its second line.
    std::fs::write(&path, "ce0014c0\n21x0\n").unwrap();
    etwc()
        .args(["decode", "trace-header", &format!("@{}", path.display())])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "etwc: {}: bad hex: expected a hex digit or whitespace at position 11 (line 2, \
             column 3), found 'x' (for raw bytes, add --raw)\n",
            path.display()
        ));
    // Raw bytes without --raw: read as hex text, which they are not.
    std::fs::write(&path, [0xce, 0x00, 0x14, 0xc0]).unwrap();
    etwc()
        .args(["decode", "trace-header", &format!("@{}", path.display())])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "etwc: {}: bad hex: expected hex text, found a byte that is not UTF-8 text at byte \
             0 (for raw bytes, add --raw)\n",
            path.display()
        ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decode_reads_standard_input_as_hex_or_with_raw_as_raw_bytes() {
    let path = example("full-header64.hex");
    let path = path.trim_start_matches('@');
    let from_file = run(&["decode", "trace-header", &format!("@{path}"), "--json"]);
    let hex = std::fs::read_to_string(path).unwrap();
    etwc()
        .args(["decode", "trace-header", "-", "--json"])
        .write_stdin(hex.clone())
        .assert()
        .success()
        .stdout(from_file.clone());
    let raw: Vec<u8> = hex
        .split_whitespace()
        .map(|pair| u8::from_str_radix(pair, 16).unwrap())
        .collect();
    etwc()
        .args(["decode", "trace-header", "-", "--raw", "--json"])
        .write_stdin(raw)
        .assert()
        .success()
        .stdout(from_file);
}

#[test]
fn decode_with_raw_reads_raw_bytes_that_are_all_hex_digits_as_they_are() {
    // A 16-byte MOF_FIELD whose bytes are the ASCII digits "0123456789abcdef": DataPtr (u64),
    // Length (u32) and DataType (u32), little-endian (evntrace.h), from these bytes.
    let bytes = *b"0123456789abcdef";
    let expected = serde_json::json!({
        "data_ptr": u64::from_le_bytes(bytes[0..8].try_into().unwrap()),
        "length": u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        "data_type": u32::from_le_bytes(bytes[12..16].try_into().unwrap()),
    });
    assert_eq!(expected["data_ptr"], 0x3736_3534_3332_3130u64);
    let dir = scratch("raw-hex-digits");
    let path = dir.join("mof-field.bin");
    std::fs::write(&path, bytes).unwrap();
    let file = format!("@{}", path.display());
    let from_file = run(&["decode", "mof-field", &file, "--raw", "--json"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&from_file).unwrap(),
        expected
    );
    etwc()
        .args(["decode", "mof-field", "-", "--raw", "--json"])
        .write_stdin(bytes.to_vec())
        .assert()
        .success()
        .stdout(from_file);
    // Without --raw the same file is hex text: the 8 bytes 01 23 45 67 89 ab cd ef, too few.
    etwc()
        .args(["decode", "mof-field", &file, "--json"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("etwc: MOF_FIELD: expected 16 bytes, found 8\n");
    // The argument is always hex: --raw with one is a usage error.
    etwc()
        .args([
            "decode",
            "mof-field",
            "30313233343536373839616263646566",
            "--raw",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--raw reads @FILE or - (standard input) as raw bytes; the argument itself is \
             always hex",
        ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decode_refuses_endless_input() {
    if !std::path::Path::new("/dev/zero").exists() {
        eprintln!("SKIPPED: no /dev/zero on this system");
        return;
    }
    etwc()
        .args(["decode", "trace-header", "@/dev/zero"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("etwc: /dev/zero: expected at most 1048576 bytes (one struct), found more\n");
}

#[test]
fn decode_and_encode_end_quietly_on_a_closed_output() {
    let hex = example("full-header64.hex");
    for args in [
        vec!["decode", "trace-header", &hex],
        vec!["decode", "trace-header", &hex, "--json"],
        vec!["encode", "mof-field", r#"{"data_ptr": 4096, "length": 16}"#],
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_etwc"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes before the first line is written: the write fails with a broken pipe
        // (or, were the output written first, it went into the pipe): status 0 either way.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(utf8(&output.stderr), "", "{args:?}");
    }
}

#[test]
fn decode_and_encode_report_a_full_disk_in_one_line() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full on this system");
        return;
    }
    let hex = example("full-header64.hex");
    for args in [
        vec!["decode", "trace-header", &hex],
        vec!["decode", "trace-header", &hex, "--json"],
        vec!["encode", "mof-field", r#"{"data_ptr": 4096, "length": 16}"#],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_etwc"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(
            utf8(&output.stderr),
            "etwc: cannot write the output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

/// The subcommands `etwc --help` lists (`help` aside), read from its output.
fn subcommands() -> Vec<String> {
    let help = run(&["--help"]);
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: section")
        .split("\n\n")
        .next()
        .unwrap();
    let names: Vec<String> = commands
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    assert!(names.len() >= 5, "{names:?}");
    names
}

#[test]
fn help_and_version_report_a_full_disk_in_one_line() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full on this system");
        return;
    }
    let mut runs: Vec<Vec<String>> = [["--help"], ["-h"], ["--version"], ["-V"], ["help"]]
        .iter()
        .map(|args| args.iter().map(|arg| (*arg).to_owned()).collect())
        .collect();
    for name in subcommands() {
        for args in [
            vec![name.clone(), "--help".to_owned()],
            vec![name.clone(), "-h".to_owned()],
            vec!["help".to_owned(), name.clone()],
        ] {
            runs.push(args);
        }
    }
    for args in runs {
        // Written somewhere that takes it: status 0, the text on stdout.
        let output = etwc().args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert!(!output.stdout.is_empty(), "{args:?}");
        // Written to a full disk: status 1 and one line that says so.
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_etwc"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(
            utf8(&output.stderr),
            "etwc: cannot write the output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
    // A usage error still goes to stderr with status 2, whatever stdout is.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_etwc"))
        .args(["etl"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(utf8(&output.stderr).contains("<FILE>"));
}

/// The options a help text lists: `--name` and `-x`, from its lines that start with them.
fn options_in(help: &str) -> Vec<String> {
    let mut options = Vec::new();
    for line in help.lines() {
        let line = line.trim_start();
        if !line.starts_with('-') || line.starts_with("- ") {
            continue;
        }
        for word in line.split_whitespace() {
            let word = word.trim_end_matches(',');
            if word.starts_with('-') && word.len() > 1 && !word.contains('<') {
                options.push(word.to_owned());
            } else if !word.starts_with('-') {
                break;
            }
        }
    }
    options
}

#[test]
fn the_readme_of_the_tool_names_every_command_and_option() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("cli/README.md");
    let mut missing = Vec::new();
    let top = run(&["--help"]);
    for option in options_in(&top) {
        if !readme.contains(&format!("`etwc {option}")) && !readme.contains(&format!("`{option}`"))
        {
            missing.push(format!("etwc {option}"));
        }
    }
    for name in subcommands() {
        if !readme.contains(&format!("## `etwc {name} ")) {
            missing.push(format!("the section ## `etwc {name} ...`"));
        }
        let help = run(&[&name, "--help"]);
        let options = options_in(&help);
        assert!(
            options.contains(&"--help".to_owned()),
            "{name}: {options:?}"
        );
        // The section of the command: from its heading to the next.
        let section = readme
            .split(&format!("## `etwc {name} "))
            .nth(1)
            .map(|rest| rest.split("\n## ").next().unwrap_or(rest))
            .unwrap_or("");
        for option in options {
            if option == "-h" || option == "--help" {
                continue;
            }
            if !section.contains(&format!("`{option}`"))
                && !section.contains(&format!("`{option} "))
            {
                missing.push(format!("etwc {name} {option}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cli/README.md does not name: {}",
        missing.join(", ")
    );
}
