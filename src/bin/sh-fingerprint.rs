fn main() {
    sh_core::cli::run_main("sh-fingerprint", sh_fingerprint::run)
}
