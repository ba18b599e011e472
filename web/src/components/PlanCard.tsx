import { render } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Mode, PlanDiagram } from "../api/types";
import { lineDiff } from "../render/linediff";
import { drafts, planAnswers } from "../state/comments";
import { selectionLines } from "../util/planLines";
import { renderMarkdown } from "../render/markdown";
import { useAction } from "../state/action";
import { serverConfig } from "../state/app";
import { useObservable } from "../state/observable";
import { artifactsPanel, openArtifacts } from "../state/panels";
import type { PlanState } from "../state/transcript";
import { Diagram } from "./Diagram";
import { addCodeCopyButtons } from "./codeCopy";
import { enhanceDiagrams } from "./diagrams";
import { FormError } from "./FormError";
import type { PlanPick } from "./PlanComments";
import { lazyModule } from "../util/lazyModule";
import { openExternal } from "./Markdown";
import { useScrollFocus } from "./useScrollFocus";
import { VisibleText } from "./VisibleText";

/** Plan comments' code comes with the first plan card shown. */
const usePlanComments = lazyModule<typeof import("./PlanComments")>(() => import("./PlanComments"));

const DECISION: Record<string, string> = {
  approved: "Approved",
  feedback: "Feedback sent",
  skipped: "Skipped",
  unavailable: "Not reviewed",
};

/** How long "Plan skipped — Undo" stays before the skip is sent (Skip now sends it at once). */
const SKIP_UNDO_MS = 30_000;

const MARK_LABEL: Record<string, string> = { new: "new", updated: "updated", unchanged: "unchanged" };

function norm(s: string): string {
  return s.replace(/^#+\s*/, "").replace(/\s+/g, " ").trim().toLowerCase();
}

type DiagramResult = (id: string, error: string | null) => void;

/** Plans whose render errors were reported (once per plan, also across remounts). */
const reportedPlans = new Set<string>();

function DiagramView({ d, onResult }: { d: PlanDiagram; onResult?: DiagramResult }) {
  const mark = MARK_LABEL[d.mark] ?? d.mark;
  return (
    <div class="plan-diagram" data-diagram-id={d.id}>
      <div class="plan-diagram-head">
        <b class="plan-diagram-title">{d.title || d.id}</b>
        {mark && <span class={`badge badge-${mark}`}>{mark}</span>}
        {d.type && <span class="muted small">{d.type}</span>}
      </div>
      {d.explanation && <p class="muted small plan-diagram-expl">{d.explanation}</p>}
      <Diagram source={d.mermaid} onResult={onResult && ((err) => onResult(d.id, err))} />
    </div>
  );
}

/** The plan's Markdown with each diagram placed after the heading its `section` names. */
function PlanBody({ text, diagrams, onResult }: { text: string; diagrams: PlanDiagram[]; onResult?: DiagramResult }) {
  const ref = useRef<HTMLDivElement>(null);
  // Its headings rank below the card's title (h2).
  const html = useMemo(() => renderMarkdown(text, 3), [text]);
  const [unplaced, setUnplaced] = useState<PlanDiagram[]>([]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const headings = [...el.querySelectorAll<HTMLElement>("h1, h2, h3, h4, h5, h6")];
    const slots: HTMLElement[] = [];
    const rest: PlanDiagram[] = [];
    const lastSlot = new Map<HTMLElement, HTMLElement>();
    for (const d of diagrams) {
      const want = d.section ? norm(d.section) : "";
      const h = want ? headings.find((x) => norm(x.textContent ?? "") === want) : undefined;
      if (!h) {
        rest.push(d);
        continue;
      }
      const slot = document.createElement("div");
      slot.className = "plan-diagram-slot";
      // Several diagrams in one section keep their order.
      (lastSlot.get(h) ?? h).after(slot);
      lastSlot.set(h, slot);
      render(<DiagramView d={d} onResult={onResult} />, slot);
      slots.push(slot);
    }
    setUnplaced(rest);
    if (el.querySelector("pre code[class*='language-']")) {
      void import("../render/highlight").then((m) => m.highlightWithin(el));
    }
    enhanceDiagrams(el);
    addCodeCopyButtons(el);
    return () => {
      for (const s of slots) {
        render(null, s);
        s.remove();
      }
    };
  }, [html, diagrams]);

  return (
    <>
      <div class="markdown plan-markdown" ref={ref} onClick={openExternal} dangerouslySetInnerHTML={{ __html: html }} />
      {unplaced.length > 0 && (
        <div class="plan-diagrams">
          <h3>Diagrams</h3>
          {unplaced.map((d) => (
            <DiagramView key={d.id} d={d} onResult={onResult} />
          ))}
        </div>
      )}
    </>
  );
}

