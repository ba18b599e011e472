//! Web Push against a fake push service on loopback: a subscription is checked and stored, an
//! approval reaches it encrypted for that browser alone (RFC 8291) with a VAPID token signed by
//! the server's key (RFC 8292), a service that says "gone" loses its subscription, and a
//! revoked sign-in takes its subscriptions with it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use aws_lc_rs::{agreement, signature};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use serde_json::{Value, json};
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

/// What the fake push service received.
struct Received {
    name: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

type Inbox = tokio::sync::mpsc::UnboundedSender<Received>;

async fn receive(
    State(tx): State<Inbox>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: bytes::Bytes,
) -> StatusCode {
    let gone = name == "gone";
    let _ = tx.send(Received {
        name,
        headers,
        body: body.to_vec(),
    });
    if gone {
        StatusCode::GONE
    } else {
        StatusCode::CREATED
    }
}

/// A push service on loopback: `POST /push/{name}` (`gone` answers 410).
async fn push_service() -> (String, tokio::sync::mpsc::UnboundedReceiver<Received>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new()
        .route("/push/{name}", axum::routing::post(receive))
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), rx)
}

/// A browser's side of a subscription: its key pair and secret.
struct Browser {
    key: agreement::PrivateKey,
    auth: [u8; 16],
}

impl Browser {
    fn new(n: u8) -> Browser {
        Browser {
            key: agreement::PrivateKey::generate(&agreement::ECDH_P256).unwrap(),
            auth: [n; 16],
        }
    }

    fn subscription(&self, endpoint: &str) -> Value {
        json!({
            "endpoint": endpoint,
            "expirationTime": null,
            "keys": {
                "p256dh": B64.encode(self.key.compute_public_key().unwrap().as_ref()),
                "auth": B64.encode(self.auth),
            }
        })
    }

    fn open(&self, body: &[u8]) -> Value {
        let plain = tradewind::push::decrypt(&self.key, &self.auth, body).unwrap();
        serde_json::from_slice(&plain).unwrap()
    }
}

async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Received>) -> Received {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("the push service hears within 30 s")
        .unwrap()
}

/// The VAPID header: a JWT signed with the server's key for the push service's origin.
fn check_vapid(headers: &HeaderMap, public_key: &str, origin: &str) {
    let auth = headers["authorization"].to_str().unwrap();
    let rest = auth.strip_prefix("vapid t=").expect("vapid scheme");
    let (jwt, k) = rest.split_once(", k=").unwrap();
    assert_eq!(k, public_key);
    let (signed, sig) = jwt.rsplit_once('.').unwrap();
    let key = B64.decode(public_key).unwrap();
    signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, &key)
        .verify(signed.as_bytes(), &B64.decode(sig).unwrap())
        .expect("the token is signed by the server's key");
    let (header, claims) = signed.split_once('.').unwrap();
    let header: Value = serde_json::from_slice(&B64.decode(header).unwrap()).unwrap();
    assert_eq!(header["alg"], "ES256");
    let claims: Value = serde_json::from_slice(&B64.decode(claims).unwrap()).unwrap();
    assert_eq!(claims["aud"], origin);
    let exp = claims["exp"].as_i64().unwrap();
    let now = tradewind::util::now_ms() / 1000;
    assert!(exp > now && exp <= now + 24 * 3600, "{claims}");
    assert!(claims["sub"].as_str().unwrap().starts_with("mailto:"));
}

