// Make invisible and control characters visible (approval prompts, commands,
// file names): a command must look exactly like what will run.
export interface Piece {
  text: string;
  special: boolean;
}

const NAMES: Record<number, string> = {
  0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x09: "TAB", 0x0b: "VT", 0x0c: "FF", 0x0d: "CR",
  0x1b: "ESC", 0x7f: "DEL", 0x85: "NEL", 0xa0: "NBSP", 0x200b: "ZWSP", 0x200c: "ZWNJ",
  0x200d: "ZWJ", 0x200e: "LRM", 0x200f: "RLM", 0x2028: "LSEP", 0x2029: "PSEP",
  0x202a: "LRE", 0x202b: "RLE", 0x202c: "PDF", 0x202d: "LRO", 0x202e: "RLO",
  0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI", 0xfeff: "BOM",
};

// Everything but plain printable text and newline.
const SPECIAL =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00a0\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

export function splitControls(s: string, showNewlines = false): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  const re = new RegExp(SPECIAL.source + (showNewlines ? "|\\n" : ""), "g");
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) out.push({ text: s.slice(last, m.index), special: false });
    const code = m[0].codePointAt(0) ?? 0;
    if (m[0] === "\n") {
      out.push({ text: "↵", special: true });
      out.push({ text: "\n", special: false });
    } else {
      const name = NAMES[code] ?? `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
      out.push({ text: `⟨${name}⟩`, special: true });
    }
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push({ text: s.slice(last), special: false });
  return out;
}

export function hasControls(s: string): boolean {
  return new RegExp(SPECIAL.source).test(s);
}
