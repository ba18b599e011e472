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
};

export function errorAdvice(code: string): ErrorAdvice {
  return ADVICE[code] ?? { sentence: "The run stopped with an error.", fix: null };
}
