import { useId } from "preact/hooks";
import type { HookFileInfo, HookInfo } from "../api/types";
import { fileSource, type HookGroup, matcherText } from "../util/extensions";
import { VisibleText } from "./VisibleText";

/** One hook: the tools it runs for (a tool event's), its time limit, its command, its file. */
function HookRow({ hook: h, tools, source }: { hook: HookInfo; tools: boolean; source: string | null }) {
  const matcher = matcherText(h.matcher);
  return (
    <li class="extension hook" data-hook-event={h.event} data-source={source ?? undefined}>
      <div class="extension-head">
        {tools && (
          <span class="small hook-matcher">
            {matcher ? (
              <>
                For tools matching <code>{matcher}</code>
              </>
            ) : (
              "For every tool"
            )}
          </span>
        )}
        <span class="chip hook-timeout">timeout {h.timeout_secs} s</span>
        {source && (
          <span class="chip extension-source" data-source={source}>
            <span class="visually-hidden">source: </span>
            {source}
          </span>
        )}
      </div>
      {/* A command must look exactly like what will run: invisible characters shown. */}
      <code class="hook-command">
        <VisibleText text={h.command} />
      </code>
      <p class="muted small extension-where">
        In <code>{h.file}</code>
      </p>
    </li>
  );
}

/** The hooks of one event, under the event's name and what it means. */
export function HookGroupView({ group: g, files }: { group: HookGroup; files: readonly HookFileInfo[] }) {
  const headId = useId();
  return (
    <div class="hook-group" data-hook-group={g.event}>
      <h3 id={headId}>{g.event}</h3>
      {g.when && <p class="muted small hook-when">{g.when}</p>}
      <ul class="extension-list" aria-labelledby={headId}>
        {g.hooks.map((h, i) => (
          <HookRow key={`${h.file}:${i}`} hook={h} tools={g.tools} source={fileSource(files, h.file)} />
        ))}
      </ul>
    </div>
  );
}
