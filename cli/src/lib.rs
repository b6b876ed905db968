//! The library behind `etwc`: the JSON form of every layout and its encoding back to bytes
//! ([`fields`]), the reading of .etl files ([`etl`], [`time_ordered`]) into the outputs
//! ([`formats`]), the census of a trace's schemas ([`schemas`]) and the assembling of dumped
//! buffers ([`assemble`]).
//!
//! The `etwc` binary (`main.rs`) parses the command line and calls these modules. The event
//! every output writes from, and its JSON form, are the `etw-classic-decode` crate's
//! (`DecodedEvent`), which the Python module shares.

pub mod assemble;
pub mod etl;
pub mod etl_args;
// `CliLayout::len` is the byte length of a struct's layout, which no layout has empty.
#[allow(clippy::len_without_is_empty)]
pub mod fields;
use etw_classic_decode::filter;
pub mod formats;
pub mod mof;
mod progress;
pub mod schemas;
pub mod time_ordered;

use clap::builder::PossibleValue;
use clap::ValueEnum;
use fields::CliLayout;

/// What an output error becomes when the reader of the output has gone (`etwc etl ... | head`):
/// not an error, so `main` ends quietly with status 0.
pub const OUTPUT_CLOSED: &str = "the output was closed";

/// The message for an error writing the output; a closed pipe is [`OUTPUT_CLOSED`].
pub fn output_error(error: std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        OUTPUT_CLOSED.to_owned()
    } else {
        format!("cannot write the output: {error}")
    }
}

/// Why `file` cannot be read twice, if it cannot: what it is, when it is not a regular file
/// (or a block device). A pipe, a FIFO, a socket or a character device hands its bytes over
/// once, so a second reading (the first pass that learns the trace's schemas and process
/// names, the time order's listing) would not see them again.
pub fn read_once(file: &std::fs::File) -> Option<String> {
    let file_type = match file.metadata() {
        Ok(metadata) => metadata.file_type(),
        Err(error) => return Some(format!("a file whose type cannot be read ({error})")),
    };
    if file_type.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_block_device() {
            return None;
        }
        if file_type.is_fifo() {
            return Some("a pipe or FIFO".to_owned());
        }
        if file_type.is_socket() {
            return Some("a socket".to_owned());
        }
        if file_type.is_char_device() {
            return Some("a character device".to_owned());
        }
    }
    if file_type.is_dir() {
        return Some("a folder".to_owned());
    }
    Some("not a regular file".to_owned())
}

/// The layouts as command-line values, by the names [`CliLayout::name`] gives them.
impl ValueEnum for CliLayout {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}
