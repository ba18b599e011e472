// A search snippet is a piece of the stored text, Markdown and all: shown as plain words, its
// marks moved with the text they mark.

/** Markdown's marks a snippet may hold, each dropped where it appears (not its words). */
const MARKUP: RegExp[] = [
  // A fence and its language: ```rust
  /`{3,}[\w+-]*/g,
  // Inline code's backticks.
  /`+/g,
  // Headings, quotes and list bullets at the start of a line.
  /^[ \t]{0,3}#{1,6}[ \t]+/gm,
  /^[ \t]{0,3}>[ \t]?/gm,
  /^[ \t]*[-*+][ \t]+(?:\[[ xX]\][ \t]+)?/gm,
  // Bold, strike-through and emphasis around words (not a lone `*` between spaces).
  /\*\*|__|~~/g,
  /(?<=^|[\s(])[*_](?=\S)|(?<=\S)[*_](?=$|[\s).,;:!?])/gm,
  // A link's or image's brackets and address, its text kept: [text](url), ![alt](url).
  /!?\[(?=[^\]\n]*\]\([^)\n]*\))/g,
  /\]\([^)\n]*\)/g,
];

/** The snippet as plain text, and each highlight ([start, end) in UTF-16 units) moved to match. */
export function plainSnippet(text: string, highlights: readonly number[][]): { text: string; highlights: number[][] } {
  const drop = new Uint8Array(text.length);
  for (const re of MARKUP) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      drop.fill(1, m.index, m.index + m[0].length);
    }
  }
  // kept[i]: how many characters before i stay.
  const kept = new Uint32Array(text.length + 1);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    kept[i] = out.length;
    if (!drop[i]) out += text[i];
  }
  kept[text.length] = out.length;
  const clamp = (n: number) => Math.max(0, Math.min(text.length, n));
  const moved = highlights
    .filter((h) => h.length >= 2)
    .map(([a, b]) => [kept[clamp(a)], kept[clamp(b)]])
    .filter(([a, b]) => a < b);
  // Runs of spaces and line breaks read as one space.
  return collapse(out, moved);
}

/** Whitespace runs as one space (and none at the ends), the highlights moved along. */
function collapse(text: string, highlights: number[][]): { text: string; highlights: number[][] } {
  const kept = new Uint32Array(text.length + 1);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    kept[i] = out.length;
    const ws = /\s/.test(text[i]);
    if (!ws) out += text[i];
    else if (out.length > 0 && !/\s/.test(out[out.length - 1])) out += " ";
  }
  kept[text.length] = out.length;
  const trimmed = out.trimEnd();
  return {
    text: trimmed,
    highlights: highlights
      .map(([a, b]) => [Math.min(kept[a], trimmed.length), Math.min(kept[b], trimmed.length)])
      .filter(([a, b]) => a < b),
  };
}
