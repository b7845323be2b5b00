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

#[test]
fn bash_completes_every_command_s_flags() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    // Sources a command's completion file and asks it to complete `NAME --`, as bash does on
    // TAB.
    let script = r#"
        source "$1"
        function=$(complete -p "$2" | sed 's/.*-F \([^ ]*\).*/\1/')
        COMP_WORDS=("$2" --); COMP_CWORD=1; COMP_LINE="$2 --"; COMP_POINT=${#COMP_LINE}
        "$function" "$2" -- "$2"
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    for tool in TOOLS {
        let file = dir.join(format!("{}.bash", tool.name));
        let out = std::process::Command::new("bash")
            .args(["-c", script, "complete-test"])
            .arg(&file)
            .arg(tool.name)
            .output()
            .expect("bash");
        let offered = String::from_utf8_lossy(&out.stdout);
        let offered: Vec<&str> = offered.lines().collect();
        for flag in ["--input", "--output", "--quiet", "--help", "--version"] {
            assert!(offered.contains(&flag), "{}: {flag} not offered: {offered:?}", tool.name);
        }
    }
}
