// Run errors in plain words. The server's code and message stay available under "Details";
// the sentence says what happened and, where the user can fix it, where.

export interface ErrorAdvice {
  /** One plain sentence. */
  sentence: string;
  /** Where to fix it, when the fix is in the app. */
  fix: "settings" | null;
}

const ADVICE: Record<string, ErrorAdvice> = {
  no_model_configured: { sentence: "No model is set up yet, so the agent could not answer.", fix: "settings" },
  provider_auth: { sentence: "The model provider refused the API key.", fix: "settings" },
  provider_unreachable: { sentence: "The model provider could not be reached.", fix: "settings" },
  provider_timeout: { sentence: "The model provider did not answer in time.", fix: null },
  provider_rate_limited: { sentence: "The model provider is limiting requests; wait a moment, then retry.", fix: null },
  provider_overloaded: { sentence: "The model provider is overloaded or failing right now.", fix: null },
  provider_bad_request: { sentence: "The model provider rejected the request (check the model name).", fix: "settings" },
  provider_stream_truncated: { sentence: "The model's answer broke off before it finished.", fix: null },
  provider_protocol: { sentence: "The model provider answered in a way Tradewind could not read.", fix: "settings" },
  context_length: { sentence: "The conversation is too long for this model; start a new session or pick a model with a larger context.", fix: null },
  iteration_limit: { sentence: "The agent stopped after too many steps in one run.", fix: null },
  interrupted: { sentence: "The server stopped while this run was going on.", fix: null },
  internal: { sentence: "Something went wrong inside Tradewind.", fix: null },
  spend_cap: { sentence: "This session reached its spend cap, so the run stopped before the next model call.", fix: null },
  no_native_search: {
    sentence: "Web search is set to the model provider's own, which this model's provider does not have: this run has no web search.",
    fix: "settings",
  },
  nothing_to_compact: {
    sentence: "Nothing to compact yet: the conversation is no longer than the latest turn, which is always kept.",
    fix: null,
  },
};

/** Codes that tell, not warn: shown as a quiet note rather than an error. */
export const INFO_CODES: ReadonlySet<string> = new Set(["nothing_to_compact"]);

/** A run stopped by the daily cap of all sessions together (the server's message says so). */
export function isDailyCap(message: string): boolean {
  return /\bdaily\b/i.test(message);
}

export function errorAdvice(code: string, message = ""): ErrorAdvice {
  if (code === "spend_cap" && isDailyCap(message)) {
    return { sentence: "Today's spend cap for all sessions together is reached, so the run stopped before the next model call.", fix: null };
  }
  return ADVICE[code] ?? { sentence: "The run stopped with an error.", fix: null };
}
