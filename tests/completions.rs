use std::path::Path;

use sh_tools::{render_completions, TOOLS};

#[test]
fn committed_completions_match_the_flag_definitions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let mut expected = Vec::new();
    for tool in TOOLS {
        for (file_name, script) in render_completions(&tool) {
            let path = dir.join(&file_name);
            let committed = std::fs::read(&path).unwrap_or_default();
            assert!(
                committed == script,
                "{} is out of date: run `cargo run --example generate-completions`",
                path.display()
            );
            expected.push(file_name);
        }
    }
    // No file of a command that is gone.
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
        })
        .unwrap_or_default();
    present.sort();
    expected.sort();
    assert_eq!(present, expected, "completions/ holds exactly the generated files");
}

/// What bash's completion for `name` offers after `words` and `--`, as on TAB.
fn bash_offers(file: &Path, name: &str, words: &[&str]) -> Vec<String> {
    // Sources a command's completion file and asks it to complete `NAME WORDS... --`.
    let script = r#"
        source "$1"
        name=$2
        shift 2
        function=$(complete -p "$name" | sed 's/.*-F \([^ ]*\).*/\1/')
        COMP_WORDS=("$name" "$@" --); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
        "$function" "$name" -- "${COMP_WORDS[COMP_CWORD - 1]}"
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    let out = std::process::Command::new("bash")
        .args(["-c", script, "complete-test"])
        .arg(file)
        .arg(name)
        .args(words)
        .output()
        .expect("bash");
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_every_command_s_flags() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for tool in TOOLS {
        let file = dir.join(format!("{}.bash", tool.name));
        let mut command = (tool.command)();
        command.build();
        if !command.has_subcommands() {
            let offered = bash_offers(&file, tool.name, &[]);
            for flag in ["--input", "--output", "--quiet", "--help", "--version"] {
                assert!(offered.iter().any(|o| o == flag), "{}: {flag} not offered", tool.name);
            }
        }
        // Every long flag, of the command and of each subcommand after its name.
        let mut levels = vec![(Vec::new(), command.clone())];
        for sub in command.get_subcommands() {
            levels.push((vec![sub.get_name().to_string()], sub.clone()));
        }
        for (words, level) in levels {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let offered = bash_offers(&file, tool.name, &words);
            for long in
                level.get_arguments().filter(|a| !a.is_hide_set()).filter_map(|a| a.get_long())
            {
                let flag = format!("--{long}");
                assert!(
                    offered.contains(&flag),
                    "{} {}: {flag} not offered: {offered:?}",
                    tool.name,
                    words.join(" ")
                );
            }
        }
    }
}
