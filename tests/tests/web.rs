//! `webfetch` and `websearch` end to end: the real streaming client calls them, the gate decides
//! (private addresses ask even with `--allow-external` in `full` mode), pages come from local
//! servers on loopback, and each search provider's documented response shape is served by a
//! local fake. Nothing here leaves the machine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};
use tradewind::config::{Ceiling, WebSearchSettings};
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

const DOC: &str = r#"<!doctype html><html><head><title>Flags</title><script>alert(1)</script></head>
<body><h1>Flags</h1><table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>
<pre><code class="language-sh">cargo run -- -v</code></pre></body></html>"#;

/// A local site: a documentation page, a long page, a large one, an image, a redirect to
/// `localhost` (another origin, loopback), and a request counter.
async fn site(hits: Arc<AtomicUsize>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let counted = |hits: Arc<AtomicUsize>, body: &'static str| {
        move || {
            hits.fetch_add(1, Ordering::SeqCst);
            async move { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body) }
        }
    };
    let app = Router::new()
        .route("/doc", get(counted(hits.clone(), DOC)))
        .route(
            "/long",
            get(|| async {
                let body = format!("<p>{}</p><p>THE-END</p>", "word ".repeat(8_000));
                ([(header::CONTENT_TYPE, "text/html")], body)
            }),
        )
        .route(
            "/big",
            get(|| async { ([(header::CONTENT_TYPE, "text/plain")], "x".repeat(6 << 20)) }),
        )
        .route(
            "/img",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "image/png")],
                    vec![0x89u8, b'P', b'N', b'G'],
                )
            }),
        )
        .route(
            "/redir",
            get(move || async move {
                (
                    StatusCode::FOUND,
                    [(header::LOCATION, format!("http://localhost:{port}/doc"))],
                )
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    format!("http://127.0.0.1:{port}")
}

fn external() -> Ceiling {
    Ceiling {
        external: true,
        ..Ceiling::default()
    }
}

async fn server(mock_url: String, opts: Opts) -> TestServer {
    TestServer::start(Opts {
        openai: Some(mock_url),
        ceiling: external(),
        ..opts
    })
    .await
}

fn last_result(events: &[Value]) -> Value {
    of_type(events, "tool_result")
        .last()
        .cloned()
        .cloned()
        .unwrap()
}

/// An allowed host is fetched without asking in `full` mode with `--allow-external`: Markdown
/// keeps the table and the code block, a long page is cut at 20,000 characters with the whole
/// text cached in the workspace, and oversized or binary responses are refused clearly.
#[tokio::test]
async fn webfetch_reads_allowed_pages_as_markdown() {
    let hits = Arc::new(AtomicUsize::new(0));
    let base = site(hits.clone()).await;
    let mock = Mock::default();
    let s = server(
        mock.serve().await,
        Opts {
            webfetch_allow: vec![base.clone()],
            ..Opts::default()
        },
    )
    .await;
    let sid = s.create_session("full").await;
    let calls = [
        json!({"url": format!("{base}/doc")}),
        json!({"url": format!("{base}/long")}),
        json!({"url": format!("{base}/big")}),
        json!({"url": format!("{base}/img")}),
        json!({"url": format!("{base}/doc"), "format": "text"}),
    ];
    for (i, c) in calls.iter().enumerate() {
        mock.push(tool_reply(&format!("f{i}"), "webfetch", c));
    }
    mock.push(text_reply("read"));
    let run = s.prompt(&sid, "read the docs").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    assert!(of_type(&events, "approval_requested").is_empty());
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 5);
    let md = results[0]["text"].as_str().unwrap();
    assert_eq!(results[0]["ok"], true, "{md}");
    assert!(md.contains("Title: Flags"), "{md}");
    assert!(md.contains("| Flag | Meaning |"), "{md}");
    assert!(md.contains("```sh\ncargo run -- -v\n```"), "{md}");
    assert!(!md.contains("alert(1)"));
    let long = results[1]["text"].as_str().unwrap();
    let rel = long
        .lines()
        .find_map(|l| l.strip_prefix("fullTextPath: "))
        .unwrap_or_else(|| panic!("no fullTextPath: {}", &long[..300]));
    assert!(!long.contains("THE-END"));
    let whole = std::fs::read_to_string(s.workspace.path().join(rel)).unwrap();
    assert!(whole.ends_with("THE-END"), "the cache has the whole page");
    assert_eq!(results[2]["ok"], false);
    assert!(
        results[2]["text"]
            .as_str()
            .unwrap()
            .contains("larger than 5 MiB")
    );
    assert_eq!(results[3]["ok"], false);
    assert!(
        results[3]["text"]
            .as_str()
            .unwrap()
            .contains("image/png, not text")
    );
    let text = results[4]["text"].as_str().unwrap();
    assert!(text.contains("Flag\tMeaning\n-v\tverbose"), "{text}");
    assert!(!text.contains('<'));
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    s.stop().await;
}

/// SSRF: loopback in disguise (`2130706433`) asks even in `full` mode with `--allow-external`,
/// naming the address and showing the query string; a denial sends nothing; a redirect from an
/// allowed host to `localhost` (another origin) asks again before it is followed.
#[tokio::test]
async fn webfetch_asks_before_reaching_a_private_address() {
    let hits = Arc::new(AtomicUsize::new(0));
    let base = site(hits.clone()).await;
    let port = base.rsplit(':').next().unwrap().to_string();
    let other_hits = Arc::new(AtomicUsize::new(0));
    let other = site(other_hits.clone()).await;
    let other_port = other.rsplit(':').next().unwrap().to_string();
    let mock = Mock::default();
    let s = server(
        mock.serve().await,
        Opts {
            webfetch_allow: vec![base.clone()],
            ..Opts::default()
        },
    )
    .await;
    let sid = s.create_session("full").await;
    mock.push(tool_reply(
        "p1",
        "webfetch",
        &json!({"url": format!("http://2130706433:{other_port}/doc?token=abc")}),
    ));
    mock.push(text_reply("ok"));
    let run = s.prompt(&sid, "fetch").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(ask["tool"], "webfetch");
    let reason = ask["reason"].as_str().unwrap();
    assert!(reason.contains("non-public address"), "{reason}");
    assert!(reason.contains("127.0.0.1 (loopback)"), "{reason}");
    let warnings = ask["warnings"].to_string();
    assert!(
        warnings.contains("?token=abc"),
        "query string shown: {warnings}"
    );
    let aid = ask["approval_id"].as_str().unwrap();
    let (st, _) = s
        .post(
            &format!("/api/approvals/{aid}"),
            json!({"decision": "deny"}),
        )
        .await;
    assert_eq!(st, 200);
    s.wait_run_finished(&sid, &run).await;
    assert_eq!(
        other_hits.load(Ordering::SeqCst),
        0,
        "a denied fetch sends nothing"
    );
    let r = last_result(&s.events(&sid).await);
    assert_eq!(r["ok"], false);

    // An allowed origin redirects to localhost: the hop asks, then is followed.
    mock.push(tool_reply(
        "p2",
        "webfetch",
        &json!({"url": format!("{base}/redir")}),
    ));
    mock.push(text_reply("ok"));
    let run = s.prompt(&sid, "fetch again").await;
    let ask = s
        .wait_event(&sid, |e| {
            e["type"] == "approval_requested" && e["call_id"] == "p2"
        })
        .await;
    assert_eq!(ask["input"]["url"], format!("http://localhost:{port}/doc"));
    assert!(
        ask["input"]["redirectedFrom"]
            .as_str()
            .unwrap()
            .ends_with("/redir")
    );
    assert!(
        ask["reason"].as_str().unwrap().contains("loopback"),
        "{ask}"
    );
    let aid = ask["approval_id"].as_str().unwrap();
    s.post(
        &format!("/api/approvals/{aid}"),
        json!({"decision": "once"}),
    )
    .await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed");
    let r = last_result(&s.events(&sid).await);
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("URL: http://localhost:{port}/doc"))
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    s.stop().await;
}

