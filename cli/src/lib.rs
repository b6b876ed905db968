//! The library behind `etwc`: the JSON form of every layout ([`fields`]), the reading of .etl
//! files ([`etl`], [`time_ordered`]), the census of a trace's schemas ([`schemas`]) and the assembling of dumped buffers ([`assemble`]).
//!
//! The `etwc` binary (`main.rs`) parses the command line and calls these modules; other crates
//! of the project (the Python module under `python/`) use them to give the same keys and
//! values as `etwc ... --json`.

pub mod assemble;
pub mod etl;
pub mod etl_args;
// `CliLayout::len` is the byte length of a struct's layout, which no layout has empty.
#[allow(clippy::len_without_is_empty)]
pub mod fields;
mod filter;
pub mod formats;
pub mod meaning;
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

/// The layouts as command-line values, by the names [`CliLayout::name`] gives them.
impl ValueEnum for CliLayout {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}