function RevisionDiff({ plan }: { plan: PlanState }) {
  const pc = usePlanComments(true);
  const revs = plan.revisions;
  const idx = Math.max(0, revs.indexOf(plan));
  const [from, setFrom] = useState(Math.max(0, idx - 1));
  const [to, setTo] = useState(idx);
  const a = revs[from];
  const b = revs[to];
  const rows = useMemo(() => (a && b ? lineDiff(a.event.plan, b.event.plan) : []), [a, b]);
  const label = (p: PlanState) => {
    const answered = p.event.answers?.length ?? 0;
    const marks = answered > 0 ? ` · answers ${answered === 1 ? "1 comment" : `${answered} comments`}` : "";
    return `revision ${p.event.revision ?? revs.indexOf(p) + 1}${p.event.title ? ` — ${p.event.title}` : ""}${marks}`;
  };
  const changed = rows.filter((r) => r.op !== " ").length;
  // A long comparison scrolls: reachable with the keyboard too.
  const scrollRoot = useScrollFocus<HTMLDivElement>("Differences in plan.md");
  return (
    <div class="plan-revdiff" ref={scrollRoot}>
      <div class="row">
        <label class="field inline">
          <span>From</span>
          <select aria-label="From revision" value={String(from)} onChange={(e) => setFrom(Number((e.target as HTMLSelectElement).value))}>
            {revs.map((p, i) => (
              <option key={p.id} value={String(i)}>
                {label(p)}
              </option>
            ))}
          </select>
        </label>
        <label class="field inline">
          <span>to</span>
          <select aria-label="To revision" value={String(to)} onChange={(e) => setTo(Number((e.target as HTMLSelectElement).value))}>
            {revs.map((p, i) => (
              <option key={p.id} value={String(i)}>
                {label(p)}
              </option>
            ))}
          </select>
        </label>
        <span class="muted small">{changed === 0 ? "plan.md is identical" : `${changed} changed line${changed === 1 ? "" : "s"}`}</span>
      </div>
      {b && pc.mod && <pc.mod.RevisionAnswers to={b} revisions={revs} />}
      {changed > 0 && (
        <pre class="line-diff" aria-label="Differences in plan.md">
          {rows.map((r, i) => (
            <div key={i} class={r.op === "+" ? "ld-add" : r.op === "-" ? "ld-del" : "ld-same"}>
              <span class="ld-sign" aria-hidden="true">
                {r.op}
              </span>
              <VisibleText text={r.text} />
            </div>
          ))}
        </pre>
      )}
    </div>
  );
}

