fn main() {
    sh_core::cli::run_main("sh-tokenize", sh_tokenize::run)
}
