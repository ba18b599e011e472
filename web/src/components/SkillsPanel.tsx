import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { SkillInfo, SkillList } from "../api/types";
import { useAction } from "../state/action";
import { useReloadOnPluginSwitch } from "../state/plugins";
import { useTrust } from "../state/trust";
import { FormError } from "./FormError";
import { SkillItem } from "./SkillItem";
import { SkippedList } from "./SkippedList";
import { TrustBanner } from "./TrustBanner";
import "../extensions.css";

/** What the page says when the skills changed between being shown and being trusted. */
const CHANGED = "The workspace's skills changed since they were shown: they are shown again as they are now. Read them, then trust them again.";

const EXAMPLE = `---
name: release-notes
description: Write the release notes from the commits since the last tag.
allowed-tools: shell, read_file
---
Run git log from the last tag, group the commits…`;

/** Where skills go: shown when there is none, folded away under the list otherwise. */
function SkillsHelp() {
  return (
    <>
      <p class="small">
        A skill is a folder with a <code>SKILL.md</code>: front matter with its <code>name</code> and{" "}
        <code>description</code>, then the instructions. Put it in this workspace's{" "}
        <code>.tradewind/skills/&lt;name&gt;/SKILL.md</code> (or <code>.agents/skills</code>, <code>.claude/skills</code>
        ), or for every workspace in <code>skills/</code> of the state directory (<code>$TRADEWIND_HOME</code>, by
        default <code>~/.tradewind</code>). For example:
      </p>
      <pre class="extension-example">{EXAMPLE}</pre>
    </>
  );
}

/**
 * Settings → Skills: the Agent Skills a session of the server's workspace sees (the workspace's
 * own once trusted, the user's always, the enabled plugins'), each with its source, description,
 * the tools it lists, its folder and the start of its instructions; turn one on or off for the
 * workspace; trust the workspace's as they are; the folders left out and why. The list keeps the
 * server's order, the one a name is looked up in (the workspace's, the user's, the plugins', then
 * those turned off): of two skills of one name, the one listed is the first in that order, the
 * other is under "Left out".
 */
export function SkillsPanel() {
  const [list, setList] = useState<SkillList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  /** The skill the last switch was for: its row shows why it failed. */
  const [switched, setSwitched] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = () =>
    api.skills().then(
      (l) => {
        setList(l);
        setLoadError(null);
      },
      (e) => setLoadError(`Could not load the skills: ${errorText(e)}`),
    );

  useEffect(() => {
    void load();
  }, []);
  // A plugin switched on brings its skills, one switched off takes them away.
  useReloadOnPluginSwitch(load);

  const trust = useTrust(
    api.trustSkills,
    load,
    (l) => {
      setList(l);
      setStatus("Trusted: the workspace's skills are listed below.");
      // The banner and its button are gone: the focus goes to the panel's title.
      heading.current?.focus();
    },
    CHANGED,
  );

  const toggle = useAction(
    async (s: SkillInfo, enabled: boolean) => {
      setSwitched(s.name);
      setStatus(null);
      setList(await api.switchSkill(s.name, enabled));
    },
    { message: (e, s, enabled) => `${s.name} was not turned ${enabled ? "on" : "off"}: ${errorText(e)}` },
  );
  const pending = toggle.running ? { name: toggle.running[0].name, enabled: toggle.running[1] } : null;

  const trustedWorkspace = list && !list.untrusted && list.workspace_hash;
  const held = list?.untrusted && list.workspace_hash;

  return (
    <section class="card skills" aria-labelledby="skills-h">
      <h2 id="skills-h" tabIndex={-1} ref={heading}>
        Skills
      </h2>
      <p class="muted small">
        Agent Skills: instructions the agent loads when a task calls for one. Each skill that is on is offered to the
        model by its name and description, and is a slash command of its own. What a skill does still asks for your
        approval as anything else.
      </p>
      {held && (
        <TrustBanner
          what="skills"
          where={
            <>
              <code>.tradewind/skills</code>, <code>.agents/skills</code>, <code>.claude/skills</code>
            </>
          }
          hash={held}
          busy={trust.busy}
          onTrust={(h) => void trust.run(h)}
        >
          <FormError error={trust.error} small data-trust-error />
        </TrustBanner>
      )}
      {!held && <FormError error={trust.error} small data-trust-error />}
      {trustedWorkspace && (
        <p class="muted small" data-skills-trusted>
          This workspace's skills are trusted as they are now; a change holds them back until you trust them again.
        </p>
      )}
      {status && (
        <p class="ok small" role="status">
          {status}
        </p>
      )}
      {list && list.data.length === 0 && (
        <div class="extension-empty" data-skills-empty>
          <p>{held ? "No skill is in use until this workspace's are trusted." : "No skill yet."}</p>
          <SkillsHelp />
        </div>
      )}
      {list && list.data.length > 0 && (
        <>
          <ul class="extension-list skill-list" aria-label="Skills">
            {list.data.map((s) => (
              <SkillItem
                key={s.name}
                skill={s}
                pending={pending?.name === s.name ? pending.enabled : null}
                busy={toggle.busy}
                error={switched === s.name ? toggle.error : null}
                onSwitch={(on) => void toggle.run(s, on)}
              />
            ))}
          </ul>
          <details class="extension-help">
            <summary>Adding a skill</summary>
            <SkillsHelp />
          </details>
        </>
      )}
      {list && list.skipped.length > 0 && <SkippedList lines={list.skipped} data-skills-skipped />}
      <FormError error={loadError} />
    </section>
  );
}
