//! `webfetch`: one http(s) page as Markdown (the default), plain text or the raw HTML.
//!
//! The gate sees where the call connects before anything is sent (`Gated::url`, resolved and
//! classified by [`crate::net`]); the connection goes to exactly the checked addresses, and each
//! redirect (at most 20) is resolved and passed through the gate again. Responses over 5 MiB
//! and content that is not text are refused; the model gets at most 20,000 characters, and a
//! longer page is written whole to `.tradewind/cache/webfetch/<hash>.<ext>` in the workspace so
//! a later `read_file` loses nothing.

use std::rc::Rc;
use std::time::{Duration, Instant};

use markup5ever_rcdom::{Node, NodeData};
use reqwest::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use sha2::Digest;

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::net::Target;
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;

/// Redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 20;
/// The largest response read.
pub const MAX_RESPONSE_BYTES: usize = 5 * 1024 * 1024;
/// Characters of converted text in the result.
pub const MAX_RESULT_CHARS: usize = 20_000;
/// Seconds, by default and at most.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
pub const MAX_TIMEOUT_SECS: u64 = 120;
/// Where whole pages are kept, under the workspace.
pub const CACHE_DIR: &str = ".tradewind/cache/webfetch";

/// What the page becomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// HTML converted to Markdown (tables and code blocks kept).
    #[default]
    Markdown,
    /// Plain text, without scripts and styles.
    Text,
    /// The HTML as served.
    Html,
}

impl Format {
    fn ext(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Text => "txt",
            Format::Html => "html",
        }
    }
    fn accept(self) -> &'static str {
        match self {
            Format::Markdown => {
                "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.5, */*;q=0.1"
            }
            Format::Text => "text/plain, text/html;q=0.9, */*;q=0.1",
            Format::Html => "text/html, application/xhtml+xml;q=0.9, */*;q=0.1",
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchArgs {
    /// The http or https URL.
    #[schemars(length(min = 1, max = 8192))]
    pub url: String,
    /// `markdown` (default), `text` or `html`.
    #[serde(default)]
    pub format: Option<Format>,
    /// Seconds to wait, 30 by default, at most 120.
    #[serde(default)]
    #[schemars(range(min = 1, max = 120))]
    pub timeout: Option<u64>,
}

pub struct FetchCall {
    format: Format,
    timeout: Duration,
}

pub struct WebFetch;

impl super::Tool for WebFetch {
    const NAME: &'static str = "webfetch";
    const EFFECT: Effect = Effect::External;
    const DESCRIPTION: &'static str = "Fetch an http(s) URL and return it as Markdown (default), plain text or HTML: documentation, an issue, an API reference. Text content only (an image or other binary is refused), at most 5 MiB; the result shows at most 20,000 characters, and when the page is longer `fullTextPath` names a workspace file with all of it (read it with read_file). Redirects are followed. Fetching a local or private-network address asks the user.";
    type Args = WebFetchArgs;
    type Call = FetchCall;

    fn prepare(a: WebFetchArgs, _: &PathPolicy) -> Result<Gated<FetchCall>, PrepareError> {
        let url = crate::net::parse_http_url(&a.url).map_err(PrepareError::Input)?;
        let secs = a.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS);
        if secs == 0 || secs > MAX_TIMEOUT_SECS {
            return Err(PrepareError::Input(format!(
                "timeout is in seconds, 1 to {MAX_TIMEOUT_SECS}"
            )));
        }
        let mut g = Gated::plain(FetchCall {
            format: a.format.unwrap_or_default(),
            timeout: Duration::from_secs(secs),
        });
        g.url = Some(url);
        Ok(g)
    }

    async fn run(call: FetchCall, ctx: &ToolCtx<'_>) -> ToolOutput {
        let Some(first) = ctx.net.cloned() else {
            return ToolOutput::err("unreachable", "the destination was not resolved");
        };
        tokio::select! {
            _ = ctx.cancel.cancelled() => ToolOutput::err("cancelled", "the run was cancelled"),
            out = fetch(first, &call, ctx, &ctx.paths.workspace) => out,
        }
    }
}

/// A page as fetched, before conversion.
struct Page {
    url: url::Url,
    status: u16,
    content_type: String,
    html: bool,
    text: String,
}

