//! `websearch`: a query to the provider the user chose:
//! SearXNG, DuckDuckGo Instant Answer, DuckDuckGo HTML, Tavily, Brave or SerpApi; with nothing
//! configured, a public SearXNG instance. Each provider's documented response becomes
//! `[{title, url, snippet, source, limitation?}]`.
//!
//! The provider comes from Settings (`PUT /api/settings/websearch`), else `websearch` in the
//! user's config.json; keys from Settings or the provider's environment variable. Endpoints are
//! the providers' own (or `websearch.endpoint` from the user's config); a configurable endpoint
//! off loopback must be https.

use std::rc::Rc;
use std::time::Duration;

use markup5ever_rcdom::{Node, NodeData};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::config::WebSearchSettings;
use crate::policy::paths::PathPolicy;
use crate::protocol::{
    Effect, SearchProvider, SearchProviderInfo, SettingsSource, WebSearchSettingsView,
};
use crate::store::Store;

/// Used when nothing is configured. Public instances often rate-limit automated requests; the
/// error then says how to choose another provider.
pub const DEFAULT_SEARXNG_URL: &str = "https://searx.be";
/// The stored choice (JSON) and key.
pub const SETTING_WEBSEARCH: &str = "websearch";
pub const SETTING_WEBSEARCH_KEY: &str = "websearch.api_key";
/// Results returned at most.
pub const MAX_RESULTS: usize = 10;
/// A search that takes longer fails.
const TIMEOUT: Duration = Duration::from_secs(20);
/// A response larger than this is refused.
const MAX_BODY: usize = 2 * 1024 * 1024;
const INSTANT_LIMITATION: &str = "DuckDuckGo Instant Answer only answers direct factual (encyclopedia-style) queries; few or no results do not mean the web has nothing";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    pub title: String,
    pub url: String,
    pub snippet: String,
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limitation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchArgs {
    /// What to search for, as you would type it into a search engine.
    #[schemars(length(min = 1, max = 400))]
    pub query: String,
}

pub struct WebSearch;

impl super::Tool for WebSearch {
    const NAME: &'static str = "websearch";
    const EFFECT: Effect = Effect::External;
    const DESCRIPTION: &'static str = "Search the web: returns up to 10 results as [{title, url, snippet, source}]. Use it to find documentation, error messages, releases; then read a page with webfetch. The query is sent to the search provider the user chose.";
    type Args = WebSearchArgs;
    type Call = String;

    fn prepare(a: WebSearchArgs, _: &PathPolicy) -> Result<Gated<String>, PrepareError> {
        let q = a.query.split_whitespace().collect::<Vec<_>>().join(" ");
        if q.is_empty() || q.chars().count() > 400 {
            return Err(PrepareError::Input(
                "the query needs 1 to 400 characters".into(),
            ));
        }
        Ok(Gated::plain(q))
    }

    async fn run(query: String, ctx: &ToolCtx<'_>) -> ToolOutput {
        // An enabled plugin's search first; on its failure the built-in provider, said so.
        let fell_back = match ctx.host.plugin_search(&query, ctx.cancel).await {
            None => None,
            Some(Ok((plugin, mut out))) => {
                out.text = format!("[searched by the plugin {plugin}]\n{}", out.text);
                return out;
            }
            Some(Err(why)) => Some(why),
        };
        let mut out = builtin(&query, ctx).await;
        if let Some(why) = fell_back {
            out.text = format!(
                "[{why}; searched with the built-in provider instead]\n{}",
                out.text
            );
        }
        out
    }
}

/// Nothing chosen: neither Settings nor config.json names a provider, a SearXNG instance or an
/// endpoint. The default would send queries to a public instance the user never picked.
pub fn unchosen(s: &WebSearchSettings) -> bool {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|x| x.trim().is_empty());
    blank(&s.provider) && blank(&s.searxng_url) && blank(&s.endpoint)
}

