import { useEffect, useLayoutEffect, useMemo, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { Session } from "../api/types";
import { useObservable } from "../state/observable";
import { useOnReconnect } from "../state/reconnect";
import { revealItem } from "../state/reveal";
import { jumpTarget } from "../state/search";
import { loadOlder, loadThrough } from "../state/pager";
import { openTranscript, sessions, upsertSession } from "../state/sessions";
import { childPromptCount, reportedStatus, useChildPrompts, useSubagents } from "../state/subagents";
import { attentionCount } from "../state/title";
import type { Transcript, TranscriptSnapshot } from "../state/transcript";
import type { Task } from "../api/types";
import { closeArtifacts } from "../state/panels";
import { lazyModule } from "../util/lazyModule";
import { ArtifactsPanel } from "./ArtifactsPanel";
import { Composer, type WaitingApproval } from "./Composer";
import { ForkBanner } from "./ForkBanner";
import { FormError } from "./FormError";
import { GoalPanel } from "./GoalPanel";
import { PendingBar } from "./PendingBar";
import { QueuePanel } from "./QueuePanel";
import { TodoPanel } from "./TodoPanel";
import { QuestionPanel } from "./QuestionPanel";
import { RevertDialog } from "./RevertDialog";
import { SessionHeader } from "./SessionHeader";
import { SessionNotFound } from "./SessionNotFound";
import { SessionToolPanels } from "./SessionToolPanels";
import { SubagentBanner } from "./SubagentBanner";
import { SubagentPrompts } from "./SubagentPrompts";
import { SubagentsPanel } from "./SubagentsPanel";
import { TasksPanel } from "./TasksPanel";
import { PermissionsPanel } from "./PermissionsPanel";
import { permissionsPanel } from "../state/panels";
import { TranscriptView } from "./TranscriptView";

function useTranscript(id: string): { t: Transcript; snap: TranscriptSnapshot } {
  const [handle] = useState(() => openTranscript(id));
  const [snap, setSnap] = useState(() => handle.transcript.snapshot());
  // Subscribed before the first paint, not after it: the newest page, often read before this
  // view mounts, is applied right after this render, and its rows show in the first frame.
  useLayoutEffect(() => {
    const t = handle.transcript;
    setSnap(t.snapshot());
    const off = t.subscribe(() => setSnap(t.snapshot()));
    return () => {
      off();
      handle.release();
    };
  }, [handle]);
  return { t: handle.transcript, snap };
}

/**
 * A search hit opened in this session: read back until its event is held, then bring the item
 * showing it into view, highlighted. Given up when older events cannot be read.
 */
function useJump(id: string, t: Transcript, snap: TranscriptSnapshot): void {
  const target = useObservable(jumpTarget);
  useEffect(() => {
    if (!target || target.session !== id || !snap.loaded || snap.loadingOlder) return;
    if (t.firstSeq > target.seq && snap.hasOlder && !snap.olderError) {
      void loadThrough(t, target.seq);
      return;
    }
    jumpTarget.set(null);
    const key = t.itemKeyAt(target.seq);
    if (key) revealItem(key, true);
  }, [target, id, snap]);
}

/** `review`: the session's changes as one diff (`ReviewView`) in place of its conversation. */
type ReviewModule = typeof import("./ReviewView");
/** The review's code comes with the first review opened. */
const useReviewModule = lazyModule<ReviewModule>(() => import("./ReviewView"));

export function SessionView({ id, review = false }: { id: string; review?: boolean }) {
  const list = useObservable(sessions);
  const showPermissions = useObservable(permissionsPanel);
  const fromList = list?.find((s) => s.id === id) ?? null;
  const [fetched, setFetched] = useState<Session | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  /** The server does not know this session. */
  const [missing, setMissing] = useState(false);
  const { t, snap } = useTranscript(id);
  useJump(id, t, snap);
  const reviewCode = useReviewModule(review);

  // Tasks from the REST list (the event stream keeps them current afterwards).
  useEffect(() => {
    let live = true;
    api.tasks(id).then(
      (r) => live && t.mergeTasks(r.data),
      () => undefined, // older servers have no tasks endpoint
    );
    // The line comments (on the review and the plans) likewise.
    api.reviewComments(id).then(
      (r) => live && t.mergeComments(r.data),
      () => undefined, // older servers have no comments
    );
    return () => {
      live = false;
      closeArtifacts();
    };
  }, [id]);

  const [loadTry, setLoadTry] = useState(0);
  useEffect(() => {
    let live = true;
    api.getSession(id).then(
      (s) => {
        if (!live) return;
        setFetched(s);
        setLoadError(null);
        upsertSession(s);
      },
      (e) => {
        if (!live) return;
        setLoadError(errorText(e));
        setMissing(e instanceof ApiError && e.status === 404);
      },
    );
    return () => {
      live = false;
    };
  }, [id, loadTry]);
  // A session that could not be read during an outage is read again once the server is back.
  useOnReconnect(() => {
    if (loadError !== null) setLoadTry((n) => n + 1);
  });

  useEffect(() => {
    if (snap.session) upsertSession(snap.session);
  }, [snap.session]);

  // The live list first: on a tie (a status change keeps updated_at) it is the newest word.
  const session = pickNewest(fromList, snap.session, fetched);

  // What the transcript's events say changed, once its newest page is in: the panels below read
  // their state then (and when it changes again), not while the page opens and the transcript's
  // first screen waits for its events.
  const marks = (m: number): number | null => (snap.loaded ? m : null);
  // What the subagents ask through this session, and the subagents themselves.
  const childPrompts = useChildPrompts(id, marks(snap.childMarks), snap.childPrompts);
  const subagents = useSubagents(id, marks(snap.subagentMarks));
  const reported = useMemo(() => reportedStatus(snap.items), [snap.subagentMarks, t.firstSeq]);

  const waiting =
    snap.pendingApprovals.length + snap.pendingQuestions.length + snap.pendingPlans.length + childPromptCount(childPrompts);
  const oldestApproval = oldest(snap.pendingApprovals);
  const waitingApproval = useMemo<WaitingApproval | null>(
    () => (oldestApproval ? { id: oldestApproval.id, tool: oldestApproval.event.tool } : null),
    [oldestApproval?.id],
  );
  useEffect(() => {
    attentionCount.set(waiting);
    return () => attentionCount.set(0);
  }, [waiting]);

  if (!session && missing) return <SessionNotFound id={id} />;
  if (!session && loadError) {
    return (
      <div class="empty-state">
        <p>This session could not be opened.</p>
        <p class="muted">{loadError}</p>
      </div>
    );
  }

  return (
    <section class="session-view" aria-label={session?.title || "Session"}>
      <SessionHeader session={session} usageMarks={marks(snap.usageMarks)} context={snap.context} reviewing={review} />
      {session?.forked_from && <ForkBanner session={session} />}
      {session?.parent_id && <SubagentBanner session={session} />}
      <SessionToolPanels sessionId={id} session={session} />
      {review ? (
        reviewCode.mod ? (
          <reviewCode.mod.ReviewView sessionId={id} comments={snap.comments} reviewMarks={snap.reviewMarks} />
        ) : reviewCode.failed ? (
          <FormError error="The review could not be loaded: reload the page to try again." small />
        ) : (
          <p class="muted review-loading" role="status">
            Loading the review…
          </p>
        )
      ) : (
        <>
          <PendingBar snap={snap} subagents={childPrompts} />
          {showPermissions && <PermissionsPanel sessionId={id} refreshKey={snap.items.length} />}
          <TranscriptView snap={snap} onNeedOlder={() => void loadOlder(t)} />
          <GoalPanel key={id} sessionId={id} hasGoal={session ? session.has_goal === true : null} fromEvents={snap.goal} lastSeq={snap.lastSeq} />
          <TodoPanel sessionId={id} items={snap.items} />
          <QueuePanel sessionId={id} runMarks={marks(snap.runMarks)} />
          <SubagentsPanel sessionId={id} subagents={subagents} reported={reported} />
          {snap.tasks.length > 0 && <TasksPanel tasks={snap.tasks} output={snap.taskOutput} onTask={(x: Task) => t.updateTask(x)} />}
          {snap.pendingQuestions.length > 0 && <QuestionPanel key={snap.pendingQuestions[0].id} question={snap.pendingQuestions[0]} />}
          <SubagentPrompts prompts={childPrompts} known={subagents} ownQuestion={snap.pendingQuestions.length > 0} />
          <ArtifactsPanel sessionId={id} refreshKey={snap.plans.length} />
          <Composer
            sessionId={id}
            session={session}
            activeRun={snap.activeRun}
            cardWaiting={waiting > 0}
            waitingApproval={waitingApproval}
            undoTarget={() => t.undoTarget()}
          />
        </>
      )}
      <RevertDialog sessionId={id} />
    </section>
  );
}

/** The session's own approval that has waited longest (its subagents' are answered on their cards). */
function oldest<T extends { seq: number }>(pending: readonly T[]): T | null {
  let first: T | null = null;
  for (const a of pending) if (!first || a.seq < first.seq) first = a;
  return first;
}

function pickNewest(...candidates: (Session | null)[]): Session | null {
  let best: Session | null = null;
  for (const c of candidates) {
    if (c && (!best || c.updated_at > best.updated_at)) best = c;
  }
  return best;
}
