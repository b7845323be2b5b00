//! Writes the manual pages in man/ from the commands' flag definitions.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let man = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    std::fs::create_dir_all(&man)?;
    for tool in sh_tools::TOOLS {
        let path = man.join(sh_tools::man_file_name(&tool));
        std::fs::write(&path, sh_tools::render_man_page(&tool))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