/// The public SearXNG instance offered when nothing is chosen.
fn offered(s: &WebSearchSettings) -> String {
    s.public_searxng_url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_SEARXNG_URL.to_string())
}

/// The session grant that records "not the public default" (asked once per session).
const DECLINED_DEFAULT: &str = "websearch-default-declined";
const USE_DEFAULT: &str = "Use the public SearXNG";
const UNAVAILABLE: &str = "web search is unavailable: no provider is chosen (websearch.provider). The user can choose one in Settings › Web search; continue without searching and do not call websearch again in this run";

/// With nothing chosen, a person decides once whether the public SearXNG default may take the
/// queries; yes is stored as the Settings choice (every session uses it from then on), no
/// leaves this session without web search. A headless run got here only with
/// `--allow-external` (the gate offers it nothing external otherwise): it uses the default. A
/// server's run that may not ask sends nothing.
async fn choose_default(ctx: &ToolCtx<'_>) -> Result<(), ToolOutput> {
    let t = ctx.host;
    let services = ctx.services();
    let offered = offered(&services.websearch.read());
    if !services.prompts.interactive {
        // A headless run: its searches go there; nothing is stored.
        services.websearch.write().searxng_url = Some(offered);
        return Ok(());
    }
    if !t.interactive() {
        // A server's run that may not ask (its limits say so): nobody chose, nothing is sent.
        return Err(ToolOutput::err("websearch_unavailable", UNAVAILABLE));
    }
    if t.grants_contain(DECLINED_DEFAULT) {
        return Err(ToolOutput::err("websearch_unavailable", UNAVAILABLE));
    }
    let pending = &services.prompts.questions;
    let call_id = crate::protocol::CallId::from(ctx.call_id);
    let asked = match pending.adopt(t.run_id(), &call_id, "") {
        Some(p) => pending.resume(&t.waiter(), p).await,
        None => {
            let id = crate::protocol::QuestionId::from(crate::util::new_id());
            let req = crate::pending::QuestionRequest {
                id: id.clone(),
                session_id: t.session().id.clone(),
                run_id: t.run_id().into(),
                call_id,
                questions: vec![crate::protocol::Question {
                    question: format!(
                        "The agent wants to search the web, and no search provider is chosen yet. Send its searches to the public SearXNG instance ({offered}), which will see every query?"
                    ),
                    header: Some("Web search".into()),
                    multi_select: false,
                    options: vec![
                        crate::protocol::QuestionOption {
                            label: USE_DEFAULT.into(),
                            description: Some(
                                "Kept as the web search provider; Settings › Web search can change it".into(),
                            ),
                            recommended: false,
                        },
                        crate::protocol::QuestionOption {
                            label: "Choose another provider".into(),
                            description: Some(
                                "Nothing is searched now; pick a provider in Settings › Web search".into(),
                            ),
                            recommended: false,
                        },
                    ],
                }],
            };
            pending.ask(&t.waiter(), &id, &req).await
        }
    };
    let yes = match asked {
        crate::pending::Asked::Answered(a) => a
            .first()
            .and_then(Option::as_ref)
            .is_some_and(|labels| labels.iter().any(|l| l == USE_DEFAULT)),
        crate::pending::Asked::Expired => false,
        crate::pending::Asked::Failed(e) => return Err(ToolOutput::err("internal", e)),
    };
    if yes {
        let stored = Stored {
            provider: SearchProvider::Searxng,
            searxng_url: Some(offered),
        };
        return store_choice(&services.store, &services.websearch, &stored)
            .await
            .map_err(|e| ToolOutput::err("internal", e));
    }
    let root = t.lineage().last().unwrap_or(&t.session().id);
    if let Err(e) = services.store.add_grant(root, DECLINED_DEFAULT).await {
        tracing::warn!(error = %e, "cannot keep the declined web search default");
    }
    services
        .live
        .grants_epoch
        .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    Err(ToolOutput::err("websearch_unavailable", UNAVAILABLE))
}

