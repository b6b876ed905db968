//! `etwc etl --order time`: the events of every buffer in time order, as a real-time consumer
//! receives them, through [`EtlReader::for_each_event_in_time_order`] (which reads the file
//! twice and holds one decoded buffer per processor; `--order file` needs none of this).

use std::io::{Read, Seek, Write};

use etw_classic::read::EtlReader;

use crate::etl::{Printer, Tally};

/// Prints the events of the file whose `reader` has read its logfile header, in time order,
/// and says what it read.
pub fn print<R: Read + Seek>(
    reader: &mut EtlReader<R>,
    printer: Printer,
    out: &mut impl Write,
) -> Result<Tally, String> {
    let mut tally = Tally::default();
    let mut line = Vec::new();
    let buffers = reader
        .for_each_event_in_time_order(|item| {
            match item {
                Ok(item) => {
                    let event = item.event;
                    tally.counts_by_type[usize::from(event.header_type.0)] += 1;
                    printer.print(&mut line, item.position.index, item.processor, &event);
                    out.write_all(&line)?;
                    line.clear();
                }
                Err(error) => tally.problems.push(error.to_string()),
            }
            Ok(())
        })
        .map_err(crate::output_error)?;
    tally.buffers = buffers as u64;
    Ok(tally)
}
