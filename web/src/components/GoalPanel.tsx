import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { Goal } from "../api/types";
import { useAction } from "../state/action";
import { pinnedPanelStartsOpen } from "../state/layout";
import { useObservable } from "../state/observable";
import { goalPanelRequest } from "../state/panels";
import { useClearNetworkError, useOnReconnect } from "../state/reconnect";
import type { GoalMark } from "../state/transcript";
import { FormError } from "./FormError";
import { GoalDetails, GoalStatusBadge, unverified } from "./GoalDetails";
import { GoalBudgetForm, GoalObjectiveForm, GoalStartForm } from "./GoalForms";
import "../goal.css";
import { askConfirm } from "../state/confirm";

/** The form open in the panel, if any. */
type Editing = "objective" | "budget" | "new" | null;

/** The goal as the API last answered, and the newest seq the transcript had applied then. */
interface Answer {
  goal: Goal | null;
  afterSeq: number;
}

/**
 * The session's goal, pinned above the composer and folded with its summary: the objective, its
 * status, each budget used against its limit, why it stopped, the latest report's evidence and
 * the earlier reports; Pause or Resume, Edit objective, Raise budget (and resume), New goal once
 * it ended, Delete (asked first). Read with GET when the session opens (if it has one), then
 * kept current by `goal_updated` events: an event applied after an answer of the API is newer
 * than it. Hidden while the session has no goal, unless `/goal` opened it to set one.
 */