/// Store a Settings choice and use it from the next search on.
pub async fn store_choice(
    store: &Store,
    live: &parking_lot::RwLock<WebSearchSettings>,
    stored: &Stored,
) -> Result<(), crate::store::StoreError> {
    let json =
        serde_json::to_string(stored).map_err(|e| crate::store::StoreError::Other(e.into()))?;
    store.put_setting(SETTING_WEBSEARCH, &json).await?;
    let mut s = live.write();
    s.provider = Some(stored.provider.as_str().to_string());
    s.searxng_url = stored.searxng_url.clone();
    Ok(())
}

/// A search with the provider Settings or config.json chose.
async fn builtin(query: &str, ctx: &ToolCtx<'_>) -> ToolOutput {
    let deps = ctx.services();
    let unset = unchosen(&deps.websearch.read());
    if unset && let Err(out) = choose_default(ctx).await {
        return out;
    }
    let settings = deps.websearch.read().clone();
    let key = stored_key(&deps.store).await;
    let client = match CLIENT.get() {
        Ok(c) => c,
        Err(e) => return ToolOutput::err("search_failed", e),
    };
    let search = search(&client, &settings, key, query);
    let res = tokio::select! {
        _ = ctx.cancel.cancelled() => return ToolOutput::err("cancelled", "the run was cancelled"),
        r = tokio::time::timeout(TIMEOUT, search) => r,
    };
    match res {
        Err(_) => ToolOutput::err(
            "timeout",
            format!(
                "the search provider did not answer within {}s",
                TIMEOUT.as_secs()
            ),
        ),
        Ok(Err(e)) => ToolOutput::err("search_failed", e),
        Ok(Ok(results)) => {
            let mut out = ToolOutput::json(&results);
            if results.is_empty() {
                out.text.push_str("\nNo results.");
            }
            out
        }
    }
}

/// The client searches use: no proxy from the environment, bounded connects, no cookies.
pub const CLIENT: crate::http_client::Lazy = crate::http_client::Lazy(crate::http_client::Policy {
    connect_timeout: Duration::from_secs(10),
    timeout: None,
    redirects: 5,
    no_proxy: true,
    user_agent: Some(concat!(
        "Mozilla/5.0 (compatible; Tradewind/",
        env!("CARGO_PKG_VERSION"),
        ")"
    )),
});

/// The settings in use: Settings' stored choice over config.json's `websearch`.
pub async fn stored_settings(store: &Store, file: &WebSearchSettings) -> WebSearchSettings {
    let mut s = file.clone();
    if let Ok(Some(json)) = store.get_setting(SETTING_WEBSEARCH).await {
        match serde_json::from_str::<Stored>(&json) {
            Ok(st) => {
                s.provider = Some(st.provider.as_str().to_string());
                s.searxng_url = st.searxng_url;
            }
            Err(e) => {
                tracing::warn!(error = %e, "the stored web search setting is unreadable; config.json applies")
            }
        }
    }
    s
}

/// What `PUT /api/settings/websearch` stores.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    pub provider: SearchProvider,
    pub searxng_url: Option<String>,
}

pub async fn stored_key(store: &Store) -> Option<String> {
    store
        .get_secret(SETTING_WEBSEARCH_KEY)
        .await
        .ok()
        .flatten()
        .filter(|k| !k.is_empty())
}

/// The provider of a settings value (`None`: nothing chosen, the default SearXNG).
pub fn provider_of(s: &WebSearchSettings) -> Result<SearchProvider, String> {
    match s.provider.as_deref().map(str::trim) {
        None | Some("") => Ok(SearchProvider::Searxng),
        Some(p) => p.parse().map_err(|_| {
            format!(
                "websearch.provider `{p}` is not one of: searxng, duckduckgo-instant, duckduckgo-html, tavily, brave, serpapi, native"
            )
        }),
    }
}

