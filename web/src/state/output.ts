// What a running command wrote so far, as its `tool_output` events bring it: its card shows it
// until the call's result, which holds the whole output, arrives. Pure: the reducer (reduce.ts)
// appends each event's text here; the card's live terminal (LiveTerminal.tsx) draws the chunks.
import type { OutputStream } from "../api/types";

/**
 * The most characters of a call's live output kept, the oldest dropped first: what the server
 * sends live is bounded alike (256 KiB per call), this keeps the page bounded whatever comes.
 */
export const LIVE_KEEP = 256 * 1024;
/**
 * Text joins the last chunk of its stream until that chunk holds this many characters: a new
 * piece of output redraws one chunk of at most this size, never the whole output.
 */
const CHUNK_MAX = 8 * 1024;
/** A cut is moved to just after a newline when one comes within this many characters. */
const LINE_SLACK = 1024;
/** An escape sequence cut off at a text's end: the next text of its stream completes it. */
// eslint-disable-next-line no-control-regex
const OPEN_ESCAPE = /\x1b(\[[0-9;?]*[ -/]*|\][^\x07\x1b]*)?$/;

/** Consecutive output of one stream. Replaced, never changed, when text is added to it. */
export interface OutputChunk {
  /** Counts the call's chunks: a stable key for its view. */
  readonly id: number;
  readonly stream: OutputStream;
  readonly text: string;
}

export interface LiveOutput {
  /** In arrival order, stdout and stderr interleaved. */
  chunks: OutputChunk[];
  /** Characters in `chunks` (at most LIVE_KEEP). */
  size: number;
  /** Older output was dropped to stay within the bound. */
  cut: boolean;
  /** The id the next chunk gets. */
  next: number;
}

export const emptyOutput = (): LiveOutput => ({ chunks: [], size: 0, cut: false, next: 0 });

/** Add what one `tool_output` event brought, then drop the oldest text beyond `keep` characters. */
export function appendOutput(o: LiveOutput, stream: OutputStream, text: string, keep = LIVE_KEEP): void {
  if (!text) return;
  const last = o.chunks.at(-1);
  if (last && last.stream === stream && (last.text.length < CHUNK_MAX || OPEN_ESCAPE.test(last.text))) {
    o.chunks[o.chunks.length - 1] = { id: last.id, stream, text: last.text + text };
  } else {
    o.chunks.push({ id: o.next++, stream, text });
  }
  o.size += text.length;
  while (o.size > keep) {
    o.cut = true;
    const first = o.chunks[0];
    const over = o.size - keep;
    if (first.text.length <= over) {
      o.chunks.shift();
      o.size -= first.text.length;
      continue;
    }
    // Cut at a line's start when one is near: the first line shown is a whole one.
    const nl = first.text.indexOf("\n", over - 1);
    const at = nl >= 0 && nl + 1 - over <= LINE_SLACK && nl + 1 < first.text.length ? nl + 1 : over;
    o.chunks[0] = { id: first.id, stream: first.stream, text: first.text.slice(at) };
    o.size -= at;
  }
}

/** The output held, as one text (what a test or a copy reads). */
export const outputText = (o: LiveOutput): string => o.chunks.map((c) => c.text).join("");
