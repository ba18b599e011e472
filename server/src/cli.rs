//! The `tradewind` subcommands.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context, bail};

use crate::config::{Config, PasswdArgs, ServeArgs};
use crate::server::{launch, open_store, wait_for_signal};
use crate::state_dir::StateDir;

pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let cfg = Config::resolve(&args.common, args.bind, args.port)?;
    let server = launch(cfg).await?;
    // Scripts and tests read this line; keep its shape.
    println!("Tradewind is ready: {}", server.launch_url());
    println!("Open that link once in your browser; it signs you in and is then used up.");
    std::io::stdout().flush().ok();
    server.wait(wait_for_signal()).await
}

pub fn openapi() {
    print!("{}", crate::http::openapi_json());
}

/// Read the new password from stdin (twice on a terminal), hash with argon2id, store.
pub async fn passwd(args: PasswdArgs) -> anyhow::Result<()> {
    let state_dir = crate::config::default_state_dir(args.state_dir.as_deref())?;
    let _lock = StateDir::open_locked(&state_dir).context(
        "stop the running server before changing the password (it holds the state directory)",
    )?;
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let read = |prompt: &str| -> anyhow::Result<String> {
        if interactive {
            eprint!("{prompt}");
            std::io::stderr().flush().ok();
        }
        let mut line = String::new();
        stdin.lock().read_line(&mut line)?;
        Ok(line.trim_end_matches(['\r', '\n']).to_string())
    };
    let pw = read("New password: ")?;
    if interactive {
        let again = read("Again: ")?;
        if again != pw {
            bail!("the passwords differ; nothing changed");
        }
    }
    if pw.chars().count() < 8 {
        bail!("the password must have at least 8 characters; nothing changed");
    }
    if pw.len() > 1024 {
        bail!("the password is too long (1024 bytes at most); nothing changed");
    }
    let mut cfg = Config::for_paths(std::env::current_dir()?, state_dir);
    cfg.database_url = std::env::var("DATABASE_URL").ok().filter(|u| !u.is_empty());
    let store = open_store(&cfg).await?;
    let phc = crate::auth::hash_password(&pw)?;
    store.set_password_hash(&phc).await?;
    store.close().await;
    eprintln!("Password set. Existing browser sign-ins were signed out.");
    Ok(())
}
