fn main() {
    sh_core::cli::run_main("sh-df", sh_df::run)
}
