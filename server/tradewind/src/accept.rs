//! The accept loop: HTTP/1 and HTTP/2 (with upgrades for the WebSocket) over hyper, with what
//! `axum::serve` does not offer against slow clients (SECURITY.md, the slowloris finding):
//! - a header-read timeout: a request's headers must arrive within `HEADER_TIMEOUT`;
//! - a cap per client (loopback is one client, IPv6 counts by /64: `net::client_key`) on
//!   connections that have not yet sent a first complete request (legitimate ones leave that
//!   state within milliseconds, a trickling attacker stays in it). A connection over the cap is
//!   not refused: it gets `OVER_CAP_HEADER_TIMEOUT` for its headers and is served only if it
//!   presents a valid session or token (`OverCap`, checked by the gate), so a local process
//!   holding places never locks the user's own browser out;
//! - accept errors (EMFILE) back off instead of spinning.
//!   The file-descriptor soft limit is raised at start (`raise_fd_limit`).
//!
//! With TLS the first byte decides: a TLS handshake (0x16) is completed within
//! `tls::HANDSHAKE_TIMEOUT` and served by the app; anything else is plain HTTP and gets the
//! redirect side (`http::plain_side_router`), never a hang. The pending-place cap and the
//! header timeout cover the handshake too.
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use parking_lot::Mutex;
use tokio::net::TcpListener;

/// A request's headers must be complete within this time.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections per client address still waiting for their first complete request.
pub const MAX_PENDING_PER_ADDRESS: usize = 64;
/// The header timeout of a connection over that cap.
pub const OVER_CAP_HEADER_TIMEOUT: Duration = Duration::from_secs(2);
/// Connections over the cap at once, all clients together (each lives at most
/// `OVER_CAP_HEADER_TIMEOUT` without a request).
const MAX_OVER_CAP: usize = 4096;

/// Marks the requests of a connection that came over its client's pending cap: the gate serves
/// them only with a valid session or token.
#[derive(Debug, Clone, Copy)]
pub struct OverCap;

/// Per-address count of connections that have not completed a request yet.
#[derive(Default)]
struct Pending(Mutex<HashMap<IpAddr, usize>>);

/// What a connection holds: a pending place (given back at its first request), or one of the
/// places over the cap (held while it lives).
enum Slot {
    Pending(
        #[expect(
            dead_code,
            reason = "held for its Drop: the place is given back with the connection"
        )]
        Place,
    ),
    OverCap(
        #[expect(
            dead_code,
            reason = "held for its Drop: the place is given back with the connection"
        )]
        OverCapPlace,
    ),
}

/// One of the `MAX_OVER_CAP` places, given back when dropped.
struct OverCapPlace(Arc<std::sync::atomic::AtomicUsize>);

impl OverCapPlace {
    fn take(count: &Arc<std::sync::atomic::AtomicUsize>) -> Option<OverCapPlace> {
        use std::sync::atomic::Ordering;
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_OVER_CAP).then_some(n + 1)
            })
            .ok()?;
        Some(OverCapPlace(count.clone()))
    }
}