/// What the fake search server saw.
#[derive(Default)]
struct Seen {
    requests: parking_lot::Mutex<Vec<(String, String, HeaderMap, String)>>,
}

/// One endpoint answering in the documented shape of whichever provider's request it gets.
async fn fake_search(seen: Arc<Seen>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handler = move |method: axum::http::Method,
                        uri: axum::http::Uri,
                        headers: HeaderMap,
                        body: String| {
        let seen = seen.clone();
        async move {
            let q = uri.query().unwrap_or("").to_string();
            seen.requests.lock().push((
                method.to_string(),
                q.clone(),
                headers.clone(),
                body.clone(),
            ));
            let has = |k: &str| q.split('&').any(|p| p.starts_with(k));
            if q.contains("q=blocked") {
                return (StatusCode::TOO_MANY_REQUESTS, "Too Many Requests").into_response();
            }
            if method == axum::http::Method::POST {
                // Tavily
                return axum::Json(json!({"query": "x", "results": [
                    {"title": "Tokio tutorial", "url": "https://tokio.rs/tokio/tutorial", "content": "Learn async Rust", "score": 0.9}
                ]})).into_response();
            }
            if headers.contains_key("x-subscription-token") {
                return axum::Json(json!({"type": "search", "web": {"results": [
                    {"title": "<strong>Tokio</strong> docs", "url": "https://docs.rs/tokio", "description": "An <strong>async</strong> runtime"}
                ]}})).into_response();
            }
            if has("engine=google") {
                return axum::Json(json!({"search_metadata": {"status": "Success"}, "organic_results": [
                    {"position": 1, "title": "tokio - crates.io", "link": "https://crates.io/crates/tokio", "snippet": "A runtime"}
                ]})).into_response();
            }
            if has("no_html=1") {
                return axum::Json(json!({"Heading": "Tokio", "AbstractText": "Tokio is a runtime.", "AbstractSource": "Wikipedia",
                    "AbstractURL": "https://en.wikipedia.org/wiki/Tokio", "Results": [], "RelatedTopics": []})).into_response();
            }
            if has("format=json") {
                return axum::Json(json!({"query": "x", "results": [
                    {"title": "Tokio", "url": "https://tokio.rs/", "content": "Build reliable network applications", "engine": "duckduckgo"}
                ]})).into_response();
            }
            (
                [(header::CONTENT_TYPE, "text/html")],
                r#"<div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgithub.com%2Ftokio-rs%2Ftokio&rut=1">tokio-rs/tokio</a>
                <a class="result__snippet">A runtime for writing reliable asynchronous applications</a></div>"#,
            )
                .into_response()
        }
    };
    let app = Router::new().route("/search", axum::routing::any(handler));
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    format!("http://127.0.0.1:{port}/search")
}

