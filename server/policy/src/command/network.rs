//! The network without a URL, and servers anyone can reach. Clients that name their server in
//! their own syntax (`psql -h HOST`, `mysql -hHOST`, `mongosh mongodb+srv://…`, `gpg
//! --recv-keys`), name lookups (`getent hosts NAME`, `resolvectl query NAME`: a name can carry
//! data out to whoever answers for its domain), and listeners bound to every interface (`vite
//! --host 0.0.0.0`, `node --inspect=0.0.0.0`, `python -m http.server`, `deno serve`), which let
//! anything that reaches this machine in — into a debugger, that is running code. All ask as
//! `Network`. A client of a server on this machine (no host, `localhost`, a loopback address, a
//! socket directory) does not.

use super::*;

/// Database clients: the programs, the options that take the server's host, and the URI schemes
/// of their connection strings.
#[rustfmt::skip]
const DB_CLIENTS: &[(&[&str], &[&str], &[&str])] = &[
    (&["psql", "pg_dump", "pg_dumpall", "pg_restore", "pg_basebackup", "pg_isready", "pg_receivewal", "pg_recvlogical", "createdb", "dropdb",
        "createuser", "dropuser", "vacuumdb", "reindexdb", "clusterdb", "pgbench", "pgcli"], &["-h", "--host"], &["postgres://", "postgresql://"]),
    (&["mysql", "mariadb", "mysqldump", "mariadb-dump", "mysqladmin", "mariadb-admin", "mysqlimport", "mysqlshow", "mysqlcheck", "mycli", "mysqlsh"],
        &["-h", "--host"], &["mysql://", "mysqlx://", "mariadb://"]),
    (&["redis-cli", "valkey-cli", "keydb-cli", "redis-benchmark"], &["-h", "-u"], &["redis://", "rediss://", "valkey://", "valkeys://"]),
    (&["mongosh", "mongo"], &["--host", "--uri"], &["mongodb://", "mongodb+srv://"]),
    (&["mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles"], &["-h", "--host", "--uri"],
        &["mongodb://", "mongodb+srv://"]),
    (&["clickhouse-client"], &["-h", "--host"], &["clickhouse://"]),
    (&["sqlcmd"], &["-S", "--server"], &[]),
];

/// `gpg` options that reach a key server (or fetch keys from the web).
#[rustfmt::skip]
const KEYSERVER: &[&str] = &["--recv-keys", "--receive-keys", "--recv-key", "--send-keys", "--send-key", "--search-keys", "--refresh-keys",
    "--fetch-keys", "--keyserver", "--keyserver-options", "--locate-keys", "--locate-external-keys", "--auto-key-locate", "--auto-key-retrieve"];

/// Servers that listen on every interface unless given a loopback address.
const OPEN_BY_DEFAULT: &[&str] = &["http-server", "live-server", "miniserve", "serve"];

/// What anyone reaching the machine could do is named in each listener reason.
const ALL_INTERFACES: &str = "listens on all network interfaces";

