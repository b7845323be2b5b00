#[global_allocator]
static ALLOCATOR: sh_core::memory::Allocator = sh_core::memory::Allocator;

fn main() {
    sh_core::cli::run_main("sh-pairs", sh_pairs::run)
}
