//! sh-index against sh-testkit's brute-force oracle of `sh-pairs --against`.
//!
//! Part (a), segments: a segment written with every number of tables m (every layout a K can
//! use, 1..=K+1) must find, for every query and every K, exactly the corpus records the oracle
//! finds, each once, and give back its fingerprints and names. Part (b), whole indexes through
//! `sh_index::run`: an index built whole, built from a first piece and `add`ed the others, with
//! its segments rewritten in every layout, and compacted, must answer `query` as the oracle
//! answers the corpus file (`cat` of the pieces), at its K and below, for records named by line
//! numbers (blank lines among them) or by ids. Part (a) is in `oracle/segments.rs`, part (b)
//! in `oracle/indexes.rs`.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use clap::Parser;
use proptest::prelude::*;
use sh_index::{
    keys_within, write_segment_laid_out, Args, Batch, Index, Layout, Name, Names, Scratch, Segment,
};
use sh_testkit::strategies::fingerprints;
use sh_testkit::{adversarial, oracle};

/// A temporary directory, in memory where there is one: every file sh-index writes is synced
/// to disk, which on a disk costs these tests ten times their run time and tests nothing here.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    match shm.is_dir() {
        true => tempfile::tempdir_in(shm).or_else(|_| tempfile::tempdir()).unwrap(),
        false => tempfile::tempdir().unwrap(),
    }
}

#[path = "oracle/indexes.rs"]
mod indexes;
#[path = "oracle/segments.rs"]
mod segments;