/// The environment variable a provider's key is read from.
pub fn key_env(p: SearchProvider, s: &WebSearchSettings) -> Option<String> {
    let default = match p {
        SearchProvider::Tavily => "TAVILY_API_KEY",
        SearchProvider::Brave => "BRAVE_SEARCH_API_KEY",
        SearchProvider::Serpapi => "SERPAPI_API_KEY",
        _ => return None,
    };
    Some(
        s.api_key_env
            .clone()
            .filter(|e| !e.trim().is_empty())
            .unwrap_or_else(|| default.into()),
    )
}

fn public_endpoint(p: SearchProvider) -> &'static str {
    match p {
        SearchProvider::Searxng => DEFAULT_SEARXNG_URL,
        SearchProvider::DuckduckgoInstant => "https://api.duckduckgo.com/",
        SearchProvider::DuckduckgoHtml => "https://html.duckduckgo.com/html/",
        SearchProvider::Tavily => "https://api.tavily.com/search",
        SearchProvider::Brave => "https://api.search.brave.com/res/v1/web/search",
        SearchProvider::Serpapi => "https://serpapi.com/search.json",
        // Never searched from here (no `websearch` tool is offered): refused below.
        SearchProvider::Native => "",
    }
}

/// A configurable URL: http(s), and https unless its host is loopback (an SSRF guard: unlike
/// the fixed endpoints, it could point anywhere).
pub fn check_endpoint(raw: &str, what: &str) -> Result<url::Url, String> {
    let u = url::Url::parse(raw.trim()).map_err(|e| format!("{what} `{raw}` is not a URL: {e}"))?;
    let loopback = match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        None => return Err(format!("{what} `{raw}` has no host")),
    };
    match u.scheme() {
        "https" => Ok(u),
        "http" if loopback => Ok(u),
        "http" => Err(format!(
            "{what} `{raw}` must use https:// (plain http is allowed on loopback only)"
        )),
        other => Err(format!("{what} must be an http(s) URL, not `{other}:`")),
    }
}

/// The URL a search goes to.
fn endpoint(p: SearchProvider, s: &WebSearchSettings) -> Result<url::Url, String> {
    if let Some(e) = s.endpoint.as_deref().filter(|e| !e.trim().is_empty()) {
        return check_endpoint(e, "websearch.endpoint");
    }
    if p == SearchProvider::Searxng {
        let base = s
            .searxng_url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or(DEFAULT_SEARXNG_URL);
        let mut u = check_endpoint(base, "websearch.searxngUrl")?;
        let path = format!("{}/search", u.path().trim_end_matches('/'));
        u.set_path(&path);
        return Ok(u);
    }
    url::Url::parse(public_endpoint(p)).map_err(|e| e.to_string())
}

