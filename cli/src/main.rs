//! `etwc`: decode and encode the classic ETW header layouts from the command line.
//!
//! ```text
//! etwc decode <LAYOUT> <HEX | @FILE | -> [--raw] [--json]
//! etwc encode <LAYOUT> <JSON | @FILE | ->
//! etwc etl <FILE | -> [--format table|json|csv|chrome] [--summary | --stats] [--order file|time]
//!     [--provider GUID|kernel:GROUP|NAME] [--event NAME] [--process NAME] [--kind KIND] [--pid N] [--tid N]
//!     [--from TIME] [--to TIME] [--limit N] [--manifest PATH]... [--mof PATH]...
//! etwc schemas <FILE> [--manifest PATH]... [--mof PATH]... [--json]
//! etwc assemble <DUMP> -o <OUT.etl> [options] [--describe FILE.mof]
//! etwc mof <FILE>
//! ```
//! LAYOUT is one of trace-header, instance-header, instance-guid-header, event-trace32,
//! event-trace64, instance-info32, instance-info64, mof-field, system-header, logfile-header32,
//! logfile-header64 (see `fields::CliLayout`).

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use etw_classic::{
    wire::LogfileNames, ClockType, EventInstanceGuidHeader, EventTraceHeader, EventType,
    HeaderType, Level, MarkerFlags, SystemTraceHeader, WnodeFlags,
};
use etw_classic_cli::fields::CliLayout;
use etw_classic_cli::{assemble, etl, etl_args, fields, mof, output_error, schemas, OUTPUT_CLOSED};
use serde_json::{Map, Value};

#[derive(Parser)]
#[command(
    name = "etwc",
    version,
    about = "Decode and encode classic ETW headers bit-exactly",
    arg_required_else_help = true,
    after_help = "Exit status: 0 when all went well (also when the output is closed early, as by \
                  `| head`); 1 for input that cannot be read or decoded, or output that cannot \
                  be written (one line on stderr says what and where); 2 for a usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode the bytes of one struct and print its fields
    #[command(after_help = DECODE_AFTER_HELP)]
    Decode {
        /// The struct's layout
        layout: CliLayout,
        /// The bytes as hex (whitespace allowed); @FILE, a file holding them as hex text (or,
        /// with --raw, as raw bytes); or `-`, the same from standard input
        input: String,
        /// @FILE or `-` holds the struct's raw bytes, not hex text (the argument itself is
        /// always hex)
        #[arg(long)]
        raw: bool,
        /// Print one JSON object on one line instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Encode a JSON object of fields and print the bytes as lowercase hex
    Encode {
        /// The struct's layout
        layout: CliLayout,
        /// The fields as a JSON object (what `decode --json` prints), @FILE holding one, or `-`,
        /// standard input holding one (at most 1 MiB read)
        json: String,
    },
    /// Read an .etl file: its logfile header, then one line per event of every buffer; filter
    /// the events, print them as text, JSON, CSV or a Chrome trace, or count them
    Etl(etl_args::EtlArgs),
    /// List the schemas that describe an .etl file's events (those it carries and those
    /// given with --manifest and --mof), how many events each decoded, and the events left
    /// undecoded by provider and reason
    Schemas(schemas::Args),
    /// Write an .etl file from the trace buffers a target dumped (RAM dump, semihosting or RTT
    /// stream, concatenated buffers): found, ordered by SequenceNumber, given a logfile header
    #[command(after_long_help = assemble::AFTER_HELP)]
    Assemble(assemble::Args),
    /// Print the .mof (Managed Object Format) of the classic event types an .etl file
    /// describes in its MetaData/EventInfo events, for mofcomp and for --mof
    Mof(mof::Args),
}

/// What `etwc decode --help` prints after the options.
const DECODE_AFTER_HELP: &str = "\
Input: the argument is always hex; @FILE and - (standard input) hold hex text, or raw bytes \
with --raw. Nothing is guessed from the content: raw bytes that happen to be all hex digits \
are read as the bytes they are with --raw, and as hex text without it.

Examples:
  etwc decode mof-field 00100000000000001000000001000000
  etwc decode trace-header @header.hex --json
  etwc decode logfile-header64 @header.bin --raw
  head -c 48 dump.bin | etwc decode trace-header - --raw";

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return not_run(&error),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if message == OUTPUT_CLOSED => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("etwc: {message}");
            ExitCode::FAILURE
        }
    }
}

