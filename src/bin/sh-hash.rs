fn main() {
    sh_core::cli::run_main("sh-hash", sh_hash::run)
}