/// Run one search with the settings in use.
pub async fn search(
    client: &reqwest::Client,
    s: &WebSearchSettings,
    stored: Option<String>,
    query: &str,
) -> Result<Vec<SearchResult>, String> {
    let p = provider_of(s)?;
    if p == SearchProvider::Native {
        return Err("web search is the model provider's own (websearch.provider \"native\"): it is not done through this tool".into());
    }
    let url = endpoint(p, s)?;
    let key = match key_env(p, s) {
        None => None,
        Some(var) => Some(
            stored
                .or_else(|| crate::secret_env::var(&var).filter(|k| !k.is_empty()))
                .ok_or_else(|| {
                    format!(
                        "{} needs an API key: set {var} in the server's environment or store one in Settings → Web search",
                        p.as_str()
                    )
                })?,
        ),
    };
    let key = key.unwrap_or_default();
    let mut url = url;
    {
        let mut q = url.query_pairs_mut();
        let n = MAX_RESULTS.to_string();
        let pairs: &[(&str, &str)] = match p {
            SearchProvider::Searxng => &[("q", query), ("format", "json")],
            SearchProvider::DuckduckgoInstant => &[
                ("q", query),
                ("format", "json"),
                ("no_html", "1"),
                ("skip_disambig", "1"),
                ("no_redirect", "1"),
            ],
            SearchProvider::DuckduckgoHtml => &[("q", query)],
            SearchProvider::Tavily | SearchProvider::Native => &[],
            SearchProvider::Brave => &[("q", query), ("count", &n)],
            SearchProvider::Serpapi => &[
                ("engine", "google"),
                ("q", query),
                ("api_key", &key),
                ("num", &n),
            ],
        };
        q.extend_pairs(pairs);
    }
    if url.query() == Some("") {
        url.set_query(None);
    }
    let req = match p {
        SearchProvider::Tavily => client
            .post(url.clone())
            .bearer_auth(&key)
            .json(&serde_json::json!({"query": query, "max_results": MAX_RESULTS})),
        SearchProvider::Brave => client
            .get(url.clone())
            .header("X-Subscription-Token", &key)
            .header(reqwest::header::ACCEPT, "application/json"),
        _ => client.get(url.clone()),
    };
    let host = url.host_str().unwrap_or("").to_string();
    let resp = req.send().await.map_err(|e| {
        format!(
            "{} at {host} could not be reached: {e}{}",
            p.as_str(),
            hint(p)
        )
    })?;
    let status = resp.status();
    let body = read_bounded(resp).await?;
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        let why = match status.as_u16() {
            401 | 403 if key_env(p, s).is_some() => " (is the API key right?)",
            403 | 429 => " (rate-limited or blocked as a bot)",
            _ => "",
        };
        return Err(format!(
            "{} at {host} answered HTTP {status}{why}: {}{}",
            p.as_str(),
            crate::util::truncate_str(text.trim(), 300),
            hint(p)
        ));
    }
    let mut results = parse(p, &body)?;
    results.truncate(MAX_RESULTS);
    Ok(results)
}

/// What to do when a keyless provider fails.
fn hint(p: SearchProvider) -> &'static str {
    match p {
        SearchProvider::Searxng => {
            "; public SearXNG instances often refuse automated searches: choose duckduckgo-html in Settings → Web search, or point websearch.searxngUrl at your own instance (docker run -d -p 8080:8080 searxng/searxng)"
        }
        SearchProvider::DuckduckgoHtml => {
            "; DuckDuckGo may ask for a bot check after many searches: try again later or choose another provider in Settings → Web search"
        }
        _ => "",
    }
}

async fn read_bounded(mut resp: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(c) = resp
        .chunk()
        .await
        .map_err(|e| format!("the search response broke off: {e}"))?
    {
        if body.len() + c.len() > MAX_BODY {
            return Err("the search response is larger than 2 MiB".into());
        }
        body.extend_from_slice(&c);
    }
    Ok(body)
}

