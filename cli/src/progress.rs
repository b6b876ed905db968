//! The progress bar of `etwc etl` on standard error: bytes of the file read, over every pass
//! (the first pass that learns the trace's schemas and process names, the time order's listing,
//! the output's), against what those passes read in all.
//!
//! It appears only when standard error is a terminal, the input is a file (not standard input)
//! and the reading has taken more than [`DELAY`]; and, for the outputs that print every event,
//! only when standard output is not a terminal too (the bar would be drawn into the events).
//! It never appears once the reading is done (so never at 100 %), and its rate is the bytes
//! read over the time since the reading started (at least [`DELAY`], never a few microseconds
//! since the bar was drawn). A thread of its own looks at the count of bytes read every
//! [`TICK`], so that the passes need not report to it. It is cleared when the reading ends.

use std::io::{IsTerminal, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{
    HumanBytes, HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle,
};

/// How long the reading goes before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// How often the bar's thread looks at the bytes read.
const TICK: Duration = Duration::from_millis(100);

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

/// The bar's thread, while it runs.
struct Watch {
    stop: Sender<()>,
    thread: JoinHandle<()>,
}

/// The bar; nothing at all when it is not to be shown.
pub struct Progress {
    watch: Option<Watch>,
}

impl Progress {
    /// A bar for `length` bytes to read in all (the file's length times the passes over it),
    /// counted in `read`; `length` is `None` for an input read once (standard input, a pipe).
    /// `prints_events`: whether the output has a line per event. The time counts from now.
    pub fn new(length: Option<u64>, read: Arc<AtomicU64>, prints_events: bool) -> Self {
        let shown =
            std::io::stderr().is_terminal() && (!prints_events || !std::io::stdout().is_terminal());
        let Some(length) = length.filter(|&length| shown && length > 0) else {
            return Self { watch: None };
        };
        let (stop, stopped) = mpsc::channel();
        let started = Instant::now();
        // Without a thread, the reading goes on with no bar.
        let thread = std::thread::Builder::new()
            .name("progress".to_owned())
            .spawn(move || {
                let mut bar: Option<ProgressBar> = None;
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                    // The logfile header's buffer is read once more by the time order.
                    let position = read.load(Ordering::Relaxed).min(length);
                    if bar.is_none() {
                        let elapsed = started.elapsed();
                        if elapsed < DELAY || position >= length {
                            continue;
                        }
                        bar = Some(Self::bar(length, elapsed));
                    }
                    if let Some(bar) = &bar {
                        bar.set_position(position);
                    }
                }
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
            });
        Self {
            watch: thread.ok().map(|thread| Watch { stop, thread }),
        }
    }

    /// The bar, drawn after `elapsed` of reading: the bytes read and in all, the rate since the
    /// reading started, and the time left at that rate.
    fn bar(length: u64, elapsed: Duration) -> ProgressBar {
        /// Bytes a second since the reading started (the bar's elapsed time includes the time
        /// before it appeared).
        fn rate(state: &ProgressState) -> f64 {
            let seconds = state.elapsed().as_secs_f64();
            if seconds > 0.0 {
                state.pos() as f64 / seconds
            } else {
                0.0
            }
        }
        let style = ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {rate} {left}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{}/s", HumanBytes(rate(state) as u64));
                },
            )
            .with_key(
                "left",
                |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let rate = rate(state);
                    let left = state.len().unwrap_or(0).saturating_sub(state.pos());
                    if rate > 0.0 {
                        let seconds = Duration::from_secs_f64(left as f64 / rate);
                        let _ = write!(out, "{} left", HumanDuration(seconds));
                    }
                },
            );
        let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr())
            .with_elapsed(elapsed);
        bar.set_style(style);
        bar
    }

    /// Clears the bar, if it is shown, and ends its thread.
    pub fn finish(&mut self) {
        if let Some(Watch { stop, thread }) = self.watch.take() {
            let _ = stop.send(());
            // A thread that panicked has nothing left to clear.
            let _ = thread.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
