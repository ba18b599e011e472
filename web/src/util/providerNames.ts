// Model providers by their proper names: the kinds the server speaks to (`openai`, `anthropic`,
// the test-only `replay`) and, behind an OpenAI-compatible one, the model server it found.

/** The kinds the provider forms offer (the replay provider is only ever set by a start flag). */
export const FORM_KINDS = ["openai", "anthropic"] as const;
export type FormKind = (typeof FORM_KINDS)[number];

const KIND: Record<string, string> = {
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
  replay: "Replay (scripted, for tests)",
};

/** The model servers the server recognises behind an OpenAI-compatible provider. */
const MODEL_SERVER: Record<string, string> = {
  ollama: "Ollama",
  llama_cpp: "llama.cpp",
  vllm: "vLLM",
  lm_studio: "LM Studio",
};

/** Is this a kind the forms offer? */
export function isFormKind(kind: string | null | undefined): kind is FormKind {
  return kind === "openai" || kind === "anthropic";
}

/**
 * A provider's kind by its proper name: "Anthropic", "OpenAI-compatible", "OpenAI Responses"
 * (an OpenAI provider speaking the Responses API), "Ollama (OpenAI-compatible)" (the model server
 * it found), "Replay (scripted, for tests)"; an unknown kind as the server names it.
 */
export function providerKindName(kind: string, apiMode?: string | null, server?: string | null): string {
  if (kind === "openai") {
    if (apiMode === "responses") return "OpenAI Responses";
    const found = server ? MODEL_SERVER[server] : undefined;
    return found ? `${found} (OpenAI-compatible)` : KIND.openai;
  }
  return KIND[kind] ?? kind;
}
