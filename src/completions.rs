//! Shell completions for every command, generated from its clap definition like the manual
//! pages: `completions/` holds them, and a test fails when a committed file differs.

use clap_complete::Shell;

use crate::Tool;

/// The shells completions are written for.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// The file name a shell expects for a command's completions: bash loads `NAME` (installed
/// from `NAME.bash`) from its completions directory, zsh `_NAME` from its `$fpath`, fish
/// `NAME.fish` from its completions directory.
pub fn completion_file_name(shell: Shell, name: &str) -> String {
    match shell {
        Shell::Zsh => format!("_{name}"),
        Shell::Fish => format!("{name}.fish"),
        _ => format!("{name}.bash"),
    }
}

/// A tool's completion files: (file name in `completions/`, contents), one for each shell.
pub fn render_completions(tool: &Tool) -> Vec<(String, Vec<u8>)> {
    SHELLS
        .iter()
        .map(|&shell| {
            let mut command = (tool.command)();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, tool.name, &mut script);
            (completion_file_name(shell, tool.name), script)
        })
        .collect()
}
