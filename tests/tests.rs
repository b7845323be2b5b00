//! Integration tests: the real binaries, run the way a shell pipeline runs them.

mod util;

mod man_pages;
