//! Commands that reach past the tool's sandbox and process tree. Privilege: another user's rights
//! (`sudo-rs`, `please`, `ksu`, a root shell through `machinectl shell`). The host: `flatpak-spawn
//! --host` and its kin run the command outside the container. systemd: `systemd-run` and a D-Bus
//! call to `org.freedesktop.systemd1` (`busctl`, `dbus-send`, `gdbus`) start any command as a unit,
//! which the service manager runs, not the sandboxed tool. Persistence: `loginctl enable-linger`
//! keeps a user's services running and starts them at boot. Each asks as `Admin` (or
//! `BootAutostart` for what runs later), with a reason naming what escapes.

use super::*;

/// D-Bus services that run commands or control the machine for their caller: systemd and its
/// login, machine and image managers, Flatpak's host command and its portal, polkit.
#[rustfmt::skip]
const HOST_SERVICES: &[(&str, &str)] = &[
    ("org.freedesktop.systemd1", "systemd, which can start any command as a unit"),
    ("org.freedesktop.login1", "logind, which controls sessions, users and power"),
    ("org.freedesktop.machine1", "machined, which opens shells in machines and on the host"),
    ("org.freedesktop.import1", "importd, which downloads and installs machine images"),
    ("org.freedesktop.portable1", "portabled, which attaches services to the host"),
    ("org.freedesktop.Flatpak", "Flatpak, which runs commands on the host"),
    ("org.freedesktop.portal.Flatpak", "the Flatpak portal, which starts processes"),
    ("org.freedesktop.PolicyKit1", "polkit, which grants administrator actions"),
];

const OUTSIDE: &str = "outside the tool's sandbox";

/// Flags for the wrappers that run their command somewhere the sandbox does not reach (the
/// wrapped command is still classified). `opts` are the wrapper's own options.
pub(super) fn host_wrapper(n: &str, opts: &[String], a: &mut Acc) {
    match n {
        "systemd-run" => {
            a.flag(
                Danger::Admin,
                format!(
                    "`systemd-run` starts the command as a systemd unit, {OUTSIDE} and process tree"
                ),
            );
            if opts.iter().any(|x| x.starts_with("--on-")) {
                a.flag(
                    Danger::BootAutostart,
                    "`systemd-run --on-…` schedules the command with a systemd timer",
                );
            }
        }
        "flatpak-spawn" if opts.iter().any(|x| x == "--host") => a.flag(
            Danger::Admin,
            format!("`flatpak-spawn --host` runs the command on the host, {OUTSIDE}"),
        ),
        "host-spawn" | "distrobox-host-exec" => a.flag(
            Danger::Admin,
            format!("{} runs the command on the host, {OUTSIDE}", q(n)),
        ),
        _ => {}
    }
}

/// The host-reaching programs that are not wrappers: `ksu`, `machinectl`, `loginctl` and the
/// D-Bus clients.
pub(super) fn host(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    match n {
        "ksu" => {
            a.flag(
                Danger::Admin,
                "`ksu` runs commands as another user (root by default)",
            );
            let run = args.iter().position(|x| x == "-e").map(|k| k + 1);
            if let Some(cmd) = run.and_then(|k| args.get(k..)).filter(|c| !c.is_empty())
                && depth < MAX_DEPTH
            {
                classify(cmd, a, depth + 1);
            }
        }
        "machinectl" => machinectl(args, a, depth),
        "loginctl" => loginctl(args, a),
        "busctl" => {
            let vals = [
                "-H",
                "--host",
                "-M",
                "--machine",
                "--address",
                "--timeout",
                "--json",
                "--match",
                "--size",
                "--destination",
            ];
            if has(args, &["-H"]) || args.iter().any(|x| long_is(x, "--host")) {
                a.flag(
                    Danger::Network,
                    "`busctl -H` talks to D-Bus on another host over SSH",
                );
            }
            let sub = first_pos(args, &vals);
            if matches!(
                sub,
                Some("call" | "emit" | "set-property" | "capture" | "monitor")
            ) {
                dbus_message(&format!("busctl {}", sub.unwrap_or_default()), args, a);
            }
        }
        "dbus-send" if !has(args, &["--help", "-h"]) => dbus_message("dbus-send", args, a),
        "gdbus" => {
            let sub = first_pos(args, &[]);
            if matches!(sub, Some("call" | "emit" | "monitor")) {
                dbus_message(&format!("gdbus {}", sub.unwrap_or_default()), args, a);
            }
        }
        "qdbus" | "qdbus6" | "qdbus-qt5" | "qdbus-qt6"
            if args.iter().filter(|x| !x.starts_with('-')).count() >= 3 =>
        {
            dbus_message(n, args, a);
        }
        _ => {}
    }
}

