//! A progress bar for long commands (`audit sync`), on a terminal's stderr only: never in
//! Actions, never mixed into stdout's results.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::env::RunEnv;

/// A progress line on a terminal's stderr, redrawn at most ten times a second.
pub(super) struct Progress {
    total: usize,
    done: usize,
    shown: Option<Instant>,
    on: bool,
}

impl Progress {
    pub(super) fn new(env: &RunEnv, total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            shown: None,
            on: !env.in_actions && std::io::stderr().is_terminal() && total > 0,
        }
    }

    pub(super) fn step(&mut self) {
        self.done += 1;
        if !self.on
            || self
                .shown
                .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.shown = Some(Instant::now());
        let width = 30;
        let filled = self.done * width / self.total.max(1);
        let mut err = std::io::stderr();
        let _ = write!(
            err,
            "\r[{}{}] {}/{} pull requests",
            "#".repeat(filled),
            " ".repeat(width - filled),
            self.done,
            self.total
        );
        let _ = err.flush();
    }

    pub(super) fn done(&self) {
        if self.on {
            eprintln!("\r{}\r", " ".repeat(60));
        }
    }
}
