//! One document, from its input line to its output line, by the stages' own functions:
//! sh-tokenize's document reader and tokenizer, sh-shingle's window, sh-hash's hash,
//! sh-weight's rule when a table is given, and sh-compute's simhash. Nothing is written as
//! text between them, except the hashes that sh-weight looks up in its table.

use std::path::PathBuf;

use sh_compute::Simhash;
use sh_core::number::push_u64;
use sh_core::Result;
use sh_shingle::ShingleWindow;
use sh_tokenize::{Documents, Tokenizer};
use sh_weight::{Repeats, Weights};

/// What every document goes through: the flags, read once and shared by every thread.
#[derive(Debug)]
pub struct Recipe {
    pub documents: Documents,
    pub tokenizer: Tokenizer,
    pub window: usize,
    pub seed: u64,
    pub table: Option<Table>,
}

/// The corpus statistics of --df: the table's file and its rule.
#[derive(Debug)]
pub struct Table {
    pub path: PathBuf,
    pub weights: Weights,
}

/// Fingerprints documents of `WORDS` words (1, 2 or 4) by a recipe; one per thread, its
/// buffers reused from document to document.
#[derive(Debug)]
pub struct Fingerprinter<'r, const WORDS: usize> {
    recipe: &'r Recipe,
    documents: Documents,
    window: ShingleWindow,
    simhash: Simhash<WORDS>,
    tokens: Vec<u8>,
    /// With a table: the document's hashes as sh-hash writes them, and as sh-weight writes them.
    hashes: Vec<u8>,
    weighed: Vec<u8>,
    /// sh-weight's scratch for its --max-tf limit and --min-run's runs.
    repeats: Repeats,
}

impl<'r, const WORDS: usize> Fingerprinter<'r, WORDS> {
    pub fn new(recipe: &'r Recipe) -> Fingerprinter<'r, WORDS> {
        Fingerprinter {
            recipe,
            documents: recipe.documents.clone(),
            window: ShingleWindow::new(recipe.window),
            simhash: Simhash::default(),
            tokens: Vec::new(),
            hashes: Vec::new(),
            weighed: Vec::new(),
            repeats: Repeats::default(),
        }
    }

    /// Appends the output line of input line `line` (`record`, without its line ending) to
    /// `out`: `[ID<TAB>]FINGERPRINT` and LF. On bad input, nothing is appended.
    pub fn document(&mut self, line: u64, record: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let Recipe { tokenizer, seed, table, .. } = self.recipe;
        let seed = *seed;
        let (id, text) = self.documents.split(line, record)?;
        // The tokens are joined by `_` as they come, so that each shingle is a slice of them,
        // and handed to the shingle window one by one: no token or shingle is looked for.
        self.tokens.clear();
        self.window.clear();
        self.simhash.clear();
        let window = &mut self.window;
        match table {
            None => {
                let simhash = &mut self.simhash;
                tokenizer.tokenize_each(text, b'_', &mut self.tokens, |joined, token| {
                    if let Some(shingle) = window.push(joined, token) {
                        simhash.add(sh_hash::hash64(shingle, seed));
                    }
                });
                if let Some(shingle) = window.finish(&self.tokens) {
                    simhash.add(sh_hash::hash64(shingle, seed));
                }
            }
            Some(Table { path, weights }) => {
                if let Some(error) = weights.counts_no_documents(path) {
                    return Err(error);
                }
                let hashes = &mut self.hashes;
                hashes.clear();
                let mut push_hash = |shingle: &[u8]| {
                    if !hashes.is_empty() {
                        hashes.push(b' ');
                    }
                    push_u64(hashes, sh_hash::hash64(shingle, seed));
                };
                tokenizer.tokenize_each(text, b'_', &mut self.tokens, |joined, token| {
                    if let Some(shingle) = window.push(joined, token) {
                        push_hash(shingle);
                    }
                });
                if let Some(shingle) = window.finish(&self.tokens) {
                    push_hash(shingle);
                }
                self.weighed.clear();
                weights.apply(hashes, false, line, &mut self.weighed, &mut self.repeats)?;
                sh_compute::add_items(&mut self.simhash, line, &self.weighed)?;
            }
        }
        if let Some(id) = id {
            out.extend_from_slice(id);
            out.push(b'\t');
        }
        sh_compute::write_fingerprint(&mut self.simhash, out)
            .expect("writing to a Vec cannot fail");
        out.push(b'\n');
        Ok(())
    }
}
