import { type Arrow, arrowKey } from "../util/terminalKeys";

const ARROWS: { arrow: Arrow; label: string; glyph: string }[] = [
  { arrow: "left", label: "Left arrow", glyph: "←" },
  { arrow: "up", label: "Up arrow", glyph: "↑" },
  { arrow: "down", label: "Down arrow", glyph: "↓" },
  { arrow: "right", label: "Right arrow", glyph: "→" },
];

/** A press on a key keeps the focus (and a phone's keyboard) in the terminal. */
const keepFocus = (e: PointerEvent) => e.preventDefault();

/**
 * The keys a phone keyboard lacks, under the terminal (shown at phone width): Esc, Ctrl (sticky:
 * it applies to the next key typed or pressed here), Tab and the arrows.
 */
export function TerminalKeys({
  ctrl,
  onCtrl,
  send,
  appCursor,
}: {
  ctrl: boolean;
  onCtrl: (on: boolean) => void;
  /** Send these bytes to the terminal shown (the sticky Ctrl is then released). */
  send: (data: string) => void;
  /** The program asked for application cursor keys. */
  appCursor: () => boolean;
}) {
  const key = (label: string, data: () => string, glyph = label, aria?: string) => (
    <button
      key={label}
      type="button"
      class="btn small term-key"
      aria-label={aria}
      onPointerDown={keepFocus}
      onClick={() => send(data())}
    >
      {glyph}
    </button>
  );
  return (
    <div class="term-keys" role="group" aria-label="Terminal keys">
      {key("Esc", () => "\x1b")}
      <button
        type="button"
        class="btn small term-key"
        aria-pressed={ctrl}
        title="Ctrl for the next key"
        onPointerDown={keepFocus}
        onClick={() => onCtrl(!ctrl)}
      >
        Ctrl
      </button>
      {key("Tab", () => "\t")}
      {ARROWS.map((a) => key(a.label, () => arrowKey(a.arrow, { app: appCursor(), ctrl }), a.glyph, a.label))}
    </div>
  );
}
