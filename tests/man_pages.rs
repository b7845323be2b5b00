use std::path::Path;

use sh_tools::{man_file_name, render_man_page, TOOLS};

#[test]
fn committed_man_pages_match_the_flag_definitions() {
    let man = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    for tool in TOOLS {
        let path = man.join(man_file_name(&tool));
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == render_man_page(&tool),
            "{} is out of date: run `cargo run --example generate-man`",
            path.display()
        );
    }
}
