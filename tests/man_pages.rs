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

#[test]
fn a_page_documents_every_subcommand_and_its_flags() {
    for tool in TOOLS {
        let page = String::from_utf8(render_man_page(&tool)).expect("UTF-8");
        let mut command = (tool.command)();
        command.build();
        for sub in command.get_subcommands() {
            let heading = format!(".SS {}\n", sub.get_name());
            let at = page.find(&heading).unwrap_or_else(|| {
                panic!("{}: no section for the subcommand {}", tool.name, sub.get_name())
            });
            let rest = &page[at + heading.len()..];
            let end = [rest.find("\n.SS "), rest.find("\n.SH ")].into_iter().flatten().min();
            let section = &rest[..end.unwrap_or(rest.len())];
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                let shown = match arg.get_long() {
                    Some(long) => format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-")),
                    None => format!("<\\fI{}\\fR>", arg.get_id().as_str().to_uppercase()),
                };
                assert!(
                    section.contains(&shown),
                    "{} {}: {shown} is not documented",
                    tool.name,
                    sub.get_name()
                );
            }
        }
    }
}