/// What clap printed instead of running a command: the help or the version on standard
/// output (status 0, or 1 with one line on stderr when it cannot be written: `etwc --help >
/// /dev/full`; 0 when the reader has gone, as for the output of a command), or a usage error
/// on standard error (status 2).
fn not_run(error: &clap::Error) -> ExitCode {
    let printed = error.print();
    if error.use_stderr() {
        return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
    }
    match printed
        .and_then(|()| std::io::stdout().flush())
        .map_err(output_error)
    {
        Err(message) if message != OUTPUT_CLOSED => {
            eprintln!("etwc: {message}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}

/// Exits with clap's usage error (status 2) for the subcommand `name`.
fn usage_error(name: &str, kind: clap::error::ErrorKind, message: String) -> ! {
    let mut command = <Cli as clap::CommandFactory>::command();
    command.build();
    let mut subcommand = command.find_subcommand(name).cloned().unwrap_or(command);
    subcommand.error(kind, message).exit()
}

fn run(cli: Cli) -> Result<(), String> {
    if let Command::Decode {
        raw: true, input, ..
    } = &cli.command
    {
        if input != "-" && !input.starts_with('@') {
            usage_error(
                "decode",
                clap::error::ErrorKind::ArgumentConflict,
                "--raw reads @FILE or - (standard input) as raw bytes; the argument itself is \
                 always hex"
                    .to_owned(),
            );
        }
    }
    match cli.command {
        Command::Decode {
            layout,
            input,
            raw,
            json,
        } => {
            let bytes = read_bytes(&input, raw)?;
            let object = fields::decode(layout, &bytes)?;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if json {
                writeln!(out, "{}", Value::Object(object))
            } else {
                print_table(&mut out, layout, &object, "")
            }
            .and_then(|()| out.flush())
            .map_err(output_error)?;
            let mut stderr = std::io::stderr().lock();
            for note in notes(layout, &bytes) {
                // Nothing is left to tell about a note that cannot be written.
                let _ = writeln!(stderr, "note: {note}");
            }
            Ok(())
        }
        Command::Etl(args) => {
            if let Err((kind, message)) = args.check() {
                usage_error("etl", kind, message);
            }
            etl::run(&args)
        }
        Command::Schemas(args) => schemas::run(&args),
        Command::Assemble(args) => assemble::run(&args),
        Command::Mof(args) => mof::run(&args),
        Command::Encode { layout, json } => {
            let text = match open_input(&json)? {
                Some((name, source)) => {
                    let contents = read_at_most(&name, source)?;
                    String::from_utf8(contents).map_err(|error| {
                        format!(
                            "{name}: expected JSON text, found a byte that is not UTF-8 at byte \
                             {}",
                            error.utf8_error().valid_up_to()
                        )
                    })?
                }
                None => json,
            };
            let value: Value =
                serde_json::from_str(&text).map_err(|error| format!("invalid JSON: {error}"))?;
            let bytes = fields::encode(layout, &value).map_err(|error| error.to_string())?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", to_hex(&bytes))
                .and_then(|()| out.flush())
                .map_err(output_error)
        }
    }
}

/// The most `decode` and `encode` read from a file or standard input: far more than any one
/// struct, so that `/dev/zero` or a large file is refused instead of read whole.
const MAX_DECODE_INPUT: u64 = 1 << 20;

/// An input opened, with the name messages give it.
type NamedInput = (String, Box<dyn Read>);

/// `-` (standard input) or `@FILE`, opened, with the name messages give it; `None` for an
/// argument that is the input itself.
fn open_input(input: &str) -> Result<Option<NamedInput>, String> {
    if input == "-" {
        return Ok(Some((
            "standard input".to_owned(),
            Box::new(std::io::stdin().lock()),
        )));
    }
    let Some(path) = input.strip_prefix('@') else {
        return Ok(None);
    };
    let file = std::fs::File::open(path).map_err(|error| format!("cannot read {path}: {error}"))?;
    Ok(Some((path.to_owned(), Box::new(file))))
}

/// All of `source`, refused past [`MAX_DECODE_INPUT`] bytes (one read more than that, never
/// more: `/dev/zero` ends there).
fn read_at_most(name: &str, source: Box<dyn Read>) -> Result<Vec<u8>, String> {
    let mut contents = Vec::new();
    source
        .take(MAX_DECODE_INPUT + 1)
        .read_to_end(&mut contents)
        .map_err(|error| format!("cannot read {name}: {error}"))?;
    if u64::try_from(contents.len()).map_or(true, |length| length > MAX_DECODE_INPUT) {
        return Err(format!(
            "{name}: expected at most {MAX_DECODE_INPUT} bytes (one struct), found more"
        ));
    }
    Ok(contents)
}

/// The input bytes: hex on the command line; or `@FILE` or `-` (standard input) holding hex
/// text, or, with `raw`, the raw bytes. Nothing is guessed from the content: raw bytes that are
/// all hex digits are the bytes they are with `raw`, and hex text without it.
fn read_bytes(input: &str, raw: bool) -> Result<Vec<u8>, String> {
    let Some((name, source)) = open_input(input)? else {
        return parse_hex(input).map_err(|error| format!("the hex argument: {error}"));
    };
    let contents = read_at_most(&name, source)?;
    if raw {
        return Ok(contents);
    }
    // Said after a hex error, for input that was meant as raw bytes.
    let hint = "(for raw bytes, add --raw)";
    let text = std::str::from_utf8(&contents).map_err(|error| {
        format!(
            "{name}: bad hex: expected hex text, found a byte that is not UTF-8 text at byte {} \
             {hint}",
            error.valid_up_to()
        )
    })?;
    parse_hex(text).map_err(|error| format!("{name}: {error} {hint}"))
}

/// Hex digits, whitespace between them allowed; an error names the first character that is
/// not a digit by its position (counted from 0, and as line and column from 1).
fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let mut digits = Vec::with_capacity(text.len());
    let (mut line, mut column) = (1, 0);
    for (position, character) in text.chars().enumerate() {
        column += 1;
        if character == '\n' {
            (line, column) = (line + 1, 0);
        }
        if character.is_whitespace() {
            continue;
        }
        let digit = character.to_digit(16).ok_or_else(|| {
            format!(
                "bad hex: expected a hex digit or whitespace at position {position} \
                 (line {line}, column {column}), found {character:?}"
            )
        })?;
        digits.push(u8::try_from(digit).map_err(|_| "bad hex digit".to_owned())?);
    }
    if digits.len() % 2 != 0 {
        return Err(format!(
            "bad hex: expected an even number of digits, found {}",
            digits.len()
        ));
    }
    Ok(digits
        .chunks_exact(2)
        .map(|pair| pair[0] << 4 | pair[1])
        .collect())
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What the table and JSON do not say: trailing bytes, and whether a wire header would pass `parse`.
fn notes(layout: CliLayout, bytes: &[u8]) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(extra) = bytes
        .len()
        .checked_sub(layout.len())
        .filter(|extra| *extra > 0)
    {
        notes.push(format!(
            "{extra} bytes after the {}-byte {} were not decoded",
            layout.len(),
            layout.name()
        ));
    }
    if matches!(layout, CliLayout::LogfileHeader(_)) {
        if let Some(after) = bytes.get(layout.len()..).filter(|after| !after.is_empty()) {
            let names = LogfileNames::parse(after);
            notes.push(format!(
                "read as the names after the struct: logger name \"{}\", log file name \"{}\"{}",
                names.logger_name,
                names.log_file_name,
                if names.terminated {
                    ""
                } else {
                    " (no terminating NUL)"
                }
            ));
        }
    }
    let wire_check = match layout {
        CliLayout::TraceHeader => EventTraceHeader::parse(bytes).err(),
        CliLayout::InstanceGuidHeader => EventInstanceGuidHeader::parse(bytes).err(),
        CliLayout::SystemHeader => SystemTraceHeader::parse(bytes).err(),
        _ => None,
    };
    if let Some(error) = wire_check {
        notes.push(format!("not a valid trace-buffer header: {error}"));
    }
    notes
}

fn print_table(
    out: &mut impl Write,
    layout: CliLayout,
    object: &Map<String, Value>,
    prefix: &str,
) -> std::io::Result<()> {
    for (key, value) in object {
        let name = format!("{prefix}{key}");
        match value {
            Value::Object(nested) => print_table(out, layout, nested, &format!("{name}."))?,
            Value::Number(number) => {
                let hex = number
                    .as_u64()
                    .map(|value| format!("{value:#x}"))
                    .unwrap_or_default();
                let meaning = meaning(layout, key, number.as_u64());
                let number = number.to_string();
                writeln!(out, "{name:<20} {number:<22} {hex:<20} {meaning}")?;
            }
            Value::String(text) => writeln!(out, "{name:<20} {text}")?,
            Value::Array(items) => {
                // A WCHAR[32] name: the code units, then the text up to the first NUL.
                let units: Option<Vec<u16>> = items
                    .iter()
                    .map(|item| item.as_u64().and_then(|unit| u16::try_from(unit).ok()))
                    .collect();
                let text = units.map(|units| {
                    char::decode_utf16(units.into_iter().take_while(|unit| *unit != 0))
                        .map(|decoded| decoded.unwrap_or(char::REPLACEMENT_CHARACTER))
                        .collect::<String>()
                });
                match text {
                    Some(text) => writeln!(out, "{name:<20} {text:?} {value}")?,
                    None => writeln!(out, "{name:<20} {value}")?,
                }
            }
            other => writeln!(out, "{name:<20} {other}")?,
        }
    }
    Ok(())
}

/// The SDK name of a code, for the table.
fn meaning(layout: CliLayout, key: &str, value: Option<u64>) -> String {
    let Some(value) = value else {
        return String::new();
    };
    let byte = u8::try_from(value).ok();
    let word = u32::try_from(value).ok();
    match key {
        "header_type" => byte.map(|byte| format!("{:?}", HeaderType(byte))),
        "marker_flags" => byte.map(|byte| format!("{:?}", MarkerFlags(byte))),
        "class_type" => byte.map(|byte| format!("{:?}", EventType(byte))),
        "class_level" => byte.map(|byte| format!("{:?}", Level(byte))),
        "flags" if layout == CliLayout::SystemHeader => {
            byte.map(|byte| format!("{:?}", MarkerFlags(byte)))
        }
        "flags" => word.map(|word| format!("{:?}", WnodeFlags(word))),
        "reserved_flags" => word.map(|word| format!("{:?}", ClockType(word))),
        _ => None,
    }
    .unwrap_or_default()
}