/// A D-Bus message a command sends (or traffic it watches): to a service that runs commands or
/// controls the machine it is an administrator action outside the sandbox; to any other, another
/// program acts for the command, which the gate cannot follow.
fn dbus_message(who: &str, args: &[String], a: &mut Acc) {
    let l = args.join(" ").to_ascii_lowercase();
    if matches!(who, "busctl capture" | "busctl monitor" | "gdbus monitor") {
        a.flag(
            Danger::Opaque,
            format!(
                "{} records D-Bus traffic, which can carry other programs' secrets",
                q(who)
            ),
        );
        return;
    }
    match HOST_SERVICES
        .iter()
        .find(|(s, _)| l.contains(&s.to_ascii_lowercase()))
    {
        Some((service, what)) => a.flag(
            Danger::Admin,
            format!("{} calls `{service}` over D-Bus: {what}, {OUTSIDE}", q(who)),
        ),
        None => a.flag(
            Danger::Opaque,
            format!(
                "{} sends a D-Bus message, which makes another program act for it",
                q(who)
            ),
        ),
    }
}

#[rustfmt::skip]
fn machinectl(args: &[String], a: &mut Acc, depth: u8) {
    let vals = ["-H", "--host", "-M", "--machine", "-p", "--property", "-s", "--signal", "--kill-whom", "-n", "--lines", "-o", "--output",
        "--uid", "-E", "--setenv", "--format", "--verify"];
    let Some(k) = next_operand(args, &vals) else { return };
    let sub = args.get(k).map_or("", String::as_str);
    let read = ["list", "status", "show", "list-images", "image-status", "show-image", "list-transfers", "help"];
    match sub {
        s if read.contains(&s) => {}
        "shell" | "login" => {
            a.flag(Danger::Admin, format!("{} opens a shell in a machine or on the host (as root by default), {OUTSIDE}", q(&format!("machinectl {sub}"))));
            // `machinectl shell [USER@]MACHINE [PROGRAM ARGS…]`: what runs there.
            let program = args.get(k + 2..).filter(|p| !p.is_empty());
            if let Some(p) = program.filter(|_| depth < MAX_DEPTH) { classify(p, a, depth + 1); }
        }
        s if s.starts_with("pull-") => a.flag(Danger::Network, format!("{} downloads a machine image", q(&format!("machinectl {s}")))),
        "enable" | "disable" => a.flag(Danger::BootAutostart, format!("{} changes which machines start at boot", q(&format!("machinectl {sub}")))),
        _ => a.flag(Danger::Admin, format!("{} controls containers and virtual machines through systemd", q(&format!("machinectl {sub}")))),
    }
}

#[rustfmt::skip]
fn loginctl(args: &[String], a: &mut Acc) {
    let vals = ["-H", "--host", "-M", "--machine", "-p", "--property", "-s", "--signal", "--kill-whom", "-n", "--lines", "-o", "--output"];
    let read = ["list-sessions", "session-status", "show-session", "list-users", "user-status", "show-user", "list-seats", "seat-status", "show-seat", "help"];
    match first_pos(args, &vals) {
        None => {}
        Some(s) if read.contains(&s) => {}
        Some(s @ ("enable-linger" | "disable-linger")) => a.flag(Danger::BootAutostart, format!(
            "{} changes whether the user's services keep running after logout and start at boot", q(&format!("loginctl {s}")))),
        Some(s) => a.flag(Danger::Admin, format!("{} controls login sessions, users or seats", q(&format!("loginctl {s}")))),
    }
}
