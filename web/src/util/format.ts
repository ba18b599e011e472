export function relativeTime(ms: number, now = Date.now()): string {
  if (!ms) return "";
  const s = Math.round((now - ms) / 1000);
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return new Date(ms).toLocaleDateString();
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

export function count(n: number | null | undefined): string {
  if (n === null || n === undefined) return "–";
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A file size as people read it: "812 B", "4.2 KiB", "5.0 MiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

const grouped = new Intl.NumberFormat("en-US");
const dollars = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A whole number with thousands separators: "9,800". */
export function tokens(n: number): string {
  return grouped.format(n);
}

/** A token count for a label: "950", "4k", "128k", "1.5M". */
export function shortTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Number((n / 1000).toFixed(n < 10_000 ? 1 : 0))}k`;
  return `${Number((n / 1_000_000).toFixed(1))}M`;
}

/**
 * US dollars as people read them: "$0.42", "$1,204.50"; under a cent with up to four decimals
 * ("$0.003") so a cheap call does not read as free. null (no known price): "—".
 */
export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  if (v === 0) return "$0.00";
  if (v < 0.0001) return "<$0.0001";
  if (v < 0.01) return `$${v.toFixed(4).replace(/0+$/, "")}`;
  return `$${dollars.format(v)}`;
}

/**
 * Short one-line summary of a tool input for compact cards: what a reader wants to see of each
 * tool (never the raw JSON; an unknown tool's scalar fields as `key: value`).
 */
export function inputSummary(tool: string, input: unknown): string {
  if (input === null || input === undefined) return "";
  if (typeof input !== "object") return String(input);
  const o = input as Record<string, unknown>;
  const s = (k: string): string | null => (typeof o[k] === "string" && o[k] !== "" ? (o[k] as string) : null);
  const n = (k: string): number | null => (typeof o[k] === "number" ? (o[k] as number) : null);
  switch (tool) {
    case "shell":
      return s("command") ?? "";
    case "run_process":
      return Array.isArray(o.argv) ? o.argv.map(String).join(" ") : "";
    case "read_file": {
      const from = n("offset");
      const lim = n("limit");
      const range = from !== null || lim !== null ? ` (lines ${(from ?? 0) + 1}${lim !== null ? `–${(from ?? 0) + lim}` : "…"})` : "";
      return `${s("path") ?? ""}${range}`;
    }
    case "list_files":
      return [s("path") ?? ".", s("glob")].filter(Boolean).join(" ");
    case "write_file":
    case "edit_file":
      return s("path") ?? "";
    case "search_text":
      return [s("pattern") !== null ? `“${s("pattern")}”` : "", s("path") ? `in ${s("path")}` : "", s("glob") ? `(${s("glob")})` : ""]
        .filter(Boolean)
        .join(" ");
    case "git_status":
      return "working tree";
    case "git_diff":
      return `${s("path") ?? "all changes"}${o.staged === true ? " (staged)" : ""}`;
    case "bg_run": {
      const label = s("label");
      const cmd = s("command") ?? "";
      return label ? `${label}: ${cmd}` : cmd;
    }
    // A task's id is the model's handle on it, not a name: the card says which kind of call it is.
    case "bg_output":
      return "a background task's output";
    case "bg_stop":
      return "stop a background task";
    case "bg_list":
      return "background tasks";
    case "ask_user_question": {
      const qs = Array.isArray(o.questions) ? (o.questions as { question?: unknown }[]) : [];
      const first = typeof qs[0]?.question === "string" ? qs[0].question : "";
      return qs.length > 1 ? `${first} (+${qs.length - 1} more)` : first;
    }
    case "exit_plan":
      return s("title") ?? "plan";
    case "task":
      return s("description") ?? "";
    case "task_wait":
    case "task_status": {
      const ids = Array.isArray(o.ids) ? o.ids.length : 0;
      return ids === 0 ? "every subagent" : ids === 1 ? "one subagent" : `${ids} subagents`;
    }
    case "send_message":
      return s("text") ?? "";
  }
  if (Array.isArray(o.argv)) return o.argv.map(String).join(" ");
  const v = s("command") ?? s("path") ?? s("pattern") ?? s("url") ?? s("query") ?? s("label");
  if (v !== null) return v;
  return Object.entries(o)
    .filter(([, x]) => typeof x === "string" || typeof x === "number" || typeof x === "boolean")
    .map(([k, x]) => `${k}: ${String(x)}`)
    .join(", ");
}

/** The most characters of a command an output box's name quotes. */
const LABEL_COMMAND_CHARS = 60;

/**
 * The name of a command's output box: which output, of which command (a page shows many commands'
 * boxes; each is a landmark that needs a name of its own).
 */
export function outputLabel(what: string, command: string): string {
  const cmd = command.replace(/\s+/g, " ").trim();
  if (!cmd) return what;
  return `${what} of ${cmd.length > LABEL_COMMAND_CHARS ? `${cmd.slice(0, LABEL_COMMAND_CHARS)}…` : cmd}`;
}

/** A server's phrase as a sentence: its first letter upper-case ("not answered — …" → "Not answered — …"). */
export function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
