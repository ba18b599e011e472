// Drive a Tradewind server from TypeScript: create a session, send a prompt, follow the run's
// events over Server-Sent Events, answer the approval it asks for, and stop at `run_finished`.
// Types come from openapi/openapi.json (npm run gen); no casts.
//
//   TW_URL=http://127.0.0.1:7420 TW_TOKEN=… TW_PROMPT="make a file" npm start
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.gen.js";

type KnownEvent = components["schemas"]["KnownEvent"];
type EventFrame = components["schemas"]["EventFrame"];
type EventType = components["schemas"]["EventType"];

/** Every documented event type: tsc fails here when the API gains or loses one. */
const KNOWN: Record<EventType, true> = {
  user_message: true,
  run_started: true,
  message_delta: true,
  reasoning_delta: true,
  message_complete: true,
  tool_call: true,
  policy_decision: true,
  approval_requested: true,
  approval_decided: true,
  tool_output: true,
  tool_result: true,
  error: true,
  provider_retry: true,
  model_usage: true,
  context_compacted: true,
  session_reverted: true,
  revert_undone: true,
  goal_updated: true,
  child_pending: true,
  web_search: true,
  hook_ran: true,
  run_finished: true,
  question_asked: true,
  question_answered: true,
  plan_proposed: true,
  plan_decided: true,
  task_updated: true,
  task_output: true,
  review_comment_added: true,
  review_comment_updated: true,
  review_comment_resolved: true,
  wakeup: true,
  session_updated: true,
};

/** A documented event (a newer server may send types this build does not know: skip those). */
function isKnown(ev: EventFrame): ev is KnownEvent {
  return Object.hasOwn(KNOWN, ev.type);
}

function env(name: string, fallback?: string): string {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`set ${name}`);
  return v;
}

const baseUrl = env("TW_URL", "http://127.0.0.1:7420");
const token = env("TW_TOKEN");
const prompt = env("TW_PROMPT", "make a file");
const headers = { Authorization: `Bearer ${token}` };
const api = createClient<paths>({ baseUrl, headers });

/** Server-sent events of a session from `after` on, parsed into frames. */
async function* streamEvents(session: string, after: number): AsyncGenerator<EventFrame> {
  const res = await fetch(`${baseUrl}/api/sessions/${session}/events/stream?after=${after}`, {
    headers: { ...headers, Accept: "text/event-stream" },
  });
  if (!res.ok || res.body === null) throw new Error(`stream: HTTP ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      if (data !== "") {
        const frame: EventFrame = JSON.parse(data);
        yield frame;
      }
    }
  }
}

async function main(): Promise<void> {
  const created = await api.POST("/api/sessions", { body: { title: "TypeScript example" } });
  if (created.error) throw new Error(`create: ${created.error.error.message}`);
  const session = created.data;
  console.log(`session ${session.id} in ${session.workspace}`);

  const sent = await api.POST("/api/sessions/{id}/messages", {
    params: { path: { id: session.id } },
    body: { text: prompt },
  });
  if (sent.error) throw new Error(`post: ${sent.error.error.message}`);
  const runId = sent.data.run_id;

  for await (const ev of streamEvents(session.id, 0)) {
    if (!isKnown(ev)) continue;
    switch (ev.type) {
      case "message_delta":
        process.stdout.write(ev.text);
        break;
      case "tool_call":
        console.log(`\n[tool] ${ev.tool} ${JSON.stringify(ev.input)}`);
        break;
      case "approval_requested": {
        console.log(`[approval] ${ev.tool}: ${ev.reason} -> once`);
        const answered = await api.POST("/api/approvals/{id}", {
          params: { path: { id: ev.approval_id } },
          body: { decision: "once" },
        });
        if (answered.error) throw new Error(`approve: ${answered.error.error.message}`);
        break;
      }
      case "tool_result":
        console.log(`[result] ${ev.tool} ok=${ev.ok}`);
        break;
      case "run_finished":
        if (ev.run_id !== runId) break;
        console.log(
          `\nrun ${ev.status} in ${ev.duration_ms} ms, ${ev.usage.input_tokens}+${ev.usage.output_tokens} tokens`,
        );
        if (ev.status !== "completed") throw new Error(`run ${ev.status}: ${ev.error?.message ?? ""}`);
        return;
      default:
        break;
    }
  }
  throw new Error("the stream ended before run_finished");
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
