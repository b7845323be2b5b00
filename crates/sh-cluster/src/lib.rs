//! sh-cluster (under construction).

use clap::Parser;
use sh_core::cli::IoArgs;

#[derive(Debug, Parser)]
#[command(name = "sh-cluster", version)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,
}

pub const EXAMPLES: &[(&str, &str)] = &[];

pub fn run(_args: Args) -> sh_core::Result<()> {
    Err(sh_core::Error::usage("not built yet"))
}
