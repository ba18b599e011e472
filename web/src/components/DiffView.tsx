import { useMemo, useState } from "preact/hooks";
import type { DiffPart } from "../api/types";
import { type DiffLine, type Segment, foldContext, parsePatch, splitRows } from "../render/diff";
import { type DiffLayout, storeLayout, storedLayout } from "../state/diffLayout";
import { CopyButton } from "./CopyButton";
import { VisibleText } from "./VisibleText";

type Layout = DiffLayout;
const MAX_LINES = 1500;

export function DiffView({ part }: { part: DiffPart }) {
  const parsed = useMemo(() => parsePatch(part.patch ?? ""), [part.patch]);
  const [layout, setLayout] = useState<Layout>(storedLayout);
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const [showAll, setShowAll] = useState(false);
  const isNew = parsed.oldPath === "/dev/null";
  const isDeleted = parsed.newPath === "/dev/null";
  const total = parsed.hunks.reduce((n, h) => n + h.lines.length, 0);
  const limited = !showAll && total > MAX_LINES;

  const changeLayout = (l: Layout) => {
    setLayout(l);
    storeLayout(l);
  };

  const expand = (id: string) => setExpanded((s) => new Set(s).add(id));

  let budget = limited ? MAX_LINES : Infinity;
  return (
    <figure class="diff" data-path={part.path}>
      <figcaption class="diff-head">
        <span class="diff-path">
          <VisibleText text={part.path} />
        </span>
        {isNew && <span class="badge badge-new">new file</span>}
        {isDeleted && <span class="badge badge-del">deleted</span>}
        <span class="diff-stat">
          <span class="add">+{parsed.added}</span> <span class="del">−{parsed.removed}</span>
        </span>
        {part.truncated && <span class="badge badge-warn" title="The patch was cut at a line boundary">truncated</span>}
        <span class="spacer" />
        <CopyButton label="Copy diff" text={() => part.patch ?? ""} />
        <span class="seg" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={layout === "unified"} onClick={() => changeLayout("unified")}>
            Unified
          </button>
          <button type="button" aria-pressed={layout === "split"} onClick={() => changeLayout("split")}>
            Split
          </button>
        </span>
      </figcaption>
      <div class="diff-scroll">
        <table class={`diff-table diff-${layout}`}>
          {parsed.hunks.map((h, hi) => {
            if (budget <= 0) return null;
            const segs = foldContext(h.lines, hi);
            const rows: preact.JSX.Element[] = [];
            rows.push(
              <tr class="hunk-head" key={`h${hi}`}>
                <td colSpan={layout === "split" ? 4 : 3}>{h.header}</td>
              </tr>,
            );
            const lines: DiffLine[] = [];
            const flushLines = () => {
              if (lines.length === 0) return;
              const chunk = lines.splice(0, lines.length).slice(0, Math.max(0, budget));
              budget -= chunk.length;
              rows.push(...(layout === "split" ? splitRowsView(chunk, rows.length) : unifiedRows(chunk, rows.length)));
            };
            for (const seg of segs as Segment[]) {
              if ("id" in seg && seg.kind === "fold") {
                if (expanded.has(seg.id)) {
                  lines.push(...seg.lines);
                } else {
                  flushLines();
                  rows.push(
                    <tr class="fold" key={`f${seg.id}`}>
                      <td colSpan={layout === "split" ? 4 : 3}>
                        <button type="button" class="linklike small" onClick={() => expand(seg.id)}>
                          ⋯ {seg.lines.length} unchanged lines
                        </button>
                      </td>
                    </tr>,
                  );
                }
              } else {
                lines.push(seg as DiffLine);
              }
            }
            flushLines();
            return <tbody key={hi}>{rows}</tbody>;
          })}
        </table>
        {parsed.hunks.length === 0 && <p class="muted small pad">No textual changes.</p>}
      </div>
      {limited && (
        <button type="button" class="btn small ghost diff-more" onClick={() => setShowAll(true)}>
          Large diff: show all {total} lines
        </button>
      )}
    </figure>
  );
}

const SIGN = { add: "+", del: "−", ctx: " ", meta: "" } as const;

function unifiedRows(lines: DiffLine[], base: number): preact.JSX.Element[] {
  return lines.map((l, i) => (
    <tr class={`dl dl-${l.kind}`} key={`u${base}-${i}`}>
      <td class="ln">{l.oldNo ?? ""}</td>
      <td class="ln">{l.newNo ?? ""}</td>
      <td class="code">
        <span class="sign" aria-hidden="true">{SIGN[l.kind]}</span>
        <VisibleText text={l.text} />
      </td>
    </tr>
  ));
}

function splitRowsView(lines: DiffLine[], base: number): preact.JSX.Element[] {
  return splitRows(lines).map((r, i) => (
    <tr class="dl" key={`s${base}-${i}`}>
      <td class={`ln dl-${r.left?.kind ?? "empty"}`}>{r.left?.oldNo ?? ""}</td>
      <td class={`code half dl-${r.left?.kind ?? "empty"}`}>
        {r.left && <VisibleText text={r.left.text} />}
      </td>
      <td class={`ln dl-${r.right?.kind ?? "empty"}`}>{r.right?.newNo ?? ""}</td>
      <td class={`code half dl-${r.right?.kind ?? "empty"}`}>
        {r.right && <VisibleText text={r.right.text} />}
      </td>
    </tr>
  ));
}
