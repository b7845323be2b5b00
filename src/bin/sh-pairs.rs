fn main() {
    sh_core::cli::run_main("sh-pairs", sh_pairs::run)
}
