import { useEffect, useRef, useState } from "preact/hooks";
import type { Screen } from "../render/xterm";
import { useObservable } from "../state/observable";
import { shareIntoPrompt } from "../state/promptShare";
import { terminalFocus, terminals } from "../state/terminals";
import { copyText } from "../util/clipboard";
import { fenced, withCtrl } from "../util/terminalKeys";
import { isLive, statusText } from "../util/terminalStatus";
import { FormError } from "./FormError";
import { TerminalKeys } from "./TerminalKeys";
import { TerminalScreen } from "./TerminalScreen";
import "../terminal.css";

/**
 * The session's terminals: a shell each, in the session's jail, as tabs (+ opens another, ×
 * closes one and ends its shell). Under the screen: share what it shows into the prompt, copy,
 * paste, and at phone width the keys a phone keyboard lacks. Hiding the panel keeps the shells.
 */
export function TerminalPanel({ sessionId }: { sessionId: string }) {
  const list = useObservable(terminals.list(sessionId));
  const focusAsk = useObservable(terminalFocus);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [ctrl, setCtrl] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const screens = useRef(new Map<string, Screen>());
  const ctrlNow = useRef(ctrl);
  ctrlNow.current = ctrl;

  const active = list.find((t) => t.key === activeKey) ?? list[list.length - 1] ?? null;
  const screen = () => (active ? screens.current.get(active.key) ?? null : null);

  // A terminal was asked to take the focus (the header's button): the one shown, once it exists.
  const serveFocus = () => {
    const s = screen();
    if (s && terminalFocus.get() === sessionId) {
      terminalFocus.set(null);
      s.focus();
    }
  };
  useEffect(serveFocus, [focusAsk, active?.key]);

  const onScreen = (key: string, s: Screen | null) => {
    if (s) screens.current.set(key, s);
    else screens.current.delete(key);
    if (s && key === active?.key) serveFocus();
  };

  /** Typed, pasted or pressed on the key row: with the sticky Ctrl, the next key is a control key. */
  const onData = (key: string, data: string | Uint8Array) => {
    let out = data;
    if (ctrlNow.current && typeof data === "string") {
      out = withCtrl(data);
      ctrlNow.current = false;
      setCtrl(false);
    }
    terminals.input(key, out);
  };

  const add = () => {
    const key = terminals.add(sessionId);
    setActiveKey(key);
    terminalFocus.set(sessionId);
  };
  const close = (key: string) => {
    const at = list.findIndex((t) => t.key === key);
    terminals.close(key);
    const next = list[at + 1] ?? list[at - 1] ?? null;
    setActiveKey(next?.key ?? null);
    if (next) terminalFocus.set(sessionId);
  };
  const show = (key: string) => {
    setActiveKey(key);
    terminalFocus.set(sessionId);
  };

  const say = (text: string | null, err: string | null = null) => {
    setNote(text);
    setError(err);
  };

  const share = () => {
    const s = screen();
    if (!s) return;
    const text = s.visibleText();
    if (!text) return say("The screen is empty: nothing to share.");
    void shareIntoPrompt(sessionId, fenced(text)).then(
      () => say("The screen is in the prompt: the agent sees it only when you send it."),
      () => say(null, "The screen could not be put into the prompt."),
    );
  };

  const copy = () => {
    const s = screen();
    if (!s) return;
    const selected = s.selection();
    void copyText(selected || s.visibleText()).then((r) => {
      if (r === "copied") say(selected ? "Copied the selection." : "Copied the screen.");
      else say(null, "The browser did not allow copying: select the text and press Ctrl+Shift+C.");
      s.focus();
    });
  };

  const paste = () => {
    const s = screen();
    if (!s || !active) return;
    const read = navigator.clipboard?.readText?.bind(navigator.clipboard);
    if (!read || !window.isSecureContext) {
      say(null, "The browser does not let the page read the clipboard: press Ctrl+Shift+V (or Ctrl+V) in the terminal.");
      s.focus();
      return;
    }
    read().then(
      (text) => {
        if (text) s.paste(text);
        s.focus();
      },
      () => {
        say(null, "The browser did not allow reading the clipboard: press Ctrl+Shift+V (or Ctrl+V) in the terminal.");
        s.focus();
      },
    );
  };

  const sendKey = (data: string) => {
    if (!active) return;
    const useCtrl = ctrlNow.current;
    ctrlNow.current = false;
    setCtrl(false);
    // An arrow has Ctrl in its bytes already; Esc and Tab go as they are.
    terminals.input(active.key, useCtrl && data.length === 1 ? withCtrl(data) : data);
    screen()?.focus();
  };

  const live = active !== null && isLive(active.status);
  return (
    <section class="terminal-panel" aria-labelledby={`term-h-${sessionId}`}>
      <header class="panel-head">
        <h2 id={`term-h-${sessionId}`}>Terminal</h2>
        <ul class="term-tabs" aria-label="Terminals">
          {list.map((t) => (
            <li key={t.key} class={`term-tab${t.key === active?.key ? " active" : ""}`} data-status={t.status.kind}>
              <button
                type="button"
                class="term-tab-name"
                aria-current={t.key === active?.key ? "true" : undefined}
                aria-controls={`term-screen-${t.key}`}
                title={statusText(t.status)}
                onClick={() => show(t.key)}
              >
                <span class={`term-dot ${t.status.kind}`} aria-hidden="true" />
                Shell {t.n}
              </button>
              <button type="button" class="term-tab-close" aria-label={`Close shell ${t.n}`} title="Close it (its shell ends)" onClick={() => close(t.key)}>
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
        <button type="button" class="btn small ghost term-add" aria-label="Open another terminal" title="Open another terminal" onClick={add}>
          <span aria-hidden="true">+</span>
        </button>
        <span class="spacer" />
        {active && (
          <span class="term-actions">
            <button type="button" class="btn small ghost" onClick={share} title="Put the text on screen into the prompt, in a code block">
              Share into prompt
            </button>
            <button type="button" class="btn small ghost" onClick={copy} title="Copy the selection (or the whole screen)">
              Copy
            </button>
            <button type="button" class="btn small ghost" onClick={paste} disabled={!live}>
              Paste
            </button>
          </span>
        )}
        <button
          type="button"
          class="btn small ghost"
          aria-label="Hide the terminals"
          title="Hide the panel (the shells go on)"
          onClick={() => terminals.setShown(sessionId, false)}
        >
          <span aria-hidden="true">✕</span>
        </button>
      </header>
      <div class="term-screens">
        {list.map((t) => (
          <TerminalScreen key={t.key} term={t} active={t.key === active?.key} onData={onData} onScreen={onScreen} />
        ))}
        {list.length === 0 && (
          <div class="term-empty">
            <p class="muted">No terminal is open.</p>
            <button type="button" class="btn small" onClick={add}>
              Open a terminal
            </button>
          </div>
        )}
      </div>
      <p class="term-foot small">
        {active && (
          <span class={`term-status${live ? " muted" : ""}`} role="status" data-status={active.status.kind}>
            {statusText(active.status)}
          </span>
        )}
        <span class="term-note muted">
          Runs in this session's sandbox: it sees only what the agent's commands see. Shift+Tab leaves the terminal.
        </span>
      </p>
      {active && live && <TerminalKeys ctrl={ctrl} onCtrl={setCtrl} send={sendKey} appCursor={() => screen()?.appCursor() ?? false} />}
      {note && (
        <p class="term-said muted small" role="status">
          {note}
        </p>
      )}
      <FormError error={error} small />
    </section>
  );
}
