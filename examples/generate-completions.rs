//! Writes the shell completions in completions/ from the commands' flag definitions.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    std::fs::create_dir_all(&dir)?;
    for tool in sh_tools::TOOLS {
        for (file_name, script) in sh_tools::render_completions(&tool) {
            let path = dir.join(file_name);
            std::fs::write(&path, script)?;
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}
