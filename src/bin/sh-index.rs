fn main() {
    sh_core::cli::run_main("sh-index", sh_index::run)
}
