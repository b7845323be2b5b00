//! Shell completions for every command, generated from its clap definition like the manual
//! pages: `completions/` holds them, and a test fails when a committed file differs.

use clap_complete::Shell;

use crate::Tool;

/// The shells completions are written for, and the file name each expects: bash loads
/// `NAME` (or `NAME.bash`) from its completions directory, zsh `_NAME` from its `$fpath`, fish
/// `NAME.fish` from its `complete` directory.
pub const SHELLS: [(Shell, fn(&str) -> String); 3] = [
    (Shell::Bash, |name| format!("{name}.bash")),
    (Shell::Zsh, |name| format!("_{name}")),
    (Shell::Fish, |name| format!("{name}.fish")),
];

/// A tool's completion files: (file name in `completions/`, contents), one for each shell.
pub fn render_completions(tool: &Tool) -> Vec<(String, Vec<u8>)> {
    SHELLS
        .iter()
        .map(|(shell, file_name)| {
            let mut command = (tool.command)();
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut command, tool.name, &mut script);
            (file_name(tool.name), script)
        })
        .collect()
}
