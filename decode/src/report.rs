//! What a reading of a trace reports besides its events: the errors it met, kept within bounds,
//! and the message for an error of the reader, as `etwc` prints them and the Python module
//! raises them.

use etw_classic::EtlReaderError;

/// The errors met while reading, each naming its buffer: the first [`Problems::KEPT`] as
/// they were said, the others counted, so that a file of a million bad buffers takes the
/// memory of a few messages, not of a million.
#[derive(Clone, Debug, Default)]
pub struct Problems {
    kept: Vec<String>,
    more: u64,
}

impl Problems {
    /// The messages kept.
    pub const KEPT: usize = 20;

    /// Notes one more error.
    pub fn push(&mut self, problem: String) {
        if self.kept.len() < Self::KEPT {
            self.kept.push(problem);
        } else {
            self.more += 1;
        }
    }

    /// Notes the errors of `later`, met after these: its messages kept while there is room,
    /// the rest counted.
    pub fn append(&mut self, later: Self) {
        self.extend(later.kept);
        self.more = self.more.saturating_add(later.more);
    }

    /// Whether no error was met.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// One line: the messages kept, joined by "; ", then how many more errors there were.
    pub fn line(&self) -> String {
        let mut line = self.kept.join("; ");
        if self.more > 0 {
            line.push_str(&format!(
                "; and {} more {}",
                self.more,
                if self.more == 1 { "error" } else { "errors" }
            ));
        }
        line
    }
}

impl Extend<String> for Problems {
    fn extend<T: IntoIterator<Item = String>>(&mut self, problems: T) {
        for problem in problems {
            self.push(problem);
        }
    }
}

/// The message for an error of the reader: "cannot read PATH: ..." for an I/O error before any
/// buffer, otherwise "PATH: " and the error, which names the buffer and its file offset.
pub fn describe(path: &str, error: &EtlReaderError) -> String {
    match error {
        EtlReaderError::Io {
            buffer: None,
            error,
        } => format!("cannot read {path}: {error}"),
        other => format!("{path}: {other}"),
    }
}
