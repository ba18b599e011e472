use clap::Parser;
use tradewind::config::{Cli, Command};

fn main() -> std::process::ExitCode {
    // The sandbox helper starts every confined command: it runs before any runtime or logging,
    // on one thread, so its Landlock domain and seccomp filter cover the thread that starts the
    // command and nothing else is paid for.
    let mut argv = std::env::args_os();
    if argv.nth(1).is_some_and(|a| a == "sandbox-exec") {
        return tradewind_core::sandbox::run_helper(argv.collect());
    }
    // Secrets in the environment (the access token, DATABASE_URL, provider keys) go to a fresh
    // copy of this program through an inherited file, so `/proc/<pid>/environ` never holds them;
    // before any thread exists.
    tradewind_core::secret_env::hand_over_and_reexec();
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(serve_main()),
        Err(e) => {
            eprintln!("tradewind: cannot start the async runtime: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve_main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        // `policy check` promises exit status 3 for a usage error (0–2 are its decisions).
        Err(e) if std::env::args().nth(1).as_deref() == Some("policy") && e.use_stderr() => {
            let _ = e.print();
            return std::process::ExitCode::from(3);
        }
        Err(e) => e.exit(),
    };
    // The command line's own server (run, sessions) keeps its request log to itself.
    let quiet = matches!(cli.command, Command::Run(_) | Command::Sessions(_));
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TRADEWIND_LOG").unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new(if quiet {
                    "warn"
                } else {
                    "warn,tradewind=info,tradewind_core=info,tradewind_policy=info"
                })
            }),
        )
        .with_writer(std::io::stderr)
        .init();

    let result = match cli.command {
        Command::Serve(args) => tradewind::cli::serve(args).await,
        Command::Sessions(cmd) => tradewind::headless::sessions(cmd).await,
        Command::Run(args) => match tradewind::headless::run(args).await {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Openapi(a) => {
            tradewind::cli::openapi(a.reference);
            Ok(())
        }
        Command::Passwd(args) => tradewind::cli::passwd(args).await,
        Command::Backup(args) => tradewind::cli::backup(args).await,
        Command::Link(args) => tradewind::cli::link(args),
        Command::Check(args) => match tradewind::cli::check(args).await {
            Ok(true) => Ok(()),
            Ok(false) => return std::process::ExitCode::FAILURE,
            Err(e) => Err(e),
        },
        Command::Mcp(tradewind::config::McpCommand::List(args)) => tradewind::cli::mcp_list(args),
        Command::Mcp(tradewind::config::McpCommand::Doctor(args)) => {
            match tradewind::cli::mcp_doctor(args).await {
                Ok(true) => Ok(()),
                Ok(false) => return std::process::ExitCode::FAILURE,
                Err(e) => Err(e),
            }
        }
        Command::Plugin(cmd) => tradewind::cli::plugin(cmd).await,
        Command::Trust(tradewind::config::TrustCommand::List(args)) => {
            tradewind::cli::trust_list(args).await
        }
        Command::Trust(tradewind::config::TrustCommand::Revoke(args)) => {
            tradewind::cli::trust_revoke(args).await
        }
        Command::SandboxExec { args } => return tradewind_core::sandbox::exec(args).await,
        Command::Policy(tradewind::config::PolicyCommand::Check(args)) => {
            return tradewind::cli::policy_check(args).await;
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tradewind: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
