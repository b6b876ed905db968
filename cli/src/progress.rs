//! The progress bar of `etwc etl` on standard error: bytes of the file read against its length.
//!
//! It appears only when standard error is a terminal, the input is a file (not standard input)
//! and the reading has taken more than [`DELAY`]; and, for the outputs that print every event,
//! only when standard output is not a terminal too (the bar would be drawn into the events).
//! It is cleared when the reading ends.

use std::io::{IsTerminal, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long the reading goes before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// A reader that counts the bytes read through it, for the progress bar.
pub struct Counted<R> {
    pub inner: R,
    pub read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.read.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

impl<R: Seek> Seek for Counted<R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

/// The bar, once shown; nothing at all when it is not to be shown.
pub struct Progress {
    /// The file's length and the bytes read, when a bar may be shown.
    state: Option<(u64, Arc<AtomicU64>)>,
    started: Instant,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for `length` bytes to read (the file's length, twice for the time order, which
    /// reads it twice), counted in `read`; `length` is `None` for standard input. `prints_events`: whether the output has a line per event.
    pub fn new(length: Option<u64>, read: Arc<AtomicU64>, prints_events: bool) -> Self {
        let shown =
            std::io::stderr().is_terminal() && (!prints_events || !std::io::stdout().is_terminal());
        Self {
            state: length
                .filter(|&length| shown && length > 0)
                .map(|length| (length, read)),
            started: Instant::now(),
            bar: None,
        }
    }

    /// Shows how far the reading is, once it has taken more than [`DELAY`].
    pub fn update(&mut self) {
        let Some((length, read)) = &self.state else {
            return;
        };
        // The logfile header's buffer is read once more by the time order.
        let position = read.load(Ordering::Relaxed).min(*length);
        if self.bar.is_none() && self.started.elapsed() >= DELAY {
            let bar = ProgressBar::with_draw_target(Some(*length), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta} left",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(position);
        }
    }

    /// Clears the bar.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
