import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { Device, DeviceLink, ServerConfig } from "../api/types";
import { useAction } from "../state/action";
import { CopyButton } from "./CopyButton";
import { FormError } from "./FormError";
import { Timestamp } from "./Timestamp";
import "../devices.css";

/** How other devices reach this server: HTTPS mode, the CA fingerprint to compare, the address. */
export function ConnectionFacts({ cfg }: { cfg: ServerConfig }) {
  const tls = cfg.tls;
  return (
    <section class="card" aria-labelledby="conn-h">
      <h2 id="conn-h">Connection</h2>
      <dl class="facts">
        <dt>HTTPS</dt>
        <dd>
          {tls.mode === "auto"
            ? "on, with this server's own certificate authority"
            : tls.mode === "files"
              ? "on, with the certificate given at start"
              : "off (plain HTTP)"}
        </dd>
        <dt>Address for other devices</dt>
        <dd>
          <code>{tls.url}</code>
        </dd>
        {tls.ca_fingerprint && (
          <>
            <dt>Certificate authority (SHA-256)</dt>
            <dd>
              <code class="fingerprint" data-testid="ca-fingerprint">
                {tls.ca_fingerprint}
              </code>
              <p class="muted">
                Compare it on the phone before trusting it.{" "}
                {tls.install_url && (
                  <a href={tls.install_url} target="_blank" rel="noopener noreferrer">
                    How to trust it on each device
                  </a>
                )}
              </p>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

function left(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "Add a device": a one-time link as a QR code, valid 5 minutes. */
function AddDevice({ onUsed }: { onUsed: () => void }) {
  const [link, setLink] = useState<DeviceLink | null>(null);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!link) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [link]);
  const expired = link !== null && now >= link.expires_at;
  const make = useAction(async () => {
    setLink(await api.deviceLink());
    setNow(Date.now());
  });
  return (
    <div class="add-device">
      {!link || expired ? (
        <button type="button" class="btn" disabled={make.busy} onClick={() => void make.run()}>
          {expired ? "Link expired: make a new one" : "Add a device"}
        </button>
      ) : (
        <div class="device-link" data-testid="device-link">
          <img
            class="qr"
            width={200}
            height={200}
            alt={`QR code of a one-time sign-in link: ${link.url}`}
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(link.qr_svg)}`}
          />
          <div>
            <p>Scan with the other device's camera, or open the link there. It signs in once and expires in {left(link.expires_at - now)}.</p>
            <p class="link-row">
              <code>{link.url}</code> <CopyButton text={() => link.url} label="Copy the link" />
            </p>
            {!link.reachable_from_other_devices && (
              <p class="warn">
                This server listens on this machine only. To reach it from a phone, start it with{" "}
                <code>--bind 0.0.0.0</code> (after <code>tradewind passwd</code>); it then serves HTTPS.
              </p>
            )}
            <button
              type="button"
              class="btn small ghost"
              onClick={() => {
                setLink(null);
                onUsed();
              }}
            >
              Done
            </button>
          </div>
        </div>
      )}
      <FormError error={make.error} />
    </div>
  );
}

/** A device's name, and a form to change it (blank: back to its browser's name). */
function DeviceName({ d, onNamed }: { d: Device; onNamed: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(d.label ?? "");
  const save = useAction(async () => {
    await api.nameDevice(d.id, text.trim() || null);
    setEditing(false);
    onNamed();
  });
  if (!editing) {
    return (
      <>
        <strong class="device-name">{d.name}</strong>
        {d.current && <span class="badge">this device</span>}
        <button
          type="button"
          class="btn small ghost"
          aria-label={`Rename ${d.name}${d.current ? " (this device)" : ""}`}
          onClick={() => {
            setText(d.label ?? "");
            setEditing(true);
          }}
        >
          Rename
        </button>
      </>
    );
  }
  return (
    <form
      class="device-rename"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <label>
        Name of this browser{d.current ? " (this device)" : ""}
        <input
          value={text}
          maxLength={60}
          placeholder={d.user_agent ? "e.g. Work laptop" : ""}
          autoFocus
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              setEditing(false);
            }
          }}
        />
      </label>
      <button type="submit" class="btn small primary" disabled={save.busy}>
        Save
      </button>
      <button type="button" class="btn small ghost" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <FormError error={save.error} />
    </form>
  );
}

/** Signed-in browsers: name, when and where last seen, sign any of them out at once. */
export function DevicesPanel() {
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api.devices().then(
      (l) => {
        setDevices(l.data);
        setError(null);
      },
      (e) => setError(errorText(e)),
    );
  useEffect(() => {
    void load();
  }, []);
  const revoke = useAction(async (d: Device) => {
    try {
      await api.revokeDevice(d.id);
    } finally {
      void load();
    }
  });
  return (
    <section class="card devices" aria-labelledby="devices-h">
      <h2 id="devices-h">Devices</h2>
      <p class="muted">Browsers signed in to this server. A device not seen for 30 days is signed out; every sign-in ends after 90 days.</p>
      {devices && devices.length === 0 && <p>No browser is signed in (you are using a token).</p>}
      {devices && devices.length > 0 && (
        <ul class="device-list">
          {devices.map((d) => (
            <li key={d.id} data-device={d.id}>
              <div>
                <DeviceName d={d} onNamed={() => void load()} />
                <div class="muted">
                  signed in <Timestamp at={d.created_at} />
                  {d.signin_ip ? ` from ${d.signin_ip}` : ""} · last seen <Timestamp at={d.last_seen_at} />
                  {d.last_ip ? ` from ${d.last_ip}` : ""}
                </div>
                {d.label && d.user_agent && <div class="muted small">{d.user_agent}</div>}
              </div>
              <button
                type="button"
                class="btn small danger"
                aria-label={`Sign out ${d.name}${d.current ? " (this device)" : ""}`}
                disabled={revoke.busy}
                onClick={() => void revoke.run(d)}
              >
                Sign out
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError error={error ?? revoke.error} />
      <AddDevice onUsed={() => void load()} />
    </section>
  );
}
