use clap::Parser;
use tradewind::config::{Cli, Command};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TRADEWIND_LOG").unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new(
                    "warn,tradewind=info,tradewind_core=info,tradewind_policy=info",
                )
            }),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => tradewind::cli::serve(args).await,
        Command::Run(args) => match tradewind::cli::run_headless(args).await {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Openapi => {
            tradewind::cli::openapi();
            Ok(())
        }
        Command::Passwd(args) => tradewind::cli::passwd(args).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tradewind: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
