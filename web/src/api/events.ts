// Guards for event frames as they arrive (WebSocket or the REST `events` list): which JSON values
// are sequenced frames at all, and which frames are of a type this build knows.
import type { EventFrame, EventType, ServerEvent } from "./types";

/** Every event type of the OpenAPI document: tsc fails here when the document gains or loses one. */
const EVENT_TYPES: Record<EventType, true> = {
  user_message: true,
  run_started: true,
  message_delta: true,
  reasoning_delta: true,
  message_complete: true,
  tool_call: true,
  policy_decision: true,
  approval_requested: true,
  approval_decided: true,
  tool_result: true,
  error: true,
  provider_retry: true,
  model_usage: true,
  context_compacted: true,
  session_reverted: true,
  revert_undone: true,
  goal_updated: true,
  run_finished: true,
  question_asked: true,
  question_answered: true,
  plan_proposed: true,
  plan_decided: true,
  task_updated: true,
  wakeup: true,
  session_updated: true,
  child_pending: true,
};

/** A sequenced event frame (not an ack or error reply): a seq, the session's id and a type. */
export function isServerEvent(f: unknown): f is ServerEvent {
  return (
    typeof f === "object" &&
    f !== null &&
    "seq" in f &&
    typeof f.seq === "number" &&
    "session" in f &&
    typeof f.session === "string" &&
    "type" in f &&
    typeof f.type === "string"
  );
}

/** A frame whose type the OpenAPI document describes (others are to be ignored). */
export function isKnownEvent(ev: ServerEvent): ev is EventFrame {
  return Object.hasOwn(EVENT_TYPES, ev.type);
}
