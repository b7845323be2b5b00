fn main() {
    sh_core::cli::run_main("sh-score", sh_score::run)
}
