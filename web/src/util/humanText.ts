// Tool inputs and results as people read them: a JSON object as "key: value" rows whose strings
// keep their real line breaks (never `\n` escapes), nothing shown for an empty value, and the
// model's bookkeeping (ids, SHA-256 fingerprints, byte offsets) set apart, to be shown on request.

/** One row: a key and its value as text (`multiline`: it has line breaks of its own). */
export interface Field {
  key: string;
  value: string;
  multiline: boolean;
}

/** A result split into what a reader wants and the model's bookkeeping. */
export interface HumanResult {
  /** The rows of a JSON object, or null when the text is not one. */
  fields: Field[] | null;
  /** The text without its bookkeeping lines (when `fields` is null). */
  text: string;
  /** The bookkeeping, for a details toggle. */
  internals: Field[];
}

/** Keys that are the model's bookkeeping, not something a reader looks for. */
const INTERNAL_KEY = /^(id|ids|sha256|hash|fingerprint|next_offset|offset|[a-z_]+_id|[a-z_]+_hash)$/i;
/** A hex fingerprint (SHA-1 or SHA-256) or a ULID: an identifier, never words. */
const ID_VALUE = /^(?:[0-9a-f]{40}|[0-9a-f]{64}|[0-9A-HJKMNP-TV-Z]{26})$/;

/** Is this key/value pair bookkeeping (an id, a fingerprint)? */
export function isInternal(key: string, value: unknown): boolean {
  if (INTERNAL_KEY.test(key)) return true;
  return typeof value === "string" && ID_VALUE.test(value.trim());
}

/** A field's name as words: "exit_code" → "exit code". */
export function keyWords(key: string): string {
  return key.replace(/_/g, " ");
}

/** A line without the given ids (bare, or in brackets): "tests (01J…) succeeded" → "tests succeeded". */
export function withoutIds(line: string, ids: readonly string[]): string {
  let l = line;
  for (const id of ids) {
    if (!id) continue;
    l = l.split(` (${id})`).join("").split(`(${id})`).join("").split(id).join("");
  }
  return l.replace(/ {2,}/g, " ").trim();
}

/** Nothing worth a row: null, "", [] or {}. */
export function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === "string") return v.trim() === "";
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v as object).length === 0;
  return false;
}

function indent(text: string, by: string): string {
  return text
    .split("\n")
    .map((l) => (l ? by + l : l))
    .join("\n");
}

/**
 * A value as plain text: strings as they are (real line breaks), numbers and booleans as
 * written, a list of words joined by commas, nested objects and lists as indented `key: value`
 * lines (empty values left out).
 */
export function plainValue(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || ["string", "number", "boolean"].includes(typeof x))) {
      const words = v.filter((x) => !isEmptyValue(x)).map(String);
      return words.some((w) => w.includes("\n") || w.length > 60) ? words.map((w) => `- ${w}`).join("\n") : words.join(", ");
    }
    return v
      .filter((x) => !isEmptyValue(x))
      .map((x) => {
        const body = plainValue(x);
        const [first, ...rest] = body.split("\n");
        return [`- ${first}`, ...rest.map((l) => (l ? `  ${l}` : l))].join("\n");
      })
      .join("\n");
  }
  return Object.entries(v as Record<string, unknown>)
    .filter(([k, x]) => !isEmptyValue(x) && !isInternal(k, x))
    .map(([k, x]) => {
      const body = plainValue(x);
      const nested = body.includes("\n") || (typeof x === "object" && x !== null && !Array.isArray(x));
      return nested ? `${k}:\n${indent(body, "  ")}` : `${k}: ${body}`;
    })
    .join("\n");
}

/** The rows of an object: empty values left out, bookkeeping apart. */
export function fieldsOf(o: Record<string, unknown>): { fields: Field[]; internals: Field[] } {
  const fields: Field[] = [];
  const internals: Field[] = [];
  for (const [key, v] of Object.entries(o)) {
    if (isEmptyValue(v)) continue;
    const value = plainValue(v);
    if (!value.trim()) continue;
    const row = { key, value, multiline: value.includes("\n") };
    (isInternal(key, v) ? internals : fields).push(row);
  }
  return { fields, internals };
}

/** `sha256: <hex>` on a line of its own, or after "; " at the end of one (the file tools' words). */
const HASH_LINE = /^sha256: ([0-9a-f]{64})\n?/gm;
const HASH_TAIL = /;? sha256: ([0-9a-f]{64})(?=$|\n)/gm;

/**
 * A tool's result text as a reader sees it: a JSON object (what the task tools answer) becomes
 * rows; in other text the SHA-256 fingerprints the file tools add for the model are set apart.
 */
export function humanResult(text: string): HumanResult {
  const t = text.trim();
  if (t.startsWith("{") && t.endsWith("}")) {
    try {
      const v: unknown = JSON.parse(t);
      if (v && typeof v === "object" && !Array.isArray(v)) {
        const { fields, internals } = fieldsOf(v as Record<string, unknown>);
        return { fields, text: "", internals };
      }
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  const internals: Field[] = [];
  const found = (hex: string) => internals.push({ key: "sha256", value: hex, multiline: false });
  const cleaned = text
    .replace(HASH_LINE, (_m, hex: string) => {
      found(hex);
      return "";
    })
    .replace(HASH_TAIL, (_m, hex: string) => {
      found(hex);
      return "";
    });
  return { fields: null, text: cleaned, internals };
}
