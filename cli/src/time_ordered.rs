//! `etwc etl --order time`: the events of every buffer in time order, as a real-time consumer
//! receives them, through [`EtlReader::for_each_event_in_time_order`] (which reads the file
//! twice and holds one decoded buffer per processor; `--order file` needs none of this).

use std::io::{Read, Seek, Write};

use etw_classic::read::{EtlReader, TraceClock};

use etw_classic_decode::event::filetime_of;
use etw_classic_decode::{DecodedEvent, Registry};

use crate::etl_args::Selection;
use crate::formats::{Emitter, Format};

/// Why the walk stopped before its end.
enum Halt {
    /// The output could not be written.
    Output(std::io::Error),
    /// `--limit` events are output.
    Limit,
}

/// Prints the events selected of the file whose `reader` has read its logfile header, in time
/// order, through `emitter`.
pub fn print<R: Read + Seek, F: Format>(
    reader: &mut EtlReader<R>,
    emitter: &mut Emitter<'_, F>,
    selection: &Selection,
    clock: Option<TraceClock>,
    out: &mut dyn Write,
) -> Result<(), String> {
    if emitter.full() {
        return Ok(());
    }
    let mut bytes = Vec::new();
    let walked = reader.for_each_event_in_time_order(|item| {
        let item = match item {
            Ok(item) => item,
            Err(error) => {
                emitter.tally.problems.push(error.to_string());
                return Ok(());
            }
        };
        let event = item.event;
        let filetime = filetime_of(&event, clock);
        if F::NEEDS_TIME && filetime.is_none() {
            return Ok(());
        }
        let registry: &Registry = &selection.registry;
        let decoded = DecodedEvent::new(
            item.position.index,
            item.processor,
            event,
            filetime,
            registry,
        );
        if !selection.filter.matches(&decoded) {
            return Ok(());
        }
        bytes.clear();
        let prepared = emitter.format.prepare(&decoded, &mut bytes);
        emitter
            .emit(event.header_type.0, prepared, &bytes, out)
            .map_err(Halt::Output)?;
        if emitter.full() {
            return Err(Halt::Limit);
        }
        Ok(())
    });
    match walked {
        Ok(buffers) => {
            emitter.tally.buffers = buffers as u64;
            Ok(())
        }
        Err(Halt::Limit) => Ok(()),
        Err(Halt::Output(error)) => Err(crate::output_error(error)),
    }
}
