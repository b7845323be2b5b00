fn main() {
    sh_core::cli::run_main("sh-compute", sh_compute::run)
}