/// Every provider: chosen through Settings, its request made as its API documents (key in the
/// right place), its response mapped to `{title, url, snippet, source}`; a refusal is a clear
/// error with what to do; a plain-http SearXNG URL off loopback is refused.
#[tokio::test]
async fn websearch_uses_the_chosen_provider() {
    let seen = Arc::new(Seen::default());
    let endpoint = fake_search(seen.clone()).await;
    let mock = Mock::default();
    let s = server(
        mock.serve().await,
        Opts {
            websearch: Some(WebSearchSettings {
                endpoint: Some(endpoint.clone()),
                ..WebSearchSettings::default()
            }),
            ..Opts::default()
        },
    )
    .await;
    let (st, v) = s.get("/api/settings/websearch").await;
    assert_eq!(st, 200);
    assert_eq!(v["provider"], "searxng");
    assert_eq!(v["source"], "default");
    assert_eq!(v["endpoint"], endpoint);
    assert_eq!(v["providers"].as_array().unwrap().len(), 7);
    let (st, v) = s
        .send(
            reqwest::Method::PUT,
            "/api/settings/websearch",
            json!({"provider": "searxng", "searxng_url": "http://search.example"}),
        )
        .await;
    assert_eq!(st, 422, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("https://"));

    let sid = s.create_session("full").await;
    let cases = [
        ("searxng", None, "https://tokio.rs/"),
        (
            "duckduckgo-instant",
            None,
            "https://en.wikipedia.org/wiki/Tokio",
        ),
        ("duckduckgo-html", None, "https://github.com/tokio-rs/tokio"),
        (
            "tavily",
            Some("tvly-KEY"),
            "https://tokio.rs/tokio/tutorial",
        ),
        ("brave", Some("BRAVE-KEY"), "https://docs.rs/tokio"),
        (
            "serpapi",
            Some("SERP-KEY"),
            "https://crates.io/crates/tokio",
        ),
    ];
    for (i, (provider, key, url)) in cases.iter().enumerate() {
        let mut body = json!({"provider": provider});
        if let Some(k) = key {
            body["api_key"] = json!(k);
        }
        let (st, v) = s
            .send(reqwest::Method::PUT, "/api/settings/websearch", body)
            .await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["source"], "settings");
        assert_eq!(v["api_key_set"], key.is_some(), "{v}");
        mock.push(tool_reply(
            &format!("s{i}"),
            "websearch",
            &json!({"query": "tokio runtime"}),
        ));
        mock.push(text_reply("found"));
        let run = s.prompt(&sid, "search").await;
        let fin = s.wait_run_finished(&sid, &run).await;
        assert_eq!(fin["status"], "completed", "{provider}: {fin}");
        let r = last_result(&s.events(&sid).await);
        assert_eq!(r["ok"], true, "{provider}: {r}");
        let results: Value = serde_json::from_str(
            r["text"]
                .as_str()
                .unwrap()
                .split("\nNo results.")
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(results[0]["url"], *url, "{provider}: {results}");
        assert_eq!(results[0]["source"], *provider);
        assert!(!results[0]["title"].as_str().unwrap().contains('<'));
        if *provider == "duckduckgo-instant" {
            assert!(
                results[0]["limitation"]
                    .as_str()
                    .unwrap()
                    .contains("factual")
            );
        }
        let req = seen.requests.lock().last().cloned().unwrap();
        let (method, query, headers, body) = req;
        assert!(
            query.contains("tokio") || body.contains("tokio"),
            "{provider}: the query was sent"
        );
        match *provider {
            "tavily" => {
                assert_eq!(method, "POST");
                assert_eq!(headers["authorization"], "Bearer tvly-KEY");
            }
            "brave" => assert_eq!(headers["x-subscription-token"], "BRAVE-KEY"),
            "serpapi" => assert!(query.contains("api_key=SERP-KEY"), "{query}"),
            _ => assert!(headers.get("authorization").is_none()),
        }
    }

    // A refusal names the status and what to do.
    s.send(
        reqwest::Method::PUT,
        "/api/settings/websearch",
        json!({"provider": "searxng"}),
    )
    .await;
    mock.push(tool_reply("s9", "websearch", &json!({"query": "blocked"})));
    mock.push(text_reply("no luck"));
    let run = s.prompt(&sid, "search").await;
    s.wait_run_finished(&sid, &run).await;
    let r = last_result(&s.events(&sid).await);
    assert_eq!(r["ok"], false);
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("429") && text.contains("duckduckgo-html"),
        "{text}"
    );
    s.stop().await;
}