impl Drop for OverCapPlace {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Holds one place in `Pending` until dropped (first request seen, or connection closed).
struct Place {
    pending: Arc<Pending>,
    ip: IpAddr,
}

impl Pending {
    fn try_take(self: &Arc<Self>, ip: IpAddr) -> Option<Place> {
        let ip = tradewind_core::net::client_key(ip);
        let mut m = self.0.lock();
        let n = m.entry(ip).or_insert(0);
        if *n >= MAX_PENDING_PER_ADDRESS {
            return None;
        }
        *n += 1;
        Some(Place {
            pending: self.clone(),
            ip,
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut m = self.pending.0.lock();
        if let Some(n) = m.get_mut(&self.ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

/// Raise the open-file soft limit to the hard limit (capped), so many clients and tasks do not
/// run out of descriptors at the default 1,024.
pub fn raise_fd_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut l = getrlimit(Resource::Nofile);
    let want = l.maximum.unwrap_or(1 << 20).min(1 << 20);
    if l.current.is_some_and(|c| c < want) {
        l.current = Some(want);
        if let Err(e) = setrlimit(Resource::Nofile, l) {
            tracing::debug!(error = %e, "cannot raise the open-file limit");
        }
    }
}

/// The TLS side of the listener: the acceptor and what plain-HTTP requests get.
pub struct TlsSide {
    pub acceptor: tokio_rustls::TlsAcceptor,
    pub plain: Router,
}

/// Serve `app` on `listener` until `shutdown` resolves, then let open requests finish (at most
/// 10 s).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Option<TlsSide>,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    builder.http2().timer(TokioTimer::new());
    let mut tight = builder.clone();
    tight.http1().header_read_timeout(OVER_CAP_HEADER_TIMEOUT);
    let builder = Arc::new(builder);
    let tight = Arc::new(tight);
    let over_cap = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tls = tls.map(Arc::new);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let pending: Arc<Pending> = Arc::default();
    tokio::pin!(shutdown);
    loop {
        let (tcp, addr) = tokio::select! {
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors or a transient error: wait a little, never spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (place, builder, wait) = match pending.try_take(addr.ip()) {
            Some(p) => (Slot::Pending(p), builder.clone(), HEADER_TIMEOUT),
            None => match OverCapPlace::take(&over_cap) {
                Some(o) => (Slot::OverCap(o), tight.clone(), OVER_CAP_HEADER_TIMEOUT),
                None => {
                    tracing::debug!(%addr, "too many connections without a request");
                    drop(tcp);
                    continue;
                }
            },
        };
        // TCP_NODELAY: frames and small responses go out at once instead of waiting on Nagle's
        // algorithm (with a client's delayed ACK that stalls a stream by ~40 ms).
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        let place = Arc::new(Mutex::new(Some(place)));
        let Some(tls) = tls.clone() else {
            let io = Conn::Tcp(tcp);
            spawn_conn(
                &builder,
                graceful.watcher(),
                io,
                app.clone(),
                addr,
                place,
                None,
            );
            continue;
        };
        let (builder, watcher, app) = (builder.clone(), graceful.watcher(), app.clone());
        tokio::spawn(async move {
            let mut first = [0u8; 1];
            let peeked = tokio::time::timeout(wait, tcp.peek(&mut first)).await;
            if !matches!(peeked, Ok(Ok(1))) {
                return;
            }
            if first[0] != 0x16 {
                let io = Conn::Tcp(tcp);
                spawn_conn(&builder, watcher, io, tls.plain.clone(), addr, place, None);
                return;
            }
            let handshake = tokio::time::timeout(
                crate::tls::HANDSHAKE_TIMEOUT.min(wait),
                tls.acceptor.accept(tcp),
            )
            .await;
            match handshake {
                Ok(Ok(stream)) => spawn_conn(&builder, watcher, stream, app, addr, place, None),
                Ok(Err(e)) => tracing::debug!(%addr, error = %e, "TLS handshake failed"),
                Err(_) => tracing::debug!(%addr, "TLS handshake timed out"),
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {}
    }
    Ok(())
}

/// A plain connection: TCP, or the state directory's socket. One type for both, so the HTTP
/// stack is compiled once for them (the binary's size).
enum Conn {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

impl tokio::io::AsyncRead for Conn {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Tcp(s) => std::pin::Pin::new(s).poll_read(cx, buf),
            Conn::Unix(s) => std::pin::Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl tokio::io::AsyncWrite for Conn {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Tcp(s) => std::pin::Pin::new(s).poll_write(cx, buf),
            Conn::Unix(s) => std::pin::Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Tcp(s) => std::pin::Pin::new(s).poll_write_vectored(cx, bufs),
            Conn::Unix(s) => std::pin::Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Conn::Tcp(s) => s.is_write_vectored(),
            Conn::Unix(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Tcp(s) => std::pin::Pin::new(s).poll_flush(cx),
            Conn::Unix(s) => std::pin::Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Tcp(s) => std::pin::Pin::new(s).poll_shutdown(cx),
            Conn::Unix(s) => std::pin::Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// Serve one connection (plain TCP, TLS, or the local socket) with `router`, watched for
/// graceful shutdown. `local`: a connection of the state directory's socket, whose requests
/// get the access token's authority (see [`serve_local`]).
fn spawn_conn<I>(
    builder: &Arc<Builder<TokioExecutor>>,
    watcher: hyper_util::server::graceful::Watcher,
    io: I,
    router: Router,
    addr: SocketAddr,
    place: Arc<Mutex<Option<Slot>>>,
    local: Option<Arc<str>>,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let svc = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
        // The first request's headers arrived: the connection no longer counts as pending.
        {
            let mut p = place.lock();
            if matches!(*p, Some(Slot::OverCap(_))) {
                req.extensions_mut().insert(OverCap);
            } else {
                p.take();
            }
        }
        if let Some(token) = &local {
            as_local_owner(req.headers_mut(), token);
        }
        req.extensions_mut().insert(ConnectInfo::<SocketAddr>(addr));
        let mut router = router.clone();
        async move { tower::Service::call(&mut router, req.map(axum::body::Body::new)).await }
    });
    let conn = builder
        .serve_connection_with_upgrades(TokioIo::new(io), svc)
        .into_owned();
    let conn = watcher.watch(conn);
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!(error = %e, "connection ended with an error");
        }
    });
}

/// A request of the local socket: whatever credentials it sent are dropped, and it carries the
/// access token, to this machine's name.
fn as_local_owner(h: &mut hyper::HeaderMap, token: &str) {
    h.remove(hyper::header::COOKIE);
    h.remove("x-tradewind-page");
    h.remove(hyper::header::ORIGIN);
    if let Ok(v) = hyper::header::HeaderValue::from_str(&format!("Bearer {token}")) {
        h.insert(hyper::header::AUTHORIZATION, v);
    }
    h.insert(
        hyper::header::HOST,
        hyper::header::HeaderValue::from_static("localhost"),
    );
}

/// The state directory's socket (`server.sock`, mode 0600 in the 0700 state directory): how
/// `tradewind run`, `sessions` and the other local commands reach the running server with no
/// credential written to disk. A connection is served only when its peer runs as the server's
/// own user (`SO_PEERCRED`); each of its requests then carries the access token's authority
/// (whatever credentials it sent are dropped first): the socket's mode, its folder and the peer
/// check are the credential. The jail never reaches it (the state directory is masked or not
/// bound, and the Landlock fallback makes no Unix socket).
pub async fn serve_local(
    listener: tokio::net::UnixListener,
    app: Router,
    token: Arc<str>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let builder = Arc::new(builder);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let me = rustix::process::geteuid().as_raw();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "accept on the local socket failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        match stream.peer_cred() {
            Ok(c) if c.uid() == me => {}
            other => {
                tracing::warn!(peer = ?other.map(|c| c.uid()), "a local connection from another user was refused");
                continue;
            }
        }
        let local = SocketAddr::from(([127, 0, 0, 1], 0));
        spawn_conn(
            &builder,
            graceful.watcher(),
            Conn::Unix(stream),
            app.clone(),
            local,
            Arc::default(),
            Some(token.clone()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_places_are_capped_per_address_and_given_back() {
        let p: Arc<Pending> = Arc::default();
        let a: IpAddr = [127, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let held: Vec<Place> = (0..MAX_PENDING_PER_ADDRESS)
            .filter_map(|_| p.try_take(a))
            .collect();
        assert_eq!(held.len(), MAX_PENDING_PER_ADDRESS);
        assert!(p.try_take(a).is_none(), "the cap holds");
        assert!(p.try_take(b).is_some(), "another address is not affected");
        assert!(
            p.try_take([127, 0, 0, 9].into()).is_none()
                && p.try_take(std::net::Ipv6Addr::LOCALHOST.into()).is_none(),
            "every loopback address is the same client"
        );
        drop(held);
        assert!(p.try_take(a).is_some(), "places come back");
        assert!(p.0.lock().len() <= 1);
    }
}
