// Where a text selected in a rendered plan is in the plan's Markdown: its first and last lines,
// found by their text with the Markdown marks (`#`, list bullets and numbers, emphasis, code
// ticks) left out, as the rendered page shows it.

/** How many characters of a selected line's start (or end) are looked for in the source. */
const PART = 24;
/** A source line shorter than this is not looked for inside a selected line (it would be found anywhere). */
const MIN_WHOLE = 8;

/** A line as it reads rendered: no heading, list or quote marks, no emphasis or code ticks. */
export function plainLine(line: string): string {
  return line
    .replace(/^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s?)/, "")
    .replace(/[*_`~]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The lines (1-based, `start` ≤ `end`) of `source` a selection of its rendered text covers: the
 * first line holding the selection's first line, and from there the first holding its last. Null
 * when the selection is blank or its text is not found.
 */
export function selectionLines(source: string, selected: string): { start: number; end: number } | null {
  const wanted = selected
    .split("\n")
    .map(plainLine)
    .filter((l) => l !== "");
  if (wanted.length === 0) return null;
  const lines = source.split("\n").map(plainLine);
  // A selected line may run over several lines of the source (one paragraph), or start or end
  // within one: its first words are looked for in the first line, its last words in the last.
  const holds = (i: number, text: string, part: string) =>
    lines[i] !== "" && (lines[i].includes(text) || lines[i].includes(part) || (lines[i].length >= MIN_WHOLE && text.includes(lines[i])));
  const first = wanted[0];
  const start = lines.findIndex((_, i) => holds(i, first, first.slice(0, PART)));
  if (start < 0) return null;
  const last = wanted[wanted.length - 1];
  for (let i = start; i < lines.length; i++) if (holds(i, last, last.slice(-PART))) return { start: start + 1, end: i + 1 };
  return { start: start + 1, end: start + 1 };
}