/// The whole fetch of one page with no gate (redirects refused): what the bench measures.
#[cfg(feature = "probe")]
pub async fn bench_fetch(url: &str, format: Format, root: &std::path::Path) -> ToolOutput {
    let Ok(url) = crate::net::parse_http_url(url) else {
        return ToolOutput::err("invalid_input", "not a URL");
    };
    let first = match crate::net::resolve(&url, &[]).await {
        Ok(t) => t,
        Err(e) => return ToolOutput::err("unreachable", e),
    };
    let call = FetchCall {
        format,
        timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
    };
    fetch(first, &call, &NoRedirects, root).await
}

/// How a redirect's destination is checked.
trait Reach: Sync {
    fn reach(&self, url: &url::Url) -> impl Future<Output = Result<Target, ToolOutput>> + Send;
}

/// In a run: resolved and passed through the gate.
impl Reach for ToolCtx<'_> {
    fn reach(&self, url: &url::Url) -> impl Future<Output = Result<Target, ToolOutput>> + Send {
        ToolCtx::reach(self, url)
    }
}

/// Without a gate: no redirect is followed.
#[cfg(feature = "probe")]
struct NoRedirects;

#[cfg(feature = "probe")]
impl Reach for NoRedirects {
    async fn reach(&self, url: &url::Url) -> Result<Target, ToolOutput> {
        Err(ToolOutput::err("redirect", format!("redirected to {url}")))
    }
}

/// Follow redirects (each through `reach`: the gate), read the body, convert, bound, cache.
async fn fetch(
    first: Target,
    call: &FetchCall,
    reach: &impl Reach,
    root: &std::path::Path,
) -> ToolOutput {
    // The time budget counts network time only: a redirect waiting for the user's approval
    // does not use it up.
    let mut budget = call.timeout;
    let mut target = first;
    let mut hops = 0;
    let page = loop {
        let started = Instant::now();
        let resp = match tokio::time::timeout(budget, send(&target, call.format)).await {
            Err(_) => return timed_out(call.timeout),
            Ok(Err(out)) => return out,
            Ok(Ok(r)) => r,
        };
        budget = budget.saturating_sub(started.elapsed());
        if resp.status().is_redirection()
            && let Some(loc) = resp.headers().get(LOCATION)
        {
            let loc = String::from_utf8_lossy(loc.as_bytes()).into_owned();
            let next = match target.url.join(&loc) {
                Ok(u) => u,
                Err(e) => {
                    return ToolOutput::err(
                        "bad_redirect",
                        format!("{} redirected to `{loc}`, not a URL: {e}", target.url),
                    );
                }
            };
            if let Err(e) = crate::net::check_http_url(&next) {
                return ToolOutput::err("bad_redirect", format!("{} redirected: {e}", target.url));
            }
            hops += 1;
            if hops > MAX_REDIRECTS {
                return ToolOutput::err(
                    "too_many_redirects",
                    format!("more than {MAX_REDIRECTS} redirects, the last to {next}"),
                );
            }
            target = match reach.reach(&next).await {
                Ok(t) => t,
                Err(out) => return out,
            };
            continue;
        }
        let started = Instant::now();
        match tokio::time::timeout(budget, read_page(resp, &target)).await {
            Err(_) => return timed_out(call.timeout),
            Ok(Err(out)) => return out,
            Ok(Ok(p)) => {
                budget = budget.saturating_sub(started.elapsed());
                break p;
            }
        }
    };
    let _ = budget;
    let format = call.format;
    let root = root.to_path_buf();
    match tokio::task::spawn_blocking(move || finish(page, format, &root)).await {
        Ok(out) => out,
        Err(e) => ToolOutput::err("internal", format!("conversion failed: {e}")),
    }
}

fn timed_out(t: Duration) -> ToolOutput {
    ToolOutput::err(
        "timeout",
        format!(
            "no complete response within {}s (pass a larger `timeout`, up to {MAX_TIMEOUT_SECS})",
            t.as_secs()
        ),
    )
}

/// One request to the checked addresses only, no redirect followed, no proxy.
async fn send(target: &Target, format: Format) -> Result<reqwest::Response, ToolOutput> {
    let mut b = crate::http_client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(Duration::from_secs(10))
        .user_agent(concat!(
            "Tradewind/",
            env!("CARGO_PKG_VERSION"),
            " (webfetch)"
        ));
    if let Some(d) = &target.domain {
        b = b.resolve_to_addrs(d, &target.addrs);
    }
    let client = b
        .build()
        .map_err(|e| ToolOutput::err("internal", format!("cannot build the client: {e}")))?;
    client
        .get(target.url.clone())
        .header(ACCEPT, format.accept())
        .send()
        .await
        .map_err(|e| ToolOutput::err("unreachable", format!("{}: {}", target.url, chain(&e))))
}

