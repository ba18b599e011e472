// What the terminal panel sends for the keys a phone keyboard lacks (Esc, a sticky Ctrl, Tab, the
// arrows), and how a terminal's screen goes into a prompt. Pure: no DOM, no xterm.

export type Arrow = "up" | "down" | "right" | "left";

const ARROW_LETTER: Record<Arrow, string> = { up: "A", down: "B", right: "C", left: "D" };

/**
 * The bytes of an arrow key. `app`: the program asked for application cursor keys (`ESC O A`, as
 * vi and less do); `ctrl`: with Ctrl held (`ESC [ 1 ; 5 A`, a word to the left or right in a shell).
 */
export function arrowKey(arrow: Arrow, { app = false, ctrl = false } = {}): string {
  const letter = ARROW_LETTER[arrow];
  if (ctrl) return `\x1b[1;5${letter}`;
  return app ? `\x1bO${letter}` : `\x1b[${letter}`;
}

/**
 * A key typed with Ctrl held: a letter (either case) and `@ [ \ ] ^ _ ?` and space become their
 * control codes (Ctrl+C → 0x03); anything else (several characters, a paste) goes as it is.
 */
export function withCtrl(data: string): string {
  if (data.length !== 1) return data;
  const c = data.toLowerCase();
  if (c >= "a" && c <= "z") return String.fromCharCode(c.charCodeAt(0) - 96);
  switch (data) {
    case " ":
    case "@":
    case "2":
      return "\x00";
    case "[":
      return "\x1b";
    case "\\":
      return "\x1c";
    case "]":
      return "\x1d";
    case "^":
    case "6":
      return "\x1e";
    case "_":
    case "-":
      return "\x1f";
    case "?":
      return "\x7f";
    default:
      return data;
  }
}

/** A screen's lines as text: each line's trailing spaces and the blank lines at its end dropped. */
export function screenText(lines: readonly string[]): string {
  const trimmed = lines.map((l) => l.replace(/\s+$/, ""));
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === "") end--;
  let start = 0;
  while (start < end && trimmed[start] === "") start++;
  return trimmed.slice(start, end).join("\n");
}

/**
 * `text` as a fenced Markdown block: the fence is longer than any run of backticks inside, so
 * nothing in the screen can close it early.
 */
export function fenced(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}console\n${text}\n${fence}`;
}
