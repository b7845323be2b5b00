//! Progress on stderr for long work: shown only when stderr is a terminal and `--quiet` is off,
//! so pipelines and logs never see it.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Counts units of work (records, pairs, tables) and shows the count now and then.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    pending: u64,
}

/// How many units pass between updates of the bar: keeps the hot loop free of it.
const BATCH: u64 = 1 << 16;

impl Progress {
    /// A counter labelled `what` ("records read"); hidden when `quiet` or stderr is no terminal.
    pub fn new(quiet: bool, what: &str) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {human_pos} {msg} ({elapsed})")
                    .expect("valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        };
        bar.set_message(what.to_string());
        Progress { bar, pending: 0 }
    }

    /// Counts one unit; cheap enough for a per-record loop.
    #[inline]
    pub fn tick(&mut self) {
        self.pending += 1;
        if self.pending == BATCH {
            self.flush();
        }
    }

    /// Counts `units` at once, for work done in blocks.
    pub fn add(&mut self, units: u64) {
        self.pending += units;
        if self.pending >= BATCH {
            self.flush();
        }
    }

    /// Changes the label, for work that moves on to its next phase.
    pub fn set_message(&mut self, what: &str) {
        self.flush();
        self.bar.set_message(what.to_string());
    }

    fn flush(&mut self) {
        self.bar.inc(self.pending);
        self.pending = 0;
    }

    /// Removes the bar from the terminal.
    pub fn finish(mut self) {
        self.flush();
        self.bar.finish_and_clear();
    }
}
