//! What every sh-tools command shares, and nothing more. A map, by what a command does:
//!
//! - **Its flags and `main`**: [`cli`] — `-i/--input` and `-o/--output` ([`cli::IoArgs`]) and
//!   [`cli::run_main`], which turns an error into `sh-NAME: error: …` and an exit status.
//! - **Reading records**: [`RecordReader`], one reused buffer, LF-terminated lines with their
//!   numbers; [`record`] splits off the `ID<TAB>` and iterates a line's items; [`records`]
//!   reads fingerprint records, `[ID<TAB>]FINGERPRINT` (sh-pairs, sh-index).
//! - **Numbers**: [`number`] parses hashes, fingerprints and weights and prints them without
//!   allocating.
//! - **Pair lines** (sh-cluster, sh-score): [`pairs`] reads `A<TAB>B[<TAB>DISTANCE]` and JSON
//!   arrays; [`json`] holds what every JSON reader shares (the string seed, the error meaning).
//! - **Writing**: [`Output`] (`output.rs`), block-buffered, an `--output` file replaced only
//!   on success, a broken pipe ending the command quietly.
//! - **Errors**: [`Error`] and [`Result`] — bad input with its line number (exit 1), I/O with
//!   what was being done (exit 1), flags (exit 2).
//! - **Progress** on a terminal: [`progress::Progress`].
//! - **Per-line work on several threads**, the output in input order: [`in_order`] (sh-weight,
//!   sh-fingerprint).
//! - **Starting threads** that the system may refuse, the work then done on fewer:
//!   [`threads`]; **memory** it refuses, an error like any other: [`memory`].

#![deny(missing_docs)]

pub mod cli;
pub mod closed_streams;
pub mod copy;
mod descriptors;
mod error;
pub mod fingerprint;
pub mod in_order;
mod io;
pub mod json;
pub mod memory;
pub mod number;
mod output;
pub mod pairs;
mod pending;
pub mod progress;
pub mod record;
pub mod records;
pub mod threads;

pub use error::{file_name, Error, Result};
pub use io::{block_lines, is_std_stream, RecordReader, LINE_PIECE};
pub use output::Output;