/// Is this host this machine (no host, `localhost`, loopback, a Unix socket directory)?
pub(super) fn local_host(h: &str) -> bool {
    let h = h.trim_start_matches('[').trim_end_matches(']');
    h.is_empty()
        || h.starts_with('/')
        || h.starts_with('@')
        || h.eq_ignore_ascii_case("localhost")
        || h.to_ascii_lowercase().ends_with(".localhost")
        || h == "ip6-localhost"
        || h == "::1"
        || h == "0:0:0:0:0:0:0:1"
        || h.strip_prefix("127.")
            .is_some_and(|r| r.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// The host of `host`, `host:port`, `[v6]:port` or a bare IPv6 address.
fn host_part(v: &str) -> &str {
    if let Some(r) = v.strip_prefix('[') {
        return r.split(']').next().unwrap_or(r);
    }
    match v.matches(':').count() {
        1 => v.split(':').next().unwrap_or(v),
        _ => v,
    }
}

/// Is this address (possibly with a port or a `tcp://` scheme) every interface of the machine?
fn every_interface(v: &str) -> bool {
    let v = v.split_once("://").map_or(v, |(_, r)| r);
    let v = v.split('/').next().unwrap_or(v);
    let h = host_part(v);
    matches!(h, "0.0.0.0" | "::" | "::0" | "0:0:0:0:0:0:0:0")
        || (h == "0" && v.len() > 2 && v.starts_with("0:"))
}

/// The hosts a connection string names: `scheme://[user@]host[:port][,host2…]/…` and libpq's
/// `host=… hostaddr=…` words.
fn uri_hosts<'s>(x: &'s str, schemes: &[&str], out: &mut Vec<&'s str>) {
    let l = x.to_ascii_lowercase();
    for s in schemes {
        if let Some(p) = l.find(s) {
            let rest = x.get(p + s.len()..).unwrap_or_default();
            let auth = rest.split(['/', '?']).next().unwrap_or_default();
            let hosts = auth.rsplit('@').next().unwrap_or_default();
            out.extend(hosts.split(',').map(host_part));
        }
    }
    for w in x.split_whitespace() {
        if let Some(v) = w
            .strip_prefix("host=")
            .or_else(|| w.strip_prefix("hostaddr="))
        {
            out.extend(v.split(',').map(|h| h.trim_matches(['\'', '"'])));
        }
    }
}

/// The servers a database client connects to, as its arguments name them.
fn db_hosts<'s>(n: &str, args: &'s [String]) -> Option<Vec<&'s str>> {
    let (_, opts, schemes) = DB_CLIENTS.iter().find(|(p, _, _)| p.contains(&n))?;
    let mut hosts = Vec::new();
    for (k, x) in args.iter().enumerate() {
        uri_hosts(x, schemes, &mut hosts);
        for o in opts.iter() {
            if x == o {
                let v = args.get(k + 1).map_or("", String::as_str);
                if !uri_scheme(v) {
                    hosts.extend(v.split(',').map(host_part));
                }
            } else if let Some(v) = x.strip_prefix(o).and_then(|r| {
                if o.starts_with("--") {
                    r.strip_prefix('=')
                } else {
                    Some(r.trim_start_matches('='))
                }
            }) && !uri_scheme(v)
            {
                hosts.extend(v.split(',').map(host_part));
            }
        }
    }
    if n == "mongosh" || n == "mongo" {
        // `mongosh host[:port]/db` names a server as its first operand.
        let first = first_pos(
            args,
            &[
                "--host",
                "--port",
                "-u",
                "--username",
                "-p",
                "--password",
                "--eval",
                "-f",
                "--file",
            ],
        );
        if let Some(f) =
            first.filter(|f| f.contains('/') && !f.contains("://") && !f.ends_with(".js"))
        {
            hosts.push(host_part(f.split('/').next().unwrap_or_default()));
        }
    }
    Some(hosts)
}

fn uri_scheme(v: &str) -> bool {
    v.contains("://")
}

/// Clients without a URL, name lookups and listeners.
#[rustfmt::skip]
pub(super) fn network(n: &str, f: &str, args: &[String], a: &mut Acc) {
    use Danger::Network;
    let who = q(n);
    if let Some(hosts) = db_hosts(n, args)
        && let Some(h) = hosts.iter().find(|h| !local_host(h))
    {
        a.flag(Network, format!("{who} connects to the database server {}", q(h)));
    }
    if n == "cqlsh" && let Some(h) = first_pos(args, &["-u", "-p", "-k", "-f", "-e", "--cqlversion", "--encoding", "--cqlshrc"]).filter(|h| !local_host(h)) {
        a.flag(Network, format!("{who} connects to the database server {}", q(h)));
    }
    if matches!(f, "gpg" | "gpgv") && args.iter().any(|x| KEYSERVER.iter().any(|o| long_is(x, o))) {
        a.flag(Network, format!("{who} reaches a key server"));
    }
    if n == "getent" {
        let db = next_operand(args, &["-s", "--service"]);
        let key = db.and_then(|k| args.get(k + 1));
        if let (Some(d), Some(key)) = (db.and_then(|k| args.get(k)), key)
            && matches!(d.as_str(), "hosts" | "ahosts" | "ahostsv4" | "ahostsv6" | "networks")
        {
            a.flag(Network, format!("{} resolves {} through DNS: the name itself can carry data out to its domain's server", q(&format!("getent {d}")), q(key)));
        }
    }
    if matches!(n, "resolvectl" | "systemd-resolve") {
        let sub = first_pos(args, &["-i", "--interface", "-p", "--protocol", "-t", "--type", "-c", "--class"]);
        if sub.is_some_and(|s| matches!(s, "query" | "resolve" | "service" | "openpgp" | "tlsa") || n == "systemd-resolve") {
            a.flag(Network, format!("{who} resolves names through DNS: a name can carry data out to its domain's server"));
        }
    }
    // Listeners.
    if n == "jupyter" && first_pos(args, &[]).is_some_and(|s| matches!(s, "notebook" | "lab" | "server" | "nbclassic" | "notebook-server"))
        || matches!(n, "jupyter-notebook" | "jupyter-lab" | "jupyter-server" | "jupyter-nbclassic")
        || (n == "marimo" && first_pos(args, &[]) == Some("edit"))
    {
        a.flag(Network, format!("{who} starts a server that runs any code sent to it"));
    }
    listeners(n, f, args, a);
}

