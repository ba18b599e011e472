//! search_text: ripgrep's engine (grep-regex + grep-searcher) over a parallel, .gitignore-aware
//! walk. No `rg` binary needed. Deny-listed files are never searched, and a file whose content
//! holds key material is dropped from the results.

use parking_lot::Mutex;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};

use super::{Gated, MAX_MODEL_TEXT, PrepareError, ToolCtx, ToolOutput, bound_text};
use crate::policy::paths::{PathPolicy, content_denied};
use crate::protocol::Effect;

/// A search stops (with what it found) after this long.
pub const SEARCH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct SearchArgs {
    pub pattern: String,
    pub root: PathBuf,
    pub glob: Option<String>,
    pub case_insensitive: bool,
    pub limit: usize,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchTextArgs {
    /// A regular expression (Rust regex syntax).
    pub pattern: String,
    /// Where to search (default: the workspace).
    pub path: Option<String>,
    /// Only files matching this glob, e.g. `*.rs`.
    pub glob: Option<String>,
    #[serde(default)]
    pub case_insensitive: bool,
    /// At most this many matches (default 200).
    #[schemars(range(min = 1, max = 2000))]
    pub limit: Option<usize>,
}

pub struct SearchText;

impl super::Tool for SearchText {
    const NAME: &'static str = "search_text";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "Search file contents with a regular expression (ripgrep engine), honouring .gitignore. Returns path:line:text.";
    type Args = SearchTextArgs;
    type Call = SearchArgs;

    fn prepare(a: SearchTextArgs, paths: &PathPolicy) -> Result<Gated<SearchArgs>, PrepareError> {
        if a.pattern.is_empty() || a.pattern.len() > 4096 {
            return Err(PrepareError::Input(
                "pattern must be 1 to 4096 bytes".into(),
            ));
        }
        let r = paths.resolve(a.path.as_deref().unwrap_or("."))?;
        Ok(Gated {
            paths: vec![super::dir_use(&r)],
            command: None,
            url: None,
            call: SearchArgs {
                pattern: a.pattern,
                root: r.path,
                glob: a.glob,
                case_insensitive: a.case_insensitive,
                limit: a.limit.unwrap_or(200).clamp(1, 2000),
            },
        })
    }

    async fn run(args: SearchArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        search_text(ctx, args).await
    }
}

/// Search and return `(matches as path:line:text, truncated)`. Blocking; runs its own threads.
pub fn search_blocking(
    args: &SearchArgs,
    paths: &PathPolicy,
    threads: usize,
) -> Result<(Vec<String>, bool), String> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.case_insensitive)
        .build(&args.pattern)
        .map_err(|e| format!("bad pattern: {e}"))?;
    let glob = match args.glob.as_deref() {
        Some(g) => Some(
            globset::Glob::new(g)
                .map_err(|e| format!("bad glob: {e}"))?
                .compile_matcher(),
        ),
        None => None,
    };
    let results: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let count = AtomicUsize::new(0);
    let full = AtomicBool::new(false);
    let root = args.root.clone();
    let deadline = std::time::Instant::now() + SEARCH_DEADLINE;
    let walker = ignore::WalkBuilder::new(&args.root)
        .hidden(false)
        .follow_links(false)
        .threads(threads)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel();
    walker.run(|| {
        let matcher = matcher.clone();
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        let results = &results;
        let count = &count;
        let full = &full;
        let glob = glob.clone();
        let root = root.clone();
        Box::new(move |entry| {
            use ignore::WalkState;
            if full.load(Ordering::Relaxed) || std::time::Instant::now() > deadline {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let path = entry.path();
            if paths.denied_reason(path).is_some() {
                return WalkState::Continue;
            }
            let rel = path.strip_prefix(&root).unwrap_or(path);
            if let Some(g) = &glob
                && !g.is_match(rel)
            {
                return WalkState::Continue;
            }
            let mut local = Vec::new();
            let _ = searcher.search_path(
                &matcher,
                path,
                UTF8(|lnum, line| {
                    let line = line.trim_end_matches(['\n', '\r']);
                    let line = crate::util::truncate_str(line, 300);
                    local.push(format!("{}:{lnum}:{line}", rel.display()));
                    Ok(local.len() < args.limit)
                }),
            );
            if local.is_empty() {
                return WalkState::Continue;
            }
            // Never surface key material, even from a file with an innocent name.
            if let Ok(bytes) = std::fs::read(path)
                && content_denied(&bytes).is_some()
            {
                return WalkState::Continue;
            }
            let n = local.len();
            {
                let mut r = results.lock();
                r.extend(local);
            }
            if count.fetch_add(n, Ordering::Relaxed) + n >= args.limit {
                full.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            WalkState::Continue
        })
    });
    let mut v = results.into_inner();
    v.sort();
    let truncated = v.len() >= args.limit;
    v.truncate(args.limit);
    Ok((v, truncated))
}

pub async fn search_text(ctx: &ToolCtx<'_>, args: SearchArgs) -> ToolOutput {
    let paths = ctx.paths.clone();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let res = tokio::task::spawn_blocking(move || {
        search_blocking(&args, &paths, threads).map(|r| (r, args.limit))
    })
    .await;
    match res {
        Ok(Ok(((lines, truncated), limit))) => {
            if lines.is_empty() {
                return ToolOutput::ok("(no matches)");
            }
            let mut text = lines.join("\n");
            if truncated {
                text.push_str(&format!(
                    "\n[… stopped at {limit} matches; narrow the pattern, path or glob …]"
                ));
            }
            ToolOutput::ok(bound_text(&text, MAX_MODEL_TEXT))
        }
        Ok(Err(e)) => ToolOutput::err("invalid_input", e),
        Err(e) => ToolOutput::err("internal", e),
    }
}
