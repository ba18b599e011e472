import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { PushDevice, PushTestResult } from "../api/types";
import { browserPushSubscription, pushUnsupported, subscribePush, unsubscribePush } from "../pwa";
import { useAction } from "../state/action";
import { FormError } from "./FormError";
import { Timestamp } from "./Timestamp";
import "../devices.css";

function testResult(r: PushTestResult): string {
  if (r.sent === 0 && r.failed.length === 0) return "No device is subscribed.";
  return r.sent === 1 ? "Sent to 1 device." : `Sent to ${r.sent} devices.`;
}

/** One subscribed browser: its name, its push service and how the last delivery went. */
function PushRow({ d, busy, onRemove }: { d: PushDevice; busy: boolean; onRemove: () => void }) {
  return (
    <li data-push={d.id}>
      <div>
        <strong>{d.name}</strong>
        {d.current && <span class="badge">this device</span>}
        <div class="muted small">
          via <span class="push-origin">{d.origin}</span> ·{" "}
          {d.last_error ? (
            <span class="error">last delivery failed: {d.last_error}</span>
          ) : d.last_sent_at ? (
            <>
              last delivery <Timestamp at={d.last_sent_at} />
            </>
          ) : (
            "nothing sent yet"
          )}
        </div>
      </div>
      {/* aria-disabled, not disabled: a focused button keeps the focus while its request runs. */}
      <button
        type="button"
        class="btn small danger"
        aria-label={`Remove ${d.name}${d.current ? " (this device)" : ""}`}
        aria-disabled={busy}
        onClick={() => !busy && onRemove()}
      >
        Remove
      </button>
    </li>
  );
}

/**
 * Settings → notifications while the app is closed (Web Push): turn them on or off for this
 * browser, send a test, and see or remove every subscribed browser.
 */
export function PushPanel() {
  const unsupported = pushUnsupported();
  const [devices, setDevices] = useState<PushDevice[] | null>(null);
  const [off, setOff] = useState(false);
  const [hasBrowserSub, setHasBrowserSub] = useState(false);
  const [status, setStatus] = useState("");
  /** What the browser is doing for a subscription under way (it can take seconds, or never end). */
  const [progress, setProgress] = useState("");
  const [failures, setFailures] = useState<PushTestResult["failed"]>([]);
  const [error, setError] = useState<string | null>(null);
  /** After a removal the row and its button are gone: the focus goes to the card's title. */
  const focusTitle = useRef(false);
  const title = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    if (!focusTitle.current) return;
    focusTitle.current = false;
    title.current?.focus();
  });

  const load = async () => {
    try {
      const [info, sub] = await Promise.all([api.pushInfo(), browserPushSubscription().catch(() => null)]);
      setDevices(info.data);
      setHasBrowserSub(sub !== null);
    } catch (e) {
      if (e instanceof ApiError && e.status === 503) setOff(true);
      else setError(`Could not load the subscribed devices: ${errorText(e)}`);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  /** One action at a time; its error is shown, the list read again after. */
  const action = useAction(async (what: () => Promise<string>) => {
    setError(null);
    setStatus("");
    setFailures([]);
    try {
      setStatus(await what());
    } finally {
      void load();
    }
  });
  const act = action.run;
  const busy = action.busy;

  const here = devices?.some((d) => d.current) === true && hasBrowserSub;
  const nameOf = (id: string) => devices?.find((d) => d.id === id)?.name ?? id;

  return (
    <section class="card push-panel" aria-labelledby="push-h">
      <h2 id="push-h" tabIndex={-1} ref={title}>
        Notifications when the app is closed
      </h2>
      <p class="muted small">
        Approvals, questions and plans reach the devices listed here even when Tradewind is not open.
      </p>
      {off ? (
        <p>Push notifications are off on this server.</p>
      ) : (
        <>
          <p class="row">
            <span data-push-here>
              This device:{" "}
              {unsupported ? `not available. ${unsupported}` : here ? "on" : "off"}
            </span>
            {!unsupported && devices && (
              <button
                type="button"
                class="btn small"
                aria-disabled={busy}
                aria-busy={progress !== "" || undefined}
                onClick={() =>
                  void act(async () => {
                    if (here) {
                      await unsubscribePush(devices);
                      return "Stopped for this device.";
                    }
                    setProgress("Subscribing this browser… (it can take a few seconds)");
                    try {
                      await subscribePush();
                    } finally {
                      setProgress("");
                    }
                    return "On for this device.";
                  })
                }
              >
                {here ? "Stop" : "Notify me when the app is closed"}
              </button>
            )}
          </p>
          {devices && devices.length === 0 && <p data-push-empty>No device is subscribed.</p>}
          {devices && devices.length > 0 && (
            <ul class="device-list" aria-label="Subscribed devices">
              {devices.map((d) => (
                <PushRow
                  key={d.id}
                  d={d}
                  busy={busy}
                  onRemove={() =>
                    void act(async () => {
                      // This browser's last row: its own subscription goes too.
                      const last = d.current && !devices.some((o) => o.current && o.id !== d.id);
                      if (last) await unsubscribePush([d]);
                      else await api.unsubscribePush(d.id);
                      focusTitle.current = true;
                      return `Removed ${d.name}.`;
                    })
                  }
                />
              ))}
            </ul>
          )}
          {devices && devices.length > 0 && (
            <button
              type="button"
              class="btn small"
              aria-disabled={busy}
              onClick={() =>
                void act(async () => {
                  const r = await api.testPush();
                  setFailures(r.failed);
                  return testResult(r);
                })
              }
            >
              Send a test notification
            </button>
          )}
        </>
      )}
      <div role="status" class="push-status">
        {progress && (
          <p class="muted small push-progress">
            <span class="spinner" aria-hidden="true" /> {progress}
          </p>
        )}
        {status && <p class="ok small">{status}</p>}
        {failures.length > 0 && (
          <ul class="small">
            {failures.map((f) => (
              <li key={f.subscription} class="error">
                Not sent to {nameOf(f.subscription)}: {f.error}
              </li>
            ))}
          </ul>
        )}
      </div>
      <FormError error={error ?? action.error} />
    </section>
  );
}