/// An error with its causes (reqwest's own message is often just "error sending request").
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Is this media type text a model can read?
fn is_text(essence: &str) -> bool {
    essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml") && !essence.starts_with("image/")
        || matches!(
            essence,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-sh"
                | "application/sql"
                | "application/graphql"
                | "application/x-ndjson"
        )
}

/// Status, size and type checks, then the body (at most 5 MiB), decoded.
async fn read_page(mut resp: reqwest::Response, target: &Target) -> Result<Page, ToolOutput> {
    let status = resp.status();
    let content_type = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_string();
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let declared = resp
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_RESPONSE_BYTES as u64) {
        return Err(too_large(&target.url));
    }
    if !essence.is_empty() && !is_text(&essence) {
        return Err(ToolOutput::err(
            "not_text",
            format!(
                "{} is {essence}, not text: webfetch reads text pages only (HTML, Markdown, plain text, JSON, XML)",
                target.url
            ),
        ));
    }
    let mut body: Vec<u8> = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(c)) => {
                if body.len() + c.len() > MAX_RESPONSE_BYTES {
                    return Err(too_large(&target.url));
                }
                body.extend_from_slice(&c);
            }
            Ok(None) => break,
            Err(e) => {
                return Err(ToolOutput::err(
                    "unreachable",
                    format!("{}: the response broke off: {}", target.url, chain(&e)),
                ));
            }
        }
    }
    if essence.is_empty() && body.iter().take(4096).any(|b| *b == 0) {
        return Err(ToolOutput::err(
            "not_text",
            format!(
                "{} has no content type and looks binary: webfetch reads text pages only",
                target.url
            ),
        ));
    }
    let text = decode(&body, &content_type);
    if !status.is_success() {
        let snippet = crate::util::truncate_str(text.trim(), 500);
        return Err(ToolOutput::err(
            "http_status",
            format!(
                "{} answered HTTP {}{}",
                target.url,
                status,
                if snippet.is_empty() {
                    String::new()
                } else {
                    format!(": {snippet}")
                }
            ),
        ));
    }
    let html = essence == "text/html"
        || essence == "application/xhtml+xml"
        || essence.is_empty() && looks_like_html(&text);
    Ok(Page {
        url: target.url.clone(),
        status: status.as_u16(),
        content_type: if content_type.is_empty() {
            "(none)".into()
        } else {
            content_type
        },
        html,
        text,
    })
}

fn too_large(url: &url::Url) -> ToolOutput {
    ToolOutput::err(
        "too_large",
        format!(
            "{url} is larger than {} MiB; webfetch refuses it",
            MAX_RESPONSE_BYTES / (1024 * 1024)
        ),
    )
}

fn looks_like_html(text: &str) -> bool {
    let head = crate::util::truncate_str(text.trim_start(), 512).to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html") || head.contains("<body")
}

/// Bytes to text with the charset the server named (UTF-8 otherwise; bad bytes replaced).
fn decode(body: &[u8], content_type: &str) -> String {
    let label = content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_string())
    });
    let enc = label
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    enc.decode(body).0.into_owned()
}

/// Convert, bound to 20,000 characters, keep the whole text in the cache when cut.
fn finish(page: Page, format: Format, root: &std::path::Path) -> ToolOutput {
    let (title, content) = convert(&page, format);
    let total = content.chars().count();
    let mut header = format!(
        "URL: {}\nStatus: {}\nContent-Type: {}\n",
        page.url, page.status, page.content_type
    );
    if let Some(t) = title.filter(|t| !t.is_empty()) {
        header.push_str(&format!("Title: {t}\n"));
    }
    let shown = if total > MAX_RESULT_CHARS {
        let rel = format!(
            "{CACHE_DIR}/{}.{}",
            &hex::encode(sha2::Sha256::digest(format!(
                "{}\n{}",
                page.url,
                format.ext()
            )))[..16],
            format.ext()
        );
        match write_cache(root, &rel, &content) {
            Ok(()) => header.push_str(&format!(
                "fullTextPath: {rel}\nTruncated: showing {MAX_RESULT_CHARS} of {total} characters; read fullTextPath with read_file for the rest.\n"
            )),
            Err(e) => header.push_str(&format!(
                "Truncated: showing {MAX_RESULT_CHARS} of {total} characters (the whole page could not be cached: {e}).\n"
            )),
        }
        let end = content
            .char_indices()
            .nth(MAX_RESULT_CHARS)
            .map_or(content.len(), |(i, _)| i);
        &content[..end]
    } else {
        content.as_str()
    };
    ToolOutput::ok(format!("{header}\n{shown}"))
}