/// Without a stored key, a keyed provider reads the variable `websearch.apiKeyEnv` names; with
/// neither, the search fails with what to set.
#[tokio::test]
async fn websearch_keys_come_from_the_environment_or_settings() {
    let seen = Arc::new(Seen::default());
    let endpoint = fake_search(seen.clone()).await;
    let mock = Mock::default();
    let s = server(
        mock.serve().await,
        Opts {
            websearch: Some(WebSearchSettings {
                provider: Some("serpapi".into()),
                endpoint: Some(endpoint),
                api_key_env: Some("PATH".into()),
                ..WebSearchSettings::default()
            }),
            ..Opts::default()
        },
    )
    .await;
    let (_, v) = s.get("/api/settings/websearch").await;
    assert_eq!(v["source"], "config");
    assert_eq!(v["provider"], "serpapi");
    assert_eq!(v["key_env"], "PATH");
    assert_eq!(v["api_key_set"], true);
    let sid = s.create_session("full").await;
    mock.push(tool_reply("k1", "websearch", &json!({"query": "tokio"})));
    mock.push(text_reply("found"));
    let run = s.prompt(&sid, "search").await;
    s.wait_run_finished(&sid, &run).await;
    let r = last_result(&s.events(&sid).await);
    assert_eq!(r["ok"], true, "{r}");
    let (_, query, _, _) = seen.requests.lock().last().cloned().unwrap();
    let path = std::env::var("PATH").unwrap();
    let sent = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "api_key")
        .map(|(_, v)| v.into_owned());
    assert_eq!(sent.as_deref(), Some(path.as_str()));
    s.stop().await;
}

