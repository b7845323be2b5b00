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
            if shell == Shell::Bash {
                script = match_bash_subcommand_states(tool.name, script);
            }
            (completion_file_name(shell, tool.name), script)
        })
        .collect()
}

/// clap_complete's bash script (4.6.11) names the state of a subcommand of a command whose name
/// has a hyphen one way where it sets it (`sh__index__subcmd__query`) and another where it
/// matches it (`sh__subcmd__index__subcmd__query`), so no subcommand's flags complete
/// (clap-rs/clap#6421). The matches are spelt here as the script sets them; once clap_complete
/// agrees with itself, there is nothing to replace.
fn match_bash_subcommand_states(name: &str, script: Vec<u8>) -> Vec<u8> {
    let wrong = format!("{}__subcmd__", name.replace('-', "__subcmd__"));
    let right = format!("{}__subcmd__", name.replace('-', "__"));
    let script = String::from_utf8(script).expect("clap_complete writes UTF-8");
    script.replace(&wrong, &right).into_bytes()
}
