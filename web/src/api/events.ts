// Guards for what arrives from the server (WebSocket frames, the REST `events` list), typed by the
// generated contract: which JSON values are sequenced event frames at all, which of those are of a
// type this build knows, and which are the WebSocket's control frames.
import type { EventFrame, EventType, KnownEvent, WsServerFrame, WsServerFrameType } from "./types";

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
  tool_output: true,
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
  task_output: true,
  review_comment_added: true,
  review_comment_updated: true,
  review_comment_resolved: true,
  wakeup: true,
  session_updated: true,
  child_pending: true,
  web_search: true,
  hook_ran: true,
};

/** A sequenced event frame (not an ack or error reply): a seq, the session's id and a type. */
export function isEventFrame(f: unknown): f is EventFrame {
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
export function isKnownEvent(ev: EventFrame): ev is KnownEvent {
  return Object.hasOwn(EVENT_TYPES, ev.type);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * What each control frame must hold to be read as one (the fields the app reads). tsc fails here
 * when the document gains or loses a frame type.
 */
const WS_SERVER_FRAMES: Record<WsServerFrameType, (f: Record<string, unknown>) => boolean> = {
  ack: (f) => isObject(f.result),
  error: (f) => isObject(f.error) && typeof f.error.code === "string" && typeof f.error.message === "string",
  session_updated: (f) => typeof f.session === "string" && isObject(f.data) && typeof f.data.id === "string",
  session_deleted: (f) => typeof f.session === "string",
  sessions_resync: () => true,
  terminal_exited: (f) => typeof f.terminal === "string" && (f.code === undefined || f.code === null || typeof f.code === "number"),
  terminal_closed: (f) => typeof f.terminal === "string" && typeof f.reason === "string",
};

/**
 * A WebSocket control frame (`WsServerFrame`): no seq, a known type and the fields it needs. A
 * session's own event log carries `session_updated` and `error` too, with a seq: those are events.
 */
export function isWsServerFrame(f: unknown): f is WsServerFrame {
  if (!isObject(f) || "seq" in f || typeof f.type !== "string" || !isServerFrameType(f.type)) return false;
  return WS_SERVER_FRAMES[f.type](f);
}

const isServerFrameType = (t: string): t is WsServerFrameType => Object.hasOwn(WS_SERVER_FRAMES, t);
