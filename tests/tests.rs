//! Integration tests: the real binaries, run the way a shell pipeline runs them.

mod util;

mod cluster;
mod completions;
mod compute;
mod corpus_stats;
mod docs;
mod faults;
mod fingerprint;
mod hash;
mod hostile;
mod index;
mod man_pages;
mod pairs;
mod pipeline;
mod score;
mod shingle;
mod tokenize;
mod weight;
mod wide;