/// One provider's documented response → results.
pub fn parse(p: SearchProvider, body: &[u8]) -> Result<Vec<SearchResult>, String> {
    if p == SearchProvider::DuckduckgoHtml {
        return parse_ddg_html(&String::from_utf8_lossy(body));
    }
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| format!("{} did not answer JSON: {e}", p.as_str()))?;
    if let Some(err) = v.get("error").and_then(Value::as_str) {
        return Err(format!("{} answered an error: {err}", p.as_str()));
    }
    let src = p.as_str();
    let s = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let list = |v: &Value, path: &[&str]| -> Vec<Value> {
        let mut cur = v;
        for k in path {
            cur = &cur[*k];
        }
        cur.as_array().cloned().unwrap_or_default()
    };
    let make = |title: String, url: String, snippet: String| SearchResult {
        title: strip_tags(&title),
        url,
        snippet: strip_tags(&snippet),
        source: src.to_string(),
        limitation: None,
        diagnostic: None,
    };
    let results: Vec<SearchResult> = match p {
        SearchProvider::Searxng => list(&v, &["results"])
            .iter()
            .map(|r| make(s(r, "title"), s(r, "url"), s(r, "content")))
            .collect(),
        SearchProvider::Tavily => list(&v, &["results"])
            .iter()
            .map(|r| make(s(r, "title"), s(r, "url"), s(r, "content")))
            .collect(),
        SearchProvider::Brave => list(&v, &["web", "results"])
            .iter()
            .map(|r| make(s(r, "title"), s(r, "url"), s(r, "description")))
            .collect(),
        SearchProvider::Serpapi => list(&v, &["organic_results"])
            .iter()
            .map(|r| make(s(r, "title"), s(r, "link"), s(r, "snippet")))
            .collect(),
        SearchProvider::DuckduckgoInstant => {
            let mut out = Vec::new();
            let abs = s(&v, "AbstractText");
            if !abs.is_empty() {
                let title = [s(&v, "Heading"), s(&v, "AbstractSource")]
                    .into_iter()
                    .filter(|x| !x.is_empty())
                    .collect::<Vec<_>>()
                    .join(" — ");
                out.push(make(title, s(&v, "AbstractURL"), abs));
            }
            let answer = s(&v, "Answer");
            if !answer.is_empty() {
                out.push(make(s(&v, "AnswerType"), String::new(), answer));
            }
            let def = s(&v, "Definition");
            if !def.is_empty() {
                out.push(make(s(&v, "DefinitionSource"), s(&v, "DefinitionURL"), def));
            }
            let mut topics = list(&v, &["Results"]);
            for t in list(&v, &["RelatedTopics"]) {
                match t.get("Topics").and_then(Value::as_array) {
                    Some(sub) => topics.extend(sub.iter().cloned()),
                    None => topics.push(t),
                }
            }
            for t in topics {
                let text = s(&t, "Text");
                let url = s(&t, "FirstURL");
                if text.is_empty() || url.is_empty() {
                    continue;
                }
                let title = text.split(" - ").next().unwrap_or(&text).to_string();
                out.push(make(title, url, text));
            }
            for r in &mut out {
                r.limitation = Some(INSTANT_LIMITATION.into());
            }
            out
        }
        SearchProvider::DuckduckgoHtml | SearchProvider::Native => Vec::new(),
    };
    Ok(results
        .into_iter()
        .filter(|r| !r.url.is_empty() || !r.snippet.is_empty())
        .collect())
}