/// With no provider chosen, the first `websearch` asks once whether the public SearXNG default
/// may take the queries: "another provider" sends nothing and leaves the session without web
/// search (not asked again there); yes is stored as the Settings choice and searches from then
/// on, in every session, without asking. (The "public" instance here is a loopback one, set by
/// `websearch.publicSearxngUrl`.)
#[tokio::test]
async fn websearch_with_nothing_chosen_asks_once_before_the_public_default() {
    let seen = Arc::new(Seen::default());
    let endpoint = fake_search(seen.clone()).await;
    let public = endpoint.trim_end_matches("/search").to_string();
    let mock = Mock::default();
    let s = server(
        mock.serve().await,
        Opts {
            websearch: Some(WebSearchSettings {
                public_searxng_url: Some(public.clone()),
                ..WebSearchSettings::default()
            }),
            ..Opts::default()
        },
    )
    .await;
    let (_, v) = s.get("/api/settings/websearch").await;
    assert_eq!(v["source"], "default");
    let search = |i: usize| {
        mock.push(tool_reply(
            &format!("w{i}"),
            "websearch",
            &json!({"query": "tokio runtime"}),
        ));
        mock.push(text_reply("done"));
    };
    let asked = |events: &[Value]| of_type(events, "question_asked").len();
    let answer = |qid: String, label: &'static str| {
        let s = &s;
        async move {
            let (st, v) = s
                .post(
                    &format!("/api/questions/{qid}"),
                    json!({"answers": [[label]]}),
                )
                .await;
            assert_eq!(st, 200, "{v}");
        }
    };

    // Declined: nothing is sent, the model is told where the choice is made.
    let a = s.create_session("full").await;
    search(0);
    let run = s.prompt(&a, "search").await;
    let q = s.wait_event(&a, |e| e["type"] == "question_asked").await;
    let text = q["questions"][0]["question"].as_str().unwrap();
    assert!(text.contains(&public), "{text}");
    answer(
        q["question_id"].as_str().unwrap().into(),
        "Choose another provider",
    )
    .await;
    assert_eq!(s.wait_run_finished(&a, &run).await["status"], "completed");
    let r = last_result(&s.events(&a).await);
    assert_eq!(r["ok"], false);
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("Settings › Web search"),
        "{r}"
    );
    // Not asked again in this session, and still nothing sent.
    search(1);
    let run = s.prompt(&a, "search again").await;
    s.wait_run_finished(&a, &run).await;
    let events = s.events(&a).await;
    assert_eq!(asked(&events), 1);
    assert_eq!(last_result(&events)["ok"], false);
    assert!(seen.requests.lock().is_empty(), "no query left the server");
    let (_, v) = s.get("/api/settings/websearch").await;
    assert_eq!(v["source"], "default", "a refusal stores no choice");

    // Another session asks; yes is stored and this search goes out.
    let b = s.create_session("full").await;
    search(2);
    let run = s.prompt(&b, "search").await;
    let q = s.wait_event(&b, |e| e["type"] == "question_asked").await;
    answer(
        q["question_id"].as_str().unwrap().into(),
        "Use the public SearXNG",
    )
    .await;
    s.wait_run_finished(&b, &run).await;
    let r = last_result(&s.events(&b).await);
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["text"].as_str().unwrap().contains("https://tokio.rs/"));
    assert_eq!(seen.requests.lock().len(), 1);
    let (_, v) = s.get("/api/settings/websearch").await;
    assert_eq!(
        (v["source"].as_str(), v["provider"].as_str()),
        (Some("settings"), Some("searxng")),
        "{v}"
    );
    assert_eq!(v["searxng_url"], json!(public));

    // From then on, no session asks.
    let c = s.create_session("full").await;
    search(3);
    let run = s.prompt(&c, "search").await;
    s.wait_run_finished(&c, &run).await;
    let events = s.events(&c).await;
    assert_eq!(asked(&events), 0);
    assert_eq!(last_result(&events)["ok"], true);
    assert_eq!(seen.requests.lock().len(), 2);
    s.stop().await;
}
