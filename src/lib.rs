//! The eleven commands as one list, for what concerns them all: their manual pages and shell
//! completions.

mod completions;

use std::io::Write;

use clap::CommandFactory;
use roff::{bold, roman, Roff};

pub use completions::{completion_file_name, render_completions, SHELLS};

/// A command of the toolkit: its flags and its EXAMPLES (command line, what it does).
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub command: fn() -> clap::Command,
    pub examples: &'static [(&'static str, &'static str)],
}

/// Every command, in pipeline order (sh-index beside sh-pairs: the same pairs, from a persistent
/// index; sh-fingerprint, the four per-document stages in one process, after them), then
/// sh-score, which evaluates the pipeline's output.
pub const TOOLS: [Tool; 11] = [
    Tool {
        name: "sh-tokenize",
        command: sh_tokenize::Args::command,
        examples: sh_tokenize::EXAMPLES,
    },
    Tool { name: "sh-shingle", command: sh_shingle::Args::command, examples: sh_shingle::EXAMPLES },
    Tool { name: "sh-hash", command: sh_hash::Args::command, examples: sh_hash::EXAMPLES },
    Tool { name: "sh-df", command: sh_df::Args::command, examples: sh_df::EXAMPLES },
    Tool { name: "sh-weight", command: sh_weight::Args::command, examples: sh_weight::EXAMPLES },
    Tool { name: "sh-compute", command: sh_compute::Args::command, examples: sh_compute::EXAMPLES },
    Tool { name: "sh-pairs", command: sh_pairs::Args::command, examples: sh_pairs::EXAMPLES },
    Tool { name: "sh-index", command: sh_index::Args::command, examples: sh_index::EXAMPLES },
    Tool {
        name: "sh-fingerprint",
        command: sh_fingerprint::Args::command,
        examples: sh_fingerprint::EXAMPLES,
    },
    Tool { name: "sh-cluster", command: sh_cluster::Args::command, examples: sh_cluster::EXAMPLES },
    Tool { name: "sh-score", command: sh_score::Args::command, examples: sh_score::EXAMPLES },
];

const MANUAL: &str = "sh-tools manual";

/// One of clap_mangen's section renderers.
type RenderSection = fn(&clap_mangen::Man, &mut dyn Write) -> std::io::Result<()>;

/// The file name of a tool's manual page in `man/`.
pub fn man_file_name(tool: &Tool) -> String {
    format!("{}.1", tool.name)
}

/// A tool's manual page in roff, generated from its clap definition; `man/` holds these, and a
/// test fails when a committed page differs.
pub fn render_man_page(tool: &Tool) -> Vec<u8> {
    let command = (tool.command)();
    let version = command.get_version().unwrap_or_default().to_string();
    let man =
        clap_mangen::Man::new(command.clone()).manual(MANUAL).source(format!("sh-tools {version}"));
    let mut page = Vec::new();
    let sections: [RenderSection; 5] = [
        clap_mangen::Man::render_title,
        clap_mangen::Man::render_name_section,
        clap_mangen::Man::render_synopsis_section,
        clap_mangen::Man::render_description_section,
        clap_mangen::Man::render_options_section,
    ];
    for render in sections {
        render(&man, &mut page).expect("writing to a Vec cannot fail");
    }
    page.extend(subcommands_section(&command));
    page.extend(exit_status_section().render().as_bytes());
    page.extend(examples_section(tool).render().as_bytes());
    page.extend(see_also_section(tool).render().as_bytes());
    page
}

/// For a command with subcommands (sh-index), a SUBCOMMANDS section: each one's synopsis, what
/// it does and its flags. clap_mangen's OPTIONS section holds the command's own flags only, and
/// its subcommands section only names a page per subcommand, which the toolkit does not have.
fn subcommands_section(command: &clap::Command) -> Vec<u8> {
    let mut command = command.clone();
    // Gives each subcommand its full name (`sh-index build`) and the global flags.
    command.build();
    let mut section = Vec::new();
    if !command.has_subcommands() {
        return section;
    }
    let mut heading = Roff::new();
    heading.control("SH", ["SUBCOMMANDS"]);
    section.extend(heading.render().as_bytes());
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let mut roff = Roff::new();
        roff.control("SS", [sub.get_name()]);
        section.extend(roff.render().as_bytes());
        let man = clap_mangen::Man::new(sub.clone());
        let mut synopsis = Vec::new();
        man.render_synopsis_section(&mut synopsis).expect("writing to a Vec cannot fail");
        section.extend(without_heading(&synopsis));
        if let Some(about) = sub.get_long_about().or_else(|| sub.get_about()) {
            let mut roff = Roff::new();
            roff.control("PP", []).text([roman(about.to_string())]);
            section.extend(roff.render().as_bytes());
        }
        let mut options = Vec::new();
        man.render_options_section(&mut options).expect("writing to a Vec cannot fail");
        section.extend(without_heading(&options));
    }
    section
}

/// A section rendered by clap_mangen without its `.SH` heading line, so that it can stand
/// under a subcommand's `.SS`.
fn without_heading(section: &[u8]) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = section.split_inclusive(|&b| b == b'\n').collect();
    if let Some(heading) = lines.iter().position(|line| line.starts_with(b".SH ")) {
        lines.remove(heading);
    }
    lines.concat()
}

fn exit_status_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in [
        ("0", "Success. Also when the reader of the output goes away (a closed pipe, as in `| head`): the command then ends quietly."),
        ("1", "Bad input, an I/O error, or memory the system refused. The message on standard error reads `NAME: error: line N: what is wrong: 'the offending text'` for bad input. With --output, the output file is left as it was."),
        ("2", "Bad flags (usage error)."),
    ] {
        roff.control("TP", []).text([bold(code)]).text([roman(meaning)]);
    }
    roff
}

fn examples_section(tool: &Tool) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]);
    for (command_line, explanation) in tool.examples {
        roff.control("TP", []).text([bold(*command_line)]).text([roman(*explanation)]);
    }
    roff
}

fn see_also_section(tool: &Tool) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["SEE ALSO"]);
    let others: Vec<String> = TOOLS
        .iter()
        .filter(|other| other.name != tool.name)
        .map(|other| format!("{}(1)", other.name))
        .chain(["sh-tools(7)".to_string()])
        .collect();
    roff.text([roman(others.join(", "))]);
    roff
}