/// `<strong>x</strong> &amp; y` → `x & y` (Brave and SearXNG mark matches up).
fn strip_tags(s: &str) -> String {
    if !s.contains(['<', '&']) {
        return s.to_string();
    }
    let Ok(tree) = htmd::HtmlToMarkdown::new().html_to_tree(&format!("<p>{s}</p>")) else {
        return s.to_string();
    };
    let mut out = String::new();
    text_of(&tree, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn text_of(node: &Rc<Node>, out: &mut String) {
    if let NodeData::Text { contents } = &node.data {
        out.push_str(&contents.borrow());
    }
    for c in node.children.borrow().iter() {
        text_of(c, out);
    }
}

fn class_has(node: &Rc<Node>, class: &str) -> Option<String> {
    let NodeData::Element { attrs, .. } = &node.data else {
        return None;
    };
    let attrs = attrs.borrow();
    let classes = attrs
        .iter()
        .find(|a| a.name.local.as_ref() == "class")?
        .value
        .to_string();
    classes.split_whitespace().any(|c| c == class).then(|| {
        attrs
            .iter()
            .find(|a| a.name.local.as_ref() == "href")
            .map(|a| a.value.to_string())
            .unwrap_or_default()
    })
}

/// DuckDuckGo's HTML page: `a.result__a` (title, link through `/l/?uddg=`) followed by
/// `.result__snippet`; ads (links through `y.js`) are left out.
pub fn parse_ddg_html(html: &str) -> Result<Vec<SearchResult>, String> {
    fn walk(node: &Rc<Node>, out: &mut Vec<SearchResult>) {
        if let Some(href) = class_has(node, "result__a") {
            let mut title = String::new();
            text_of(node, &mut title);
            out.push(SearchResult {
                title: title.split_whitespace().collect::<Vec<_>>().join(" "),
                url: ddg_target(&href),
                snippet: String::new(),
                source: SearchProvider::DuckduckgoHtml.as_str().into(),
                limitation: None,
                diagnostic: None,
            });
            return;
        }
        if class_has(node, "result__snippet").is_some() {
            let mut snippet = String::new();
            text_of(node, &mut snippet);
            if let Some(last) = out.last_mut().filter(|r| r.snippet.is_empty()) {
                last.snippet = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
            }
            return;
        }
        for c in node.children.borrow().iter() {
            walk(c, out);
        }
    }
    let tree = htmd::HtmlToMarkdown::new()
        .html_to_tree(html)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    walk(&tree, &mut out);
    out.retain(|r| {
        !r.url.is_empty() && !r.url.contains("duckduckgo.com/y.js") && r.url.starts_with("http")
    });
    if out.is_empty() && (html.contains("anomaly-modal") || html.contains("challenge-form")) {
        return Err(format!(
            "DuckDuckGo asked for a bot check instead of answering{}",
            hint(SearchProvider::DuckduckgoHtml)
        ));
    }
    Ok(out)
}

/// `//duckduckgo.com/l/?uddg=https%3A%2F%2Fx&rut=…` → `https://x`.
fn ddg_target(href: &str) -> String {
    let abs = if href.starts_with("//") {
        format!("https:{href}")
    } else {
        href.to_string()
    };
    if let Ok(u) = url::Url::parse(&abs)
        && u.path() == "/l/"
        && let Some((_, target)) = u.query_pairs().find(|(k, _)| k == "uddg")
    {
        return target.into_owned();
    }
    abs
}

/// Every provider, as the Settings page lists them.
pub fn providers(s: &WebSearchSettings) -> Vec<SearchProviderInfo> {
    use strum::VariantArray;
    SearchProvider::VARIANTS
        .iter()
        .map(|&p| SearchProviderInfo {
            id: p,
            label: match p {
                SearchProvider::Searxng => "SearXNG",
                SearchProvider::DuckduckgoInstant => "DuckDuckGo Instant Answer",
                SearchProvider::DuckduckgoHtml => "DuckDuckGo (HTML)",
                SearchProvider::Tavily => "Tavily",
                SearchProvider::Brave => "Brave Search",
                SearchProvider::Serpapi => "SerpApi",
                SearchProvider::Native => "The model's provider (native)",
            }
            .into(),
            key_env: key_env(p, s),
            note: match p {
                SearchProvider::Searxng => "No key. Your own instance (docker run -d -p 8080:8080 searxng/searxng) or a public one; public instances often rate-limit automated searches.",
                SearchProvider::DuckduckgoInstant => "No key. Direct factual queries only (encyclopedia-style); an empty result does not mean nothing exists.",
                SearchProvider::DuckduckgoHtml => "No key. A real general web search from DuckDuckGo's HTML page; heavy use can trigger bot checks.",
                SearchProvider::Tavily => "Needs a key (free tier without a card).",
                SearchProvider::Brave => "Needs a key (a card; about 1,000 queries a month on the free credit).",
                SearchProvider::Serpapi => "Needs a key; see SerpApi's pricing.",
                SearchProvider::Native => "No key here: the model's provider searches on its side and bills it. Only with OpenAI's Responses API (apiMode \"responses\") or Anthropic; with any other provider the model has no web search. Asked once per session unless external calls run without asking.",
            }
            .into(),
        })
        .collect()
}

/// What `GET /api/settings/websearch` shows.
pub fn view(
    s: &WebSearchSettings,
    source: SettingsSource,
    key_stored: bool,
) -> WebSearchSettingsView {
    let p = provider_of(s).unwrap_or(SearchProvider::Searxng);
    let env = key_env(p, s);
    WebSearchSettingsView {
        provider: p,
        searxng_url: s
            .searxng_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| offered(s)),
        endpoint: s.endpoint.clone(),
        api_key_set: env.is_some()
            && (key_stored
                || env
                    .as_deref()
                    .is_some_and(|v| crate::secret_env::var(v).is_some_and(|k| !k.is_empty()))),
        key_env: env,
        source,
        providers: providers(s),
        native_tool_type: s.native_tool_type.clone().filter(|t| !t.trim().is_empty()),
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn endpoints_off_loopback_need_https() {
        assert!(check_endpoint("http://localhost:8080", "x").is_ok());
        assert!(check_endpoint("http://127.0.0.1:8080", "x").is_ok());
        assert!(check_endpoint("http://[::1]:8080", "x").is_ok());
        assert!(check_endpoint("https://search.example", "x").is_ok());
        assert!(check_endpoint("http://search.example", "x").is_err());
        assert!(
            check_endpoint("http://2130706433:8080", "x").is_ok(),
            "loopback in disguise is loopback"
        );
        assert!(check_endpoint("ftp://x", "x").is_err());
        let s = WebSearchSettings {
            searxng_url: Some("http://127.0.0.1:8080/searx/".into()),
            ..Default::default()
        };
        assert_eq!(
            endpoint(SearchProvider::Searxng, &s).unwrap().as_str(),
            "http://127.0.0.1:8080/searx/search"
        );
        let bad = WebSearchSettings {
            provider: Some("bing".into()),
            ..Default::default()
        };
        assert!(provider_of(&bad).unwrap_err().contains("not one of"));
    }

    #[test]
    fn duckduckgo_html_results_and_bot_checks() {
        let html = r#"<div class="results">
          <div class="result results_links result--ad"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=x">Ad</a>
            <a class="result__snippet">buy</a></div>
          <div class="result results_links"><h2 class="result__title">
            <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.rs%2Ftokio&amp;rut=abc">tokio - <b>Rust</b></a></h2>
            <a class="result__snippet" href="x">A runtime for <b>writing</b> reliable apps.</a></div>
        </div>"#;
        let r = parse_ddg_html(html).unwrap();
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].title, "tokio - Rust");
        assert_eq!(r[0].url, "https://docs.rs/tokio");
        assert_eq!(r[0].snippet, "A runtime for writing reliable apps.");
        assert!(parse_ddg_html("<form id=\"challenge-form\"></form>").is_err());
        assert!(parse_ddg_html("<p>No results.</p>").unwrap().is_empty());
    }

    #[test]
    fn instant_answers_carry_their_limitation() {
        let body = serde_json::json!({
            "Heading": "Rust (programming language)",
            "AbstractText": "Rust is a general-purpose language.",
            "AbstractSource": "Wikipedia",
            "AbstractURL": "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            "Results": [],
            "RelatedTopics": [
                {"Text": "Cargo - Rust's package manager", "FirstURL": "https://duckduckgo.com/Cargo"},
                {"Name": "See also", "Topics": [{"Text": "Ferris - the mascot", "FirstURL": "https://duckduckgo.com/Ferris"}]}
            ]
        });
        let r = parse(
            SearchProvider::DuckduckgoInstant,
            body.to_string().as_bytes(),
        )
        .unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].title, "Rust (programming language) — Wikipedia");
        assert_eq!(r[2].title, "Ferris");
        assert!(r.iter().all(|x| x.limitation.is_some()));
        let brave = serde_json::json!({"web": {"results": [{"title": "A <strong>b</strong>", "url": "https://a.example", "description": "x &amp; <strong>y</strong>"}]}});
        let r = parse(SearchProvider::Brave, brave.to_string().as_bytes()).unwrap();
        assert_eq!(
            (r[0].title.as_str(), r[0].snippet.as_str()),
            ("A b", "x & y")
        );
        let err = parse(SearchProvider::Serpapi, br#"{"error":"Invalid API key."}"#).unwrap_err();
        assert!(err.contains("Invalid API key"));
    }
}
