import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { HookFileInfo, HookList } from "../api/types";
import { useReloadOnPluginSwitch } from "../state/plugins";
import { useTrust } from "../state/trust";
import { groupHooks } from "../util/extensions";
import { FormError } from "./FormError";
import { HookGroupView } from "./HookGroupView";
import { TrustBanner } from "./TrustBanner";
import "../extensions.css";

/** What the page says when the hooks changed between being shown and being trusted. */
const CHANGED = "The workspace's hooks changed since they were shown: they are shown again as they are now. Read them, then trust them again.";

const EXAMPLE = `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "edit_file",
        "hooks": [{ "type": "command", "command": "npx prettier --write .", "timeout": 30 }]
      }
    ]
  }
}`;

/** Where hooks are set: shown when there is none, folded away under the list otherwise. */
function HooksHelp() {
  return (
    <>
      <p class="small">
        Hooks are set in <code>hooks.json</code> in the state directory (<code>$TRADEWIND_HOME</code>, by default{" "}
        <code>~/.tradewind</code>) for every workspace, or in this workspace's <code>.tradewind/hooks.json</code> (or
        the <code>hooks</code> of <code>.claude/settings.json</code>), which count once trusted. A hook gets the event
        as JSON on its standard input; exit 2 denies, with its standard error as the reason. For example:
      </p>
      <pre class="extension-example">{EXAMPLE}</pre>
    </>
  );
}

/** One hooks file: where it is, where it comes from, whether it is held back, what of it was left out. */
function HookFileItem({ file: f, heldBack }: { file: HookFileInfo; heldBack: boolean }) {
  return (
    <li class="hook-file" data-hook-file={f.path} data-source={f.source}>
      <div class="extension-head">
        <code class="extension-path">{f.path}</code>
        <span class="chip extension-source" data-source={f.source}>
          <span class="visually-hidden">source: </span>
          {f.source}
        </span>
        {heldBack && (
          <span class="badge badge-warn" data-held-back>
            held back
          </span>
        )}
      </div>
      {f.skipped.length > 0 && (
        <div class="small hook-file-skipped">
          Left out of it:
          <ul>
            {f.skipped.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

/**
 * Settings → Hooks: the commands that run at points of the runs of the server's workspace (the
 * user's `hooks.json`, and the workspace's once trusted), by event, with the tools each runs for,
 * its command and time limit; every hooks file found, where it comes from and what of it was
 * left out; trust the workspace's as they are.
 */
export function HooksPanel() {
  const [list, setList] = useState<HookList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = () =>
    api.hooks().then(
      (l) => {
        setList(l);
        setLoadError(null);
      },
      (e) => setLoadError(`Could not load the hooks: ${errorText(e)}`),
    );

  useEffect(() => {
    void load();
  }, []);
  // A plugin switched on brings its hooks file, one switched off takes it away.
  useReloadOnPluginSwitch(load);

  const trust = useTrust(
    api.trustHooks,
    load,
    (l) => {
      setList(l);
      setStatus("Trusted: the workspace's hooks are listed below.");
      // The banner and its button are gone: the focus goes to the panel's title.
      heading.current?.focus();
    },
    CHANGED,
  );

  const held = list?.untrusted && list.workspace_hash;
  const trustedWorkspace = list && !list.untrusted && list.workspace_hash;
  const groups = list ? groupHooks(list.data) : [];
  const files = list?.files ?? [];

  return (
    <section class="card hooks" aria-labelledby="hooks-h">
      <h2 id="hooks-h" tabIndex={-1} ref={heading}>
        Hooks
      </h2>
      <p class="muted small">
        Commands that run at points of a run: before and after a tool call, when a prompt is sent, when a run answers. A
        hook may deny a tool call or have it ask you, never allow more. Running a file's hooks counts as running a
        command: a session asks you first, unless its permissions let commands run.
      </p>
      {held && (
        <TrustBanner
          what="hooks"
          where={
            <>
              <code>.tradewind/hooks.json</code>, the <code>hooks</code> of <code>.claude/settings.json</code>
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
        <p class="muted small" data-hooks-trusted>
          This workspace's hooks are trusted as they are now; a change holds them back until you trust them again.
        </p>
      )}
      {status && (
        <p class="ok small" role="status">
          {status}
        </p>
      )}
      {list && groups.length === 0 && (
        <div class="extension-empty" data-hooks-empty>
          <p>{held ? "No hook runs until this workspace's are trusted." : "No hook is set."}</p>
          {files.length === 0 && <HooksHelp />}
        </div>
      )}
      {groups.map((g) => (
        <HookGroupView key={g.event} group={g} files={files} />
      ))}
      {files.length > 0 && (
        <div class="hook-files">
          <h3>Files</h3>
          <ul class="extension-list">
            {files.map((f) => (
              <HookFileItem key={f.path} file={f} heldBack={!!held && f.source === "workspace"} />
            ))}
          </ul>
        </div>
      )}
      {list && (groups.length > 0 || files.length > 0) && (
        <details class="extension-help">
          <summary>Adding a hook</summary>
          <HooksHelp />
        </details>
      )}
      <FormError error={loadError} />
    </section>
  );
}