#[tokio::test]
async fn an_approval_reaches_a_closed_app_encrypted_and_signed() {
    let (mock, s) = with_scripted_model(tradewind::config::Ceiling::default()).await;
    let (base, mut inbox) = push_service().await;
    let (st, info) = s.get("/api/push").await;
    assert_eq!(st, 200, "{info}");
    let public_key = info["public_key"].as_str().unwrap().to_string();
    assert_eq!(B64.decode(&public_key).unwrap().len(), 65);
    assert_eq!(info["data"], json!([]));

    // Bad subscriptions are refused, each with its reason.
    let phone = Browser::new(1);
    for (bad, why) in [
        (phone.subscription("http://push.example/x"), "https"),
        (phone.subscription("ftp://127.0.0.1/x"), "https"),
        (
            json!({"endpoint": format!("{base}/push/a"), "keys": {"p256dh": "AAAA", "auth": B64.encode([1u8; 16])}}),
            "p256dh",
        ),
        (
            json!({"endpoint": format!("{base}/push/a"), "keys": {"p256dh": B64.encode([4u8; 65]), "auth": "AAAA"}}),
            "auth",
        ),
    ] {
        let (st, v) = s.post("/api/push/subscriptions", bad).await;
        assert_eq!(st, 422, "{v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(why), "{v}");
    }
    let (st, sub) = s
        .post(
            "/api/push/subscriptions",
            phone.subscription(&format!("{base}/push/phone")),
        )
        .await;
    assert_eq!(st, 201, "{sub}");
    assert_eq!(sub["origin"], base);
    assert_eq!(sub["current"], true);
    assert!(
        sub.get("endpoint").is_none(),
        "the endpoint is not shown back"
    );

    // An approval: the push service gets one encrypted notice, for this browser only.
    mock.push(tool_reply(
        "w1",
        "write_file",
        &json!({"path": "a.txt", "content": "a\n"}),
    ));
    mock.push(text_reply("Done."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write a").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    let got = next(&mut inbox).await;
    assert_eq!(got.name, "phone");
    assert_eq!(got.headers["content-encoding"], "aes128gcm");
    assert_eq!(got.headers["urgency"], "high");
    assert!(got.headers["ttl"].to_str().unwrap().parse::<u64>().unwrap() > 0);
    check_vapid(&got.headers, &public_key, &base);
    assert!(
        !String::from_utf8_lossy(&got.body).contains("write_file"),
        "the push service sees ciphertext only"
    );
    let notice = phone.open(&got.body);
    assert_eq!(notice["title"], "Tradewind needs you");
    assert!(
        notice["body"]
            .as_str()
            .unwrap()
            .starts_with("Approval needed: write_file"),
        "{notice}"
    );
    assert_eq!(notice["url"], format!("/s/{sid}"));
    assert_eq!(notice["session"], sid.as_str());
    assert_eq!(notice["tag"], ask["approval_id"]);
    assert!(
        tradewind::push::decrypt(&Browser::new(1).key, &phone.auth, &got.body).is_err(),
        "another browser cannot read it"
    );
    let aid = ask["approval_id"].as_str().unwrap();
    let (st, _) = s
        .post(
            &format!("/api/approvals/{aid}"),
            json!({"decision": "once"}),
        )
        .await;
    assert_eq!(st, 200);
    s.wait_run_finished(&sid, &run).await;

    // A push service that says the subscription is gone: it is forgotten.
    let old = Browser::new(2);
    let (st, _) = s
        .post(
            "/api/push/subscriptions",
            old.subscription(&format!("{base}/push/gone")),
        )
        .await;
    assert_eq!(st, 201);
    let (st, result) = s.post("/api/push/test", json!({})).await;
    assert_eq!(st, 200, "{result}");
    assert_eq!(result["sent"], 1, "{result}");
    assert_eq!(result["failed"].as_array().unwrap().len(), 1, "{result}");
    assert!(
        result["failed"][0]["error"]
            .as_str()
            .unwrap()
            .contains("410")
    );
    let mut names = vec![next(&mut inbox).await.name, next(&mut inbox).await.name];
    names.sort();
    assert_eq!(names, ["gone", "phone"]);
    let (_, info) = s.get("/api/push").await;
    let listed: Vec<&str> = info["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [sub["id"].as_str().unwrap()]);
    assert!(info["data"][0]["last_sent_at"].as_i64().is_some());

    // Registering the same endpoint again replaces its keys (a renewed subscription).
    let renewed = Browser::new(3);
    let (st, again) = s
        .post(
            "/api/push/subscriptions",
            renewed.subscription(&format!("{base}/push/phone")),
        )
        .await;
    assert_eq!(st, 201);
    assert_eq!(again["id"], sub["id"]);
    s.post("/api/push/test", json!({})).await;
    let got = next(&mut inbox).await;
    assert_eq!(renewed.open(&got.body)["title"], "Tradewind");

    let path = format!("/api/push/subscriptions/{}", sub["id"].as_str().unwrap());
    assert_eq!(
        s.send(reqwest::Method::DELETE, &path, json!({})).await.0,
        204
    );
    assert_eq!(
        s.send(reqwest::Method::DELETE, &path, json!({})).await.0,
        404
    );
    s.stop().await;
}

/// A subscription belongs to the sign-in that made it: revoking an API token deletes the
/// subscriptions registered with it.
#[tokio::test]
async fn a_revoked_sign_in_takes_its_subscriptions_with_it() {
    let (_mock, s) = with_scripted_model(tradewind::config::Ceiling::default()).await;
    let (base, _inbox) = push_service().await;
    let (st, tok) = s.post("/api/tokens", json!({"name": "laptop"})).await;
    assert_eq!(st, 201);
    let secret = tok["token"].as_str().unwrap();
    let r = s
        .http
        .post(s.url("/api/push/subscriptions"))
        .bearer_auth(secret)
        .json(&Browser::new(4).subscription(&format!("{base}/push/laptop")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let (_, info) = s.get("/api/push").await;
    assert_eq!(info["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        info["data"][0]["current"], false,
        "the server token did not make it"
    );
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/tokens/{}", tok["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(st, 204);
    let (_, info) = s.get("/api/push").await;
    assert_eq!(info["data"], json!([]));
    s.stop().await;
}
