//! What every sh-tools command shares, and nothing more: reading records through one reused
//! buffer, splitting off the id, iterating items, parsing and printing numbers, the error type
//! with line numbers, and the `--input`/`--output` plumbing with quiet broken pipes.

pub mod cli;
pub mod closed_streams;
pub mod error;
pub mod io;
pub mod number;
pub mod pairs;
mod pending;
pub mod progress;
pub mod record;

pub use error::{Error, Result};
pub use io::{Output, RecordReader};
pub use record::{items, split_id};