export function PlanCard({ plan }: { plan: PlanState }) {
  const pc = usePlanComments(true);
  const e = plan.event;
  const [feedback, setFeedback] = useState("");
  const [giving, setGiving] = useState(false);
  const [comparing, setComparing] = useState(false);
  /** The plan is shown line by line, to comment on (else rendered). */
  const [lineView, setLineView] = useState(false);
  const [pick, setPick] = useState<PlanPick | null>(null);
  /** The lines a text selected in the rendered plan covers (offered as "Comment on lines …"). */
  const [selected, setSelected] = useState<PlanPick | null>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const cfg = useObservable(serverConfig);
  // Full mode is worth offering only where the start flags let more than edits run unasked.
  const offerFull = !!cfg && !cfg.read_only && (cfg.ceiling.process || cfg.ceiling.external || cfg.yolo);
  // The card's buttons go with the plan_decided event: busy until then. An approval may set the
  // session's mode for the implementation (`mode`; left out, the mode stays).
  const decision = useAction(
    (d: "approved" | "feedback" | "skipped", mode?: Mode) =>
      api.decidePlan(plan.id, d, d === "feedback" ? feedback.trim() : undefined, mode),
    { stayBusy: true },
  );
  const busy = decision.busy;
  const decide = decision.run;
  const root = useRef<HTMLElement>(null);
  const pending = plan.decision === null && !plan.expired;
  const diagrams = e.diagrams;
  const removed = e.removed;
  const dropped = e.dropped;
  const text = e.plan;
  const latest = plan.revisions[plan.revisions.length - 1] === plan;
  const answers = useMemo(() => planAnswers(plan.revisions.map((r) => ({ answers: r.event.answers, revision: r.event.revision }))), [plan.revisions.length]);
  const toSend = drafts(plan.comments, "plan", plan.id).length;
  // "Request changes": the drafts on this revision are its feedback (the next revision answers each).
  const requestChanges = useAction(() => api.sendComments(e.session, "plan"), { stayBusy: true });
  const onPick = (line: number, extend: boolean) =>
    setPick((cur) => (extend && cur ? { start: Math.min(cur.start, line), end: Math.max(cur.end, line) } : { start: line, end: line }));
  const readSelection = () => {
    const sel = window.getSelection();
    const inside = !!sel && !sel.isCollapsed && !!bodyRef.current?.contains(sel.anchorNode);
    setSelected(inside && sel ? selectionLines(text, sel.toString()) : null);
  };
  const commentOnSelection = () => {
    if (!selected) return;
    setPick(selected);
    setSelected(null);
    setLineView(true);
  };

  // Diagrams the browser could not render are reported to the server once per pending plan, so the
  // model hears about them with the decision and can fix them.
  const results = useRef(new Map<string, string | null>());
  const pendingRef = useRef(pending);
  pendingRef.current = pending;
  const onDiagram = useMemo<DiagramResult>(
    () => (id, err) => {
      results.current.set(id, err);
      if (results.current.size < diagrams.length || reportedPlans.has(plan.id) || !pendingRef.current) return;
      const errors = [...results.current]
        .filter((x): x is [string, string] => x[1] !== null)
        .map(([diagram_id, message]) => ({ diagram_id, message: message.slice(0, 2000) }))
        .slice(0, 10);
      if (errors.length === 0) return;
      reportedPlans.add(plan.id);
      // 409: decided meanwhile, nothing left to tell.
      api.reportRenderErrors(plan.id, errors).catch(() => undefined);
    },
    [plan.id, diagrams],
  );

  // An arriving plan never takes the focus: the pending bar and the card's own buttons lead here.
  // Esc on the card skips it, but only after SKIP_UNDO_MS with an Undo offered meanwhile.
  const [skipping, setSkipping] = useState(false);
  const skipTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const sendSkip = useRef<(() => void) | null>(null);
  // When the skip is sent, and the seconds left shown beside Undo.
  const skipAt = useRef(0);
  const [skipLeft, setSkipLeft] = useState(0);
  useEffect(() => {
    if (!skipping) return;
    const tick = () => setSkipLeft(Math.max(0, Math.ceil((skipAt.current - Date.now()) / 1000)));
    tick();
    const t = setInterval(tick, 1000);
    return () => clearInterval(t);
  }, [skipping]);

  const startSkip = () => {
    skipAt.current = Date.now() + SKIP_UNDO_MS;
    setSkipping(true);
    const send = () => {
      clearTimeout(skipTimer.current);
      sendSkip.current = null;
      setSkipping(false);
      void decide("skipped");
    };
    sendSkip.current = send;
    skipTimer.current = setTimeout(send, SKIP_UNDO_MS);
  };

  const undoSkip = () => {
    clearTimeout(skipTimer.current);
    sendSkip.current = null;
    setSkipping(false);
    requestAnimationFrame(() =>
      root.current?.querySelector<HTMLButtonElement>(".plan-actions .btn.primary")?.focus({ preventScroll: true }),
    );
  };

  // Decided elsewhere (another tab) or the run ended: nothing left to skip.
  useEffect(() => {
    if (!pending && sendSkip.current) {
      clearTimeout(skipTimer.current);
      sendSkip.current = null;
      setSkipping(false);
    }
  }, [pending]);
  // Leaving the session during the grace period still sends the skip the user asked for.
  useEffect(() => () => sendSkip.current?.(), []);
  useLayoutEffect(() => {
    if (skipping) root.current?.querySelector<HTMLButtonElement>(".plan-undo button")?.focus({ preventScroll: true });
  }, [skipping]);

  const compareButton = useRef<HTMLButtonElement>(null);
  const onKeyDown = (ev: KeyboardEvent) => {
    if (ev.key !== "Escape") return;
    // The revision comparison is its own: Esc closes it (and only it); skipping is the Skip button's.
    if (comparing) {
      ev.preventDefault();
      ev.stopPropagation();
      setComparing(false);
      compareButton.current?.focus({ preventScroll: true });
      return;
    }
    // On the Compare button, or while the Artifacts drawer is open (its Esc closes it), never a skip.
    if (ev.target === compareButton.current || artifactsPanel.get()) return;
    if (!pending || skipping) return;
    ev.preventDefault();
    ev.stopPropagation();
    if (giving) setGiving(false);
    else startSkip();
  };

  return (
    <section
      ref={root}
      class={`plan-card${pending ? " pending" : ""}`}
      data-plan-id={plan.id}
      data-revision={e.revision}
      aria-label={`Plan review: ${e.title || "proposed plan"}${typeof e.revision === "number" ? `, revision ${e.revision}` : ""}`}
      onKeyDown={onKeyDown}
    >
      <header class="plan-head">
        <span class="chip">plan</span>
        <h2>{e.title || "Proposed plan"}</h2>
        {typeof e.revision === "number" && <span class="muted small">revision {e.revision}</span>}
        {!pending && (
          <span class={`badge plan-decision decision-${plan.decision ?? "expired"}`}>
            {plan.reason ? plan.reason : plan.decision ? (DECISION[plan.decision] ?? plan.decision) : "no longer waiting"}
          </span>
        )}
        {!latest && <span class="badge">superseded</span>}
      </header>
      {lineView ? (
        pc.mod && <pc.mod.PlanLines plan={plan} pick={pick} answers={answers} onPick={onPick} onDone={() => setPick(null)} />
      ) : (
        <>
          <div class="plan-body" ref={bodyRef} onMouseUp={readSelection} onKeyUp={readSelection}>
            <PlanBody text={text} diagrams={diagrams} onResult={onDiagram} />
          </div>
          {pc.mod && <pc.mod.PlanCommentList plan={plan} answers={answers} />}
        </>
      )}
      {(removed.length > 0 || dropped.length > 0) && (
        <div class="plan-notes">
          {removed.length > 0 && (
            <div class="plan-removed">
              <b>Removed diagrams</b> (since the previous revision):
              <ul>
                {removed.map((id) => (
                  <li key={id}>
                    <code>{id}</code>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {dropped.length > 0 && (
            <div class="plan-dropped">
              <b>Dropped diagrams</b> (failed validation, not shown):
              <ul>
                {dropped.map((d) => (
                  <li key={d.id}>
                    <code>
                      <VisibleText text={d.id} />
                    </code>{" "}
                    — <VisibleText text={d.reason} />
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
      <div class="row plan-tools">
        {plan.revisions.length > 1 && (
          <button
            ref={compareButton}
            type="button"
            class="btn small ghost"
            aria-expanded={comparing}
            title={comparing ? "Esc closes the comparison" : undefined}
            onClick={() => setComparing(!comparing)}
          >
            {comparing ? "Hide revision diff" : `Compare revisions (${plan.revisions.length})`}
          </button>
        )}
        {e.artifact_id && (
          <button type="button" class="btn small ghost" onClick={() => openArtifacts(e.artifact_id)}>
            Plan files
          </button>
        )}
        {(pending || plan.comments.length > 0) && (
          <button
            type="button"
            class="btn small ghost"
            aria-pressed={lineView}
            title={lineView ? "Show the plan rendered" : "Show the plan line by line: a line's number, clicked, starts a comment"}
            onClick={() => {
              setLineView(!lineView);
              setPick(null);
            }}
          >
            {pending ? "Comment on lines" : "Comments by line"}
          </button>
        )}
        {pending && !lineView && selected && (
          <button type="button" class="btn small plan-comment-selection" onClick={commentOnSelection}>
            Comment on {selected.start === selected.end ? `line ${selected.start}` : `lines ${selected.start}–${selected.end}`}
          </button>
        )}
      </div>
      {comparing && <RevisionDiff plan={plan} />}
      {plan.feedback && (
        <p class="plan-feedback">
          Feedback: <VisibleText text={plan.feedback} />
        </p>
      )}
      {plan.decision === "approved" && <p class="muted small">The session switched to build to implement this plan.</p>}
      {pending && skipping && (
        <div class="plan-undo" role="status">
          <span>Plan skipped —</span>
          <button type="button" class="btn small" onClick={undoSkip}>
            Undo
          </button>
          <span class="muted small plan-undo-left">sent in {skipLeft} s</span>
          <button type="button" class="btn small ghost" onClick={() => sendSkip.current?.()}>
            Skip now
          </button>
        </div>
      )}
      {pending && !skipping && (
        <div class="plan-actions">
          {giving ? (
            <div class="feedback-box">
              <textarea
                aria-label="Feedback on the plan"
                value={feedback}
                rows={3}
                placeholder="What should change?"
                onInput={(ev) => setFeedback((ev.target as HTMLTextAreaElement).value)}
                autofocus
              />
              <div class="row">
                <button type="button" class="btn primary" disabled={busy || !feedback.trim()} onClick={() => void decide("feedback")}>
                  Send feedback
                </button>
                <button type="button" class="btn ghost" onClick={() => setGiving(false)}>
                  Back
                </button>
              </div>
            </div>
          ) : (
            <div class="row">
              <button
                type="button"
                class="btn primary"
                disabled={busy}
                title="The session keeps its permissions"
                onClick={() => void decide("approved")}
              >
                Approve
              </button>
              <button
                type="button"
                class="btn"
                disabled={busy}
                title="The session switches to auto: edits in the workspace run without asking"
                onClick={() => void decide("approved", "auto")}
              >
                Approve and auto-accept edits
              </button>
              {offerFull && (
                <button
                  type="button"
                  class="btn"
                  disabled={busy}
                  title="The session switches to full: everything the server allows runs without asking"
                  onClick={() => void decide("approved", "full")}
                >
                  Approve in full mode
                </button>
              )}
              <button type="button" class="btn" disabled={busy} onClick={() => setGiving(true)}>
                Add feedback
              </button>
              {toSend > 0 && (
                <button
                  type="button"
                  class="btn plan-request-changes"
                  disabled={busy || requestChanges.busy}
                  title="The comments on this revision go to the agent, which revises the plan and answers each"
                  onClick={() => void requestChanges.run()}
                >
                  Request changes ({toSend})
                </button>
              )}
              <button type="button" class="btn ghost" disabled={busy} onClick={() => void decide("skipped")} title="Esc">
                Skip
              </button>
              <span class="muted small kbd-hint">Esc skips (with Undo)</span>
            </div>
          )}
          <FormError error={decision.error ?? requestChanges.error} small />
        </div>
      )}
    </section>
  );
}