/// A program that listens on every interface or opens a debugger to another address.
#[rustfmt::skip]
fn listeners(n: &str, f: &str, args: &[String], a: &mut Acc) {
    use Danger::Network;
    if TEXT_ONLY.contains(&n) { return; }
    let who = q(n);
    let node = matches!(f, "node" | "nodejs" | "deno" | "bun" | "ts-node" | "tsx" | "electron");
    for (k, x) in args.iter().enumerate() {
        // The inspector: `--inspect[-brk|-wait|-port]=[HOST:]PORT` (the default host is 127.0.0.1).
        let inspect = x.starts_with("--inspect") || (node && x.starts_with("--debug"));
        if inspect {
            let value = match x.split_once('=') {
                Some((_, v)) => Some(v),
                None if x == "--inspect-port" || x == "--debug-port" => args.get(k + 1).map(String::as_str),
                None => None,
            };
            let host = value.map(|v| if v.bytes().all(|b| b.is_ascii_digit()) { "" } else if v.contains(':') { host_part(v) } else { v });
            if let Some(h) = host.filter(|h| !local_host(h)) {
                let place = if every_interface(h) { "on all network interfaces".to_string() } else { format!("on {}", q(h)) };
                a.flag(Network, format!("{who} opens its debugger {place}: anyone who can reach it can run code in this process"));
                continue;
            }
        }
        let mut cands = vec![x.as_str()];
        if let Some((name, v)) = x.split_once('=') {
            cands.push(v);
            let name = name.trim_start_matches('-').to_ascii_lowercase();
            let address_option = ["ip", "host", "bind", "address", "addr", "listen"].iter().any(|o| name.ends_with(o));
            if address_option && v.trim_matches(['\'', '"']) == "*" {
                a.flag(Network, format!("{who} {ALL_INTERFACES} ({})", q(x)));
            }
        }
        if x.starts_with('-') && !x.starts_with("--") {
            cands.extend(x.char_indices().nth(2).and_then(|(p, _)| x.get(p..)));
        }
        if let Some(c) = cands.into_iter().find(|c| every_interface(c)) {
            a.flag(Network, format!("{who} {ALL_INTERFACES} ({}): anything that can reach this machine can connect to it", q(c)));
        }
        if x == "--host" && args.get(k + 1).is_none_or(|v| v.starts_with('-')) {
            a.flag(Network, format!("{who} {ALL_INTERFACES} (`--host` without an address)"));
        }
    }
    let loopback_given = args.iter().any(|x| { let v = x.split_once('=').map_or(x.as_str(), |(_, v)| v); local_host(host_part(v)) && !v.is_empty() && !v.starts_with('/') && v != "@" });
    let open = OPEN_BY_DEFAULT.contains(&n)
        || (n == "streamlit" && first_pos(args, &[]) == Some("run"))
        // `deno serve` binds 0.0.0.0 unless `--host` names another address.
        || (f == "deno" && pm_verbs(args).first() == Some(&"serve"))
        || (n == "caddy" && first_pos(args, &[]).is_some_and(|s| matches!(s, "run" | "start" | "file-server" | "reverse-proxy")));
    if open && !loopback_given {
        a.flag(Network, format!("{who} {ALL_INTERFACES} by default: anything that can reach this machine can connect to it"));
    }
}

/// `python -m http.server` binds every interface unless `--bind` names a loopback address.
pub(super) fn http_server(module: &str, rest: &[String], a: &mut Acc) {
    if !matches!(module, "http.server" | "SimpleHTTPServer" | "CGIHTTPServer") {
        return;
    }
    let bind = rest.iter().enumerate().find_map(|(k, x)| {
        if x == "-b" || x == "--bind" {
            rest.get(k + 1).map(String::as_str)
        } else {
            x.strip_prefix("--bind=")
                .or_else(|| x.strip_prefix("-b").filter(|v| !v.is_empty()))
        }
    });
    if bind.is_none_or(|b| !local_host(b)) {
        a.flag(
            Danger::Network,
            format!(
                "{} {ALL_INTERFACES} unless `--bind 127.0.0.1` is given: anything that can reach this machine can read the files it serves",
                q(&format!("python -m {module}"))
            ),
        );
    }
}
