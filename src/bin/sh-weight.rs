fn main() {
    sh_core::cli::run_main("sh-weight", sh_weight::run)
}
