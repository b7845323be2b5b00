fn main() {
    sh_core::cli::run_main("sh-shingle", sh_shingle::run)
}
