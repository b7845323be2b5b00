//! sh-tokenize: text to tokens, one document per line. The rules live in [`tokenizer`], the
//! `--json` input in [`json`]; this file is the command around them.

use std::io::Write;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::progress::Progress;
use sh_core::{Error, Output, RecordReader};

mod documents;
pub mod json;
mod runs;
pub mod tokenizer;

pub use documents::Documents;
pub use json::{Document, JsonReader};
pub use tokenizer::{Mode, Tokenizer};

const LONG_ABOUT: &str = "\
Split text into tokens: the first stage of the sh-tools pipeline \
(sh-tokenize | sh-shingle | sh-hash | sh-compute).

Input is one document per line. Lines end in LF; one CR before the LF is dropped and a last line \
without LF is read too. A byte-order mark (U+FEFF, bytes EF BB BF) at the start of a line is \
dropped in every mode, on any line (files joined by cat keep theirs); one mark only, a second \
is the line's first character. Text is UTF-8: a file saved as UTF-16 or UTF-32 is read as \
UTF-8 all the same, where it is garbage; when the input starts with such a file's byte-order \
mark (FF FE, FE FF, FF FE 00 00 or 00 00 FE FF), a note on standard error says so, and how to \
convert it (iconv -f UTF-16 -t UTF-8, or -f UTF-32). With --with-id a line is ID<TAB>TEXT: the id is \
everything before the first TAB and is copied to the output byte for byte; a line without a \
TAB has no id, and a line that starts with a TAB (an empty id) is an error.

Output is exactly one line for each input line, in the same order: the document's tokens \
separated by single spaces, after ID<TAB> when the document has an id. A document without \
tokens gives an empty line (or ID<TAB>). No token holds a space, TAB, CR or LF, and the tokens \
are always valid UTF-8: invalid UTF-8 in the input separates tokens and is never an error. An id \
is copied byte for byte, as it came (invalid UTF-8 included).

Modes (--mode):

words (the default): a token is a longest run of Unicode letters (General Category L), decimal \
digits (Nd) and combining marks (M), except that each Han, Hiragana or Katakana character (by \
Script_Extensions, so the prolonged sound mark U+30FC is Katakana) is a token of its own, with \
any combining marks right after it. Chinese and Japanese text thus gives one token per \
character; Korean Hangul is letters, so a Hangul word is one token. Everything else separates \
tokens.

alpha: as words, but digits separate tokens too.

ascii: a token is a longest run of the ASCII letters A-Z and a-z; every other byte separates \
tokens. This is the tokenizer of the original simhash tools.

space: a token is a longest run of characters that are not Unicode White_Space.

chars: every character that is not White_Space is a token, with the combining marks right \
after it.

Tokens are lowercased character by character (Unicode lowercase mapping, so ß stays ß and a \
capital sigma becomes σ) unless --keep-case is given.

With --json each line is a JSON object. The text is the string in the field named by \
--text-field (default \"text\"); with --id-field the id is the value of that field, a string or \
an integer (written in decimal), never empty. Other fields are ignored. A blank line is an empty document \
without an id. A line that is not a JSON object, lacks the text field (or the id field when one \
is asked for), has a text that is not a string, an id that is neither a string nor an integer \
or is empty or holds a TAB or LF, or the text or id field given twice, is an error that names \
the line (another field given twice is ignored with the rest). Invalid UTF-8 \
inside the text string is accepted and separates tokens like everywhere else.

Progress is shown on standard error when it is a terminal, unless --quiet is given.";

/// The flags of sh-tokenize; `--help` and the manual page are made from these.
#[derive(Debug, Parser)]
#[command(
    name = "sh-tokenize",
    version,
    about = "Split text into tokens, one document per line",
    long_about = LONG_ABOUT
)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// How to cut text into tokens
    #[arg(short, long, value_enum, value_name = "MODE", default_value_t = Mode::Words)]
    pub mode: Mode,

    /// Keep tokens as they are instead of lowercasing them
    #[arg(long)]
    pub keep_case: bool,

    /// Read ID<TAB>TEXT lines and put each id in front of its tokens
    #[arg(long, conflicts_with = "json")]
    pub with_id: bool,

    /// Read one JSON object per line
    #[arg(long)]
    pub json: bool,

    /// With --json, the field that holds the text
    #[arg(long, value_name = "NAME", default_value = "text", requires = "json")]
    pub text_field: String,

    /// With --json, the field that holds the id (a string or an integer)
    #[arg(long, value_name = "NAME", requires = "json")]
    pub id_field: Option<String>,

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long)]
    pub quiet: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-tokenize -i pages.txt | sh-shingle | sh-hash | sh-compute > fingerprints.txt",
        "Fingerprint every line of pages.txt: line N of fingerprints.txt belongs to line N of \
         pages.txt.",
    ),
    (
        "printf 'd1\\tÉCOLE Straße, 2024!\\n' | sh-tokenize --with-id",
        "Prints d1<TAB>école straße 2024: the id is kept, the tokens lowercased.",
    ),
    (
        "printf '東京タワー\\n' | sh-tokenize",
        "Prints 東 京 タ ワ ー: Han and Kana characters are tokens of their own.",
    ),
    (
        "echo \"what's new?How5is _ the ^# stuff\" | sh-tokenize --mode ascii --keep-case",
        "Prints what s new How is the stuff, as the original simhash tools did.",
    ),
    (
        "sh-tokenize --json --id-field url --text-field body -i crawl.jsonl",
        "Read JSON lines such as {\"url\": \"https://example.com/\", \"body\": \"…\"} and write \
         url<TAB>tokens lines.",
    ),
];

impl Args {
    /// How the flags say an input line becomes a document.
    pub fn documents(&self) -> sh_core::Result<Documents> {
        let json = self.json.then_some((self.text_field.as_str(), self.id_field.as_deref()));
        Documents::new(self.with_id, json)
    }
}

pub fn run(args: Args) -> sh_core::Result<()> {
    let mut documents = args.documents()?;
    let mut input = args.io.open_input()?;
    let mut output = args.io.create_output()?;
    sh_core::record::note_unicode_mark(&mut input, None);
    let mut progress = Progress::new(args.quiet, "documents");
    let result = tokenize_lines(&args, &mut documents, &mut input, &mut output, &mut progress);
    // The bar goes away before an error message is printed.
    progress.finish();
    result?;
    output.finish()
}

fn tokenize_lines(
    args: &Args,
    documents: &mut Documents,
    input: &mut RecordReader,
    output: &mut Output,
    progress: &mut Progress,
) -> sh_core::Result<()> {
    let tokenizer = Tokenizer::new(args.mode, args.keep_case);
    // One output line is built here and written with one call.
    let mut line = Vec::new();
    while let Some((number, record)) = input.next_numbered()? {
        let (id, text) = documents.split(number, record)?;
        line.clear();
        if let Some(id) = id {
            line.extend_from_slice(id);
            line.push(b'\t');
        }
        tokenizer.tokenize(text, &mut line);
        line.push(b'\n');
        output.write_all(&line).map_err(Error::writing)?;
        progress.tick();
    }
    Ok(())
}