/// The cache file, below the workspace without following links; its folder is kept out of git.
fn write_cache(root: &std::path::Path, rel: &str, content: &str) -> std::io::Result<()> {
    let ignore = root.join(".tradewind/cache/.gitignore");
    if crate::beneath::open_read(root, &ignore).is_err() {
        crate::beneath::atomic_write(root, &ignore, b"*\n")?;
    }
    crate::beneath::atomic_write(root, &root.join(rel), content.as_bytes())
}

/// The page as the format asks, and its title (HTML only).
fn convert(page: &Page, format: Format) -> (Option<String>, String) {
    if !page.html || format == Format::Html {
        let title = page.html.then(|| title_of_html(&page.text)).flatten();
        return (title, page.text.clone());
    }
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .build();
    let Ok(tree) = converter.html_to_tree(&page.text) else {
        return (None, page.text.clone());
    };
    let title = find_title(&tree);
    let body = match format {
        Format::Markdown => converter.tree_to_markdown(&tree),
        _ => plain_text(&tree),
    };
    (title, body)
}

/// Elements that are never content.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas",
    "head", "title", "meta", "link",
];

fn title_of_html(html: &str) -> Option<String> {
    let tree = htmd::HtmlToMarkdown::new().html_to_tree(html).ok()?;
    find_title(&tree)
}

