//! sh-fingerprint: text to simhash fingerprints in one process, equal byte for byte to the
//! pipeline `sh-tokenize | sh-shingle | sh-hash | [sh-weight |] sh-compute`.
//!
//! - `args.rs`: the flags (the stages' own), the help text and the examples.
//! - `fingerprinter.rs`: one document through the stages' library functions.
//! - chunks of lines on several threads, written in input order: `sh_core::in_order`.

mod args;
mod fingerprinter;

use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_core::{Error, RecordReader, Result};
use sh_tokenize::Tokenizer;
use sh_weight::{Rule, Weights};

pub use args::{Args, EXAMPLES};
pub use fingerprinter::{Fingerprinter, Recipe, Table};
pub use sh_core::in_order::{map_lines_in_order, Spread, CHUNK_BYTES};
use sh_core::threads::all_cores;

/// Runs the command: one fingerprint of `--bits` bits per input line.
pub fn run(args: Args) -> Result<()> {
    if args.weighted {
        return Err(Error::usage(
            "--weighted is not supported: text has no ITEM:WEIGHT items; for items that carry \
             weights, run the stages (sh-hash --weighted | sh-compute)",
        ));
    }
    let documents = {
        let json = args.json.then_some((args.text_field.as_str(), args.id_field.as_deref()));
        sh_tokenize::Documents::new(args.with_id, json)?
    };
    let table = match &args.df {
        Some(path) => {
            sh_weight::check_table_and_input(path, &args.io.input)?;
            let rule = Rule::from_flags(
                args.max_df,
                args.df_floor,
                args.idf,
                args.max_tf,
                args.min_kept,
                args.min_run as usize,
            );
            let weights = Weights::load(path, rule, args.capacity)?;
            Some(Table { path: path.clone(), weights })
        }
        None => None,
    };
    let recipe = Recipe {
        documents,
        tokenizer: Tokenizer::new(args.mode, args.keep_case),
        window: args.window as usize,
        seed: args.seed,
        table,
    };
    let mut input = args.io.open_input()?;
    match args.bits {
        Width::Bits64 => fingerprint::<1>(&args, &recipe, &mut input),
        Width::Bits128 => fingerprint::<2>(&args, &recipe, &mut input),
        Width::Bits256 => fingerprint::<4>(&args, &recipe, &mut input),
    }
}

/// Fingerprints every line of `input` with fingerprints of `WORDS` words.
fn fingerprint<const WORDS: usize>(
    args: &Args,
    recipe: &Recipe,
    input: &mut RecordReader,
) -> Result<()> {
    let threads = args.threads.map_or_else(all_cores, |n| n as usize);
    let progress = Progress::new(args.quiet, "documents");
    let spread = args.chunks.spread(threads);
    // The input's start is looked at once the output is open (an output that cannot be made is
    // told at once, not once the input comes).
    sh_core::in_order::map_lines_in_order_after(
        input,
        || args.io.create_output_reading(args.df.as_deref().map(|df| ("the table of --df", df))),
        |input| sh_core::record::note_unicode_mark(input, None),
        progress,
        spread,
        || {
            let mut fingerprinter = Fingerprinter::<WORDS>::new(recipe);
            move |line: u64, record: &[u8], out: &mut Vec<u8>| {
                fingerprinter.document(line, record, out)
            }
        },
    )
}
