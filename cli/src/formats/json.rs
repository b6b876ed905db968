//! `--format json` (`--json`): the logfile header's line, then one line per event, each the
//! event's JSON object as the decoded event describes it ([`DecodedEvent::describe`]), written
//! straight into the buffer's output.

use std::io::{self, Write};

use etw_classic_decode::headers::file_members;
use etw_classic_decode::sink::{JsonWriter, Sink};
use etw_classic_decode::DecodedEvent;

use super::{FileInfo, Format};

/// `--format json`.
pub struct JsonLines;

impl Format for JsonLines {
    type Item = ();
    const WRITES_AS_PREPARED: bool = true;

    fn begin(&mut self, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut line = Vec::new();
        file_json(file, &mut line);
        line.push(b'\n');
        out.write_all(&line)
    }

    fn prepare(&self, event: &DecodedEvent<'_, '_>, bytes: &mut Vec<u8>) {
        event.write_json(bytes);
        bytes.push(b'\n');
    }

    fn emit(&mut self, (): (), bytes: &[u8], out: &mut dyn Write) -> io::Result<()> {
        out.write_all(bytes)
    }
}

/// The first JSON line, without its line end: the logfile header ([`file_members`]).
pub fn file_json(file: &FileInfo<'_>, out: &mut Vec<u8>) {
    let mut writer = JsonWriter::new(out);
    writer.begin_object();
    file_members(
        &mut writer,
        &file.system_header,
        &file.header,
        &file.logger_name,
        &file.log_file_name,
    );
    writer.end_object();
}
