fn main() {
    sh_core::cli::run_main("sh-cluster", sh_cluster::run)
}
