export type ApiModeChoice = "chat" | "responses";

/** The API an OpenAI provider speaks: Chat Completions (any compatible server) or Responses. */
export function ApiModeField({ value, onChange }: { value: ApiModeChoice; onChange: (v: ApiModeChoice) => void }) {
  return (
    <label class="field">
      <span>API</span>
      <select name="api_mode" value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as ApiModeChoice)}>
        <option value="chat">Chat Completions (any OpenAI-compatible server)</option>
        <option value="responses">Responses (OpenAI's newer models, Codex)</option>
      </select>
    </label>
  );
}