export function GoalPanel({
  sessionId,
  hasGoal,
  fromEvents,
  lastSeq,
}: {
  sessionId: string;
  /** What the session says (`has_goal`); null until the session is read. */
  hasGoal: boolean | null;
  fromEvents: GoalMark | null;
  lastSeq: number;
}) {
  const [answer, setAnswer] = useState<Answer | null>(null);
  const seq = useRef(lastSeq);
  seq.current = lastSeq;
  const [readTry, setReadTry] = useState(0);
  const [open, setOpen] = useState(pinnedPanelStartsOpen);
  const [editing, setEditing] = useState<Editing>(null);
  const [note, setNote] = useState<string | null>(null);
  /** Pause, resume or delete: `failed` says what did not happen when it fails. */
  const action = useAction(
    async (_failed: string, work: () => Promise<void>) => {
      setNote(null);
      await work();
    },
    { message: (e, failed) => `${failed}: ${errorText(e)}` },
  );
  useClearNetworkError(action.error, () => action.setError(null));
  const root = useRef<HTMLElement>(null);
  /** What takes the focus after the next render (a selector inside the panel). */
  const focusNext = useRef<string | null>(null);
  const uid = useId();
  const request = useObservable(goalPanelRequest);

  // Read only for a session that has one (without, the API answers 404): a goal set later comes
  // as a `goal_updated` event.
  useEffect(() => {
    if (!hasGoal) return;
    let live = true;
    api.goal(sessionId).then(
      (g) => live && setAnswer({ goal: g, afterSeq: seq.current }),
      (e) => {
        if (live && e instanceof ApiError && e.status === 404) setAnswer({ goal: null, afterSeq: seq.current });
      },
    );
    return () => {
      live = false;
    };
  }, [sessionId, readTry, hasGoal]);
  // Events missed during an outage are read again by the transcript; the goal too, here.
  useOnReconnect(() => setReadTry((n) => n + 1));

  const goal = fromEvents && (!answer || fromEvents.seq > answer.afterSeq) ? fromEvents.goal : (answer?.goal ?? null);
  const answered = (g: Goal | null) => setAnswer({ goal: g, afterSeq: seq.current });

  // `/goal` typed in this session: unfold; alone, with the focus (on the form when there is no goal).
  useEffect(() => {
    if (!request || request.session !== sessionId) return;
    goalPanelRequest.set(null);
    setOpen(true);
    if (!request.focus) return;
    if (goal) focusNext.current = "summary";
    else setEditing("new");
  }, [request]);

  useLayoutEffect(() => {
    const sel = focusNext.current;
    if (!sel) return;
    focusNext.current = null;
    root.current?.querySelector<HTMLElement>(sel)?.focus();
  });

  if (!goal && editing !== "new") return null;

  const composer = () => root.current?.closest(".session-view")?.querySelector<HTMLElement>(".composer textarea") ?? null;

  /** Open a form: what the last action said is old news. */
  const openForm = (which: Editing) => {
    action.setError(null);
    setNote(null);
    setEditing(which);
  };

  /** Close a form; the focus goes back to the button that opened it. */
  const closeForm = (back: string) => {
    setEditing(null);
    focusNext.current = back;
  };

  const act = (failed: string, run: () => Promise<Goal>, done: string) =>
    action.run(failed, async () => {
      answered(await run());
      setNote(done);
    });

  const remove = async () => {
    if (action.busy) return;
    const ok = await askConfirm({
      title: "Delete this session’s goal?",
      body: "A turn in progress finishes; no further goal turn starts.",
      confirm: "Delete goal",
      danger: true,
    });
    if (!ok) return;
    // Found now: the event saying the goal is gone may remove the panel before the answer comes.
    const prompt = composer();
    void action.run("Not deleted", async () => {
      await api.deleteGoal(sessionId);
      // The panel goes: the focus to the prompt rather than the page's start.
      prompt?.focus();
      answered(null);
    });
  };

  const ended = goal !== null && goal.status !== "active" && goal.status !== "paused";
  return (
    <section ref={root} class="goal-panel" aria-labelledby={`${uid}-title`} data-status={goal?.status ?? "none"}>
      <details open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary class="goal-title">
          <span id={`${uid}-title`}>Goal</span> {goal && <GoalStatusBadge status={goal.status} unconfirmed={unverified(goal)} />}
          {goal && !open && <span class="goal-title-objective muted small"> {goal.objective}</span>}
        </summary>
        {goal && <GoalDetails goal={goal} idPrefix={uid} />}
        {goal && editing === "objective" && (
          <GoalObjectiveForm
            goal={goal}
            onDone={(g) => {
              answered(g);
              setNote("Objective saved.");
              closeForm('[data-action="objective"]');
            }}
            onCancel={() => closeForm('[data-action="objective"]')}
          />
        )}
        {goal && editing === "budget" && (
          <GoalBudgetForm
            goal={goal}
            onDone={(g, resumed) => {
              answered(g);
              setNote(resumed ? "Budget saved; the goal resumes." : "Budget saved.");
              closeForm('[data-action="budget"]');
            }}
            onCancel={() => closeForm('[data-action="budget"]')}
          />
        )}
        {editing === "new" && (
          <GoalStartForm
            sessionId={sessionId}
            onDone={(g) => {
              answered(g);
              setNote("Goal set: the agent works towards it, turn after turn.");
              closeForm("summary");
            }}
            onCancel={() => {
              setEditing(null);
              if (!goal) composer()?.focus();
              else focusNext.current = "summary";
            }}
          />
        )}
        {goal && editing === null && (
          <div class="goal-actions row">
            {goal.status === "active" ? (
              <button
                type="button"
                class="btn small"
                data-action="pause"
                onClick={() => void act("Not paused", () => api.patchGoal(sessionId, { status: "paused" }), "Paused: no further turn starts.")}
              >
                Pause
              </button>
            ) : (
              <button
                type="button"
                class="btn small"
                data-action="resume"
                onClick={() => void act("Not resumed", () => api.patchGoal(sessionId, { status: "active" }), "Resumed: the next turn starts.")}
              >
                Resume
              </button>
            )}
            <button type="button" class="btn small ghost" data-action="objective" onClick={() => openForm("objective")}>
              Edit objective
            </button>
            <button type="button" class="btn small ghost" data-action="budget" onClick={() => openForm("budget")}>
              Raise budget
            </button>
            {ended && (
              <button type="button" class="btn small ghost" data-action="new" onClick={() => openForm("new")}>
                New goal
              </button>
            )}
            <button type="button" class="btn small ghost danger" data-action="delete" onClick={() => void remove()}>
              Delete goal
            </button>
          </div>
        )}
        <FormError error={action.error} small />
        <p class="goal-note muted small" role="status">
          {note}
        </p>
      </details>
    </section>
  );
}