fn find_title(node: &Rc<Node>) -> Option<String> {
    if let NodeData::Element { name, .. } = &node.data
        && name.local.as_ref() == "title"
    {
        let mut s = String::new();
        collect_text(node, &mut s);
        return Some(s.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    node.children.borrow().iter().find_map(find_title)
}

fn collect_text(node: &Rc<Node>, out: &mut String) {
    if let NodeData::Text { contents } = &node.data {
        out.push_str(&contents.borrow());
    }
    for c in node.children.borrow().iter() {
        collect_text(c, out);
    }
}

/// Elements after which plain text breaks the line.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "table",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "hr",
    "main",
    "aside",
    "figure",
    "figcaption",
    "form",
];

/// Minimal text extraction: text nodes in order, scripts and styles left out, a line break
/// after each block, runs of spaces and blank lines collapsed.
pub fn plain_text(root: &Rc<Node>) -> String {
    fn walk(node: &Rc<Node>, out: &mut String, pre: bool) {
        match &node.data {
            NodeData::Text { contents } => {
                let t = contents.borrow();
                if pre {
                    out.push_str(&t);
                } else {
                    let mut last_space = out.ends_with([' ', '\n']) || out.is_empty();
                    for ch in t.chars() {
                        if ch.is_whitespace() {
                            if !last_space {
                                out.push(' ');
                                last_space = true;
                            }
                        } else {
                            out.push(ch);
                            last_space = false;
                        }
                    }
                }
            }
            NodeData::Element { name, .. } => {
                let tag = name.local.as_ref();
                if SKIPPED.contains(&tag) {
                    return;
                }
                let pre = pre || tag == "pre";
                let block = BLOCKS.contains(&tag);
                if block && !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                // Table cells stay apart: a tab between them.
                if matches!(tag, "td" | "th") && !out.is_empty() && !out.ends_with(['\n', '\t']) {
                    out.push('\t');
                }
                for c in node.children.borrow().iter() {
                    walk(c, out, pre);
                }
                if block && !out.ends_with('\n') {
                    out.push('\n');
                }
            }
            NodeData::Document => {
                for c in node.children.borrow().iter() {
                    walk(c, out, pre);
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    walk(root, &mut out, false);
    let mut lines: Vec<&str> = Vec::new();
    for l in out.lines().map(|l| l.trim_end_matches([' ', '\t'])) {
        if l.trim().is_empty() && lines.last().is_none_or(|p| p.trim().is_empty()) {
            continue;
        }
        lines.push(l);
    }
    lines.join("\n").trim().to_string()
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn page(html: &str) -> Page {
        Page {
            url: url::Url::parse("https://docs.example/x").unwrap(),
            status: 200,
            content_type: "text/html; charset=utf-8".into(),
            html: true,
            text: html.into(),
        }
    }

    const DOC: &str = r#"<!doctype html><html><head><title> The  Guide </title>
        <style>body{color:red}</style><script>alert(1)</script></head><body>
        <h1>Install</h1><p>Run <code>cargo add x</code> first.</p>
        <pre><code class="language-rust">fn main() {
    println!("hi");
}</code></pre>
        <table><thead><tr><th>Flag</th><th>Meaning</th></tr></thead>
        <tbody><tr><td>-v</td><td>verbose</td></tr><tr><td>-q</td><td>quiet</td></tr></tbody></table>
        <noscript>enable js</noscript></body></html>"#;

    /// Tables and fenced code (with its language) survive; scripts and styles do not.
    #[test]
    fn markdown_keeps_tables_and_code() {
        let (title, md) = convert(&page(DOC), Format::Markdown);
        assert_eq!(title.as_deref(), Some("The Guide"));
        assert!(md.contains("# Install"), "{md}");
        assert!(
            md.contains("```rust\nfn main() {\n    println!(\"hi\");\n}\n```"),
            "{md}"
        );
        assert!(md.contains("| Flag | Meaning |"), "{md}");
        assert!(
            md.lines()
                .any(|l| l.starts_with("| -v ") && l.ends_with("| verbose |")),
            "{md}"
        );
        assert!(md.contains("| ---- | ------- |"), "{md}");
        assert!(!md.contains("alert") && !md.contains("color:red") && !md.contains("enable js"));
    }

    #[test]
    fn text_drops_markup_scripts_and_styles() {
        let (_, t) = convert(&page(DOC), Format::Text);
        assert!(t.starts_with("Install\nRun cargo add x first."), "{t}");
        assert!(t.contains("Flag\tMeaning\n-v\tverbose\n"), "{t}");
        assert!(
            t.contains("    println!(\"hi\");"),
            "pre keeps its spacing: {t}"
        );
        assert!(!t.contains('<') && !t.contains("alert") && !t.contains("color:red"));
        let (_, h) = convert(&page(DOC), Format::Html);
        assert_eq!(h, DOC);
    }

    #[test]
    fn long_pages_are_cut_and_cached_whole() {
        let root = std::env::temp_dir().join(format!("tw-webfetch-{}", crate::util::new_id()));
        std::fs::create_dir_all(&root).unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        let body = format!("<p>{}</p><p>THE-END</p>", "é".repeat(30_000));
        let out = finish(page(&body), Format::Markdown, &root);
        assert!(out.ok);
        assert!(!out.text.contains("THE-END"));
        let rel = out
            .text
            .lines()
            .find_map(|l| l.strip_prefix("fullTextPath: "))
            .unwrap()
            .to_string();
        assert!(rel.starts_with(".tradewind/cache/webfetch/") && rel.ends_with(".md"));
        let whole = std::fs::read_to_string(root.join(&rel)).unwrap();
        assert!(whole.ends_with("THE-END"));
        assert_eq!(whole.chars().filter(|c| *c == 'é').count(), 30_000);
        let shown = out.text.split_once("\n\n").unwrap().1;
        assert_eq!(shown.chars().count(), MAX_RESULT_CHARS);
        assert_eq!(
            std::fs::read_to_string(root.join(".tradewind/cache/.gitignore")).unwrap(),
            "*\n"
        );
        // A planted link is not followed: the cache is not written through it.
        let outside = root.with_extension("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::remove_dir_all(root.join(".tradewind")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".tradewind")).unwrap();
        let out = finish(page(&body), Format::Markdown, &root);
        assert!(out.text.contains("could not be cached"), "{}", out.text);
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        std::fs::remove_dir_all(&root).ok();
        std::fs::remove_dir_all(&outside).ok();
    }

    #[test]
    fn media_types_and_charsets() {
        for t in [
            "text/html",
            "text/plain",
            "application/json",
            "application/ld+json",
            "application/atom+xml",
        ] {
            assert!(is_text(t), "{t}");
        }
        for t in [
            "image/png",
            "image/svg+xml",
            "application/pdf",
            "application/octet-stream",
            "video/mp4",
        ] {
            assert!(!is_text(t), "{t}");
        }
        assert_eq!(decode(b"caf\xe9", "text/plain; charset=ISO-8859-1"), "café");
        assert_eq!(decode("café".as_bytes(), "text/plain"), "café");
    }
}
