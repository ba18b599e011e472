import { useId } from "preact/hooks";
import type { SkillInfo } from "../api/types";
import { FormError } from "./FormError";
import { VisibleText } from "./VisibleText";

/** Where a skill comes from, in a word, and what that means. */
const SOURCE: Record<string, { text: string; title: string }> = {
  workspace: { text: "workspace", title: "In this workspace's .tradewind/skills, .agents/skills or .claude/skills" },
  user: { text: "user", title: "In skills/ of the state directory: every workspace sees it" },
  plugin: { text: "plugin", title: "Bundled with an enabled plugin (Settings → Plugins): every workspace sees it" },
};

/**
 * One skill: its name, source, on/off switch, description, the tools it lists, its folder and the
 * start of its instructions (folded). `pending`: the state a switch request under way asks for
 * (null: none for this skill); `busy`: a switch request is under way (for any skill).
 */
export function SkillItem({
  skill: s,
  pending,
  busy,
  error,
  onSwitch,
}: {
  skill: SkillInfo;
  pending: boolean | null;
  busy: boolean;
  error: string | null;
  onSwitch: (enabled: boolean) => void;
}) {
  const headId = useId();
  const descId = useId();
  const source = SOURCE[s.source] ?? { text: s.source, title: s.source };
  const on = pending ?? s.enabled;
  return (
    <li class="extension skill" data-skill={s.name} data-source={s.source} data-enabled={String(s.enabled)} aria-labelledby={headId}>
      <div class="extension-head">
        <h3 id={headId}>{s.name}</h3>
        <span class="chip extension-source" data-source={s.source} title={source.title}>
          <span class="visually-hidden">source: </span>
          {source.text}
        </span>
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-label={`Enabled: skill ${s.name}`}
            checked={on}
            aria-describedby={descId}
            // aria-disabled, not disabled: the focus stays on the switch while its request runs;
            // a click meanwhile changes nothing.
            aria-disabled={busy}
            onClick={(e) => busy && e.preventDefault()}
            onChange={(e) => onSwitch((e.target as HTMLInputElement).checked)}
          />
          <span aria-hidden="true">Enabled</span>
        </label>
      </div>
      <p class="extension-desc" id={descId}>
        <VisibleText text={s.description} />
      </p>
      {!s.enabled && (
        <p class="muted small" data-skill-off>
          Off in this workspace: never offered to the model, nor a slash command.
        </p>
      )}
      {s.allowed_tools.length > 0 && (
        <p class="small skill-tools">
          Tools it lists:{" "}
          {s.allowed_tools.map((t, i) => (
            <span key={t}>
              {i > 0 && ", "}
              <code>{t}</code>
            </span>
          ))}{" "}
          <span class="muted">(listed, never a grant: each call still asks as any other)</span>
        </p>
      )}
      <p class="muted small extension-where">
        Folder: <code>{s.dir}</code>
      </p>
      {s.preview.trim() && (
        <details class="skill-preview">
          <summary>
            Instructions<span class="visually-hidden"> of {s.name}</span>
          </summary>
          <pre>
            <VisibleText text={s.preview} />
          </pre>
        </details>
      )}
      <FormError error={error} small />
    </li>
  );
}
