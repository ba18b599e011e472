"""Every event type the server emits, parsed by the generated Python client into its own class.

Drives two sessions of a live server (replay provider, tests/api/all_events.replay.json) through
REST only — a question, approvals, a background task that wakes the session, a provider that stays
unavailable (retried, then the run fails), a rename, a plan approved in plan mode, a subagent's approval answered from its parent, a hook, the provider's own web search, a user's `!command` whose output streams, a line comment written, edited and resolved — answering what the runs ask with the
generated calls, following the log by long-poll (`list_events` with `wait`). Then reads both
logs with the generated `list_events` and checks that every frame parsed into the class of its
type (none fell back to `UnknownEvent`) and that every documented type (`EventType`) was seen.

    PYTHONPATH=<generated client> TW_URL=... TW_TOKEN=... python all_events.py
"""

import os
import sys
import time

from tradewind_client import AuthenticatedClient, models
from tradewind_client.api.events import list_events
from tradewind_client.api.goals import delete_goal, set_goal
from tradewind_client.api.prompts import answer_approval, answer_question, decide_plan
from tradewind_client.api.runs import post_message
from tradewind_client.api.review import add_comment, patch_comment
from tradewind_client.api.runs import get_run
from tradewind_client.api.sessions import create_session, patch_session, redo, revert
from tradewind_client.api.usage import compact_session


def class_of(kind: str) -> str:
    return "".join(w.capitalize() for w in kind.split("_")) + "Event"


class Follower:
    """Where a session's log has been read to, and the event types seen so far."""

    def __init__(self, session: str):
        self.session = session
        self.after = 0
        self.seen: set[str] = set()


def drive(client, f: Follower, until, deadline: float) -> None:
    """Follow the session's log by long-poll from where `f` stopped, answering whatever waits,
    until `until(types seen)`."""
    session, seen = f.session, f.seen
    after = f.after
    while not until(seen):
        if time.monotonic() > deadline:
            sys.exit(f"timed out; seen {sorted(seen)}")
        page = list_events.sync(session, client=client, after=after, wait=10)
        assert isinstance(page, models.EventPage), page
        for ev in page.data:
            seen.add(ev.to_dict()["type"])
            if isinstance(ev, models.ApprovalRequestedEvent):
                r = answer_approval.sync(
                    ev.approval_id,
                    client=client,
                    body=models.ApprovalParams(decision=models.ApprovalDecision.ONCE),
                )
                assert isinstance(r, models.ApprovalResponse), r
            elif (
                isinstance(ev, models.ChildPendingEvent)
                and ev.kind == models.PromptKindName.APPROVAL
                and ev.status == models.ChildPendingStatus.PENDING
            ):
                # A subagent's approval, answered from its root session.
                r = answer_approval.sync(
                    ev.id,
                    client=client,
                    body=models.ApprovalParams(decision=models.ApprovalDecision.ONCE),
                )
                assert isinstance(r, models.ApprovalResponse), r
            elif isinstance(ev, models.QuestionAskedEvent):
                answers = [[q.options[0].label] for q in ev.questions]
                r = answer_question.sync(
                    ev.question_id, client=client, body=models.AnswerParams(answers=answers)
                )
                assert not isinstance(r, models.ErrorBody), r
            elif isinstance(ev, models.PlanProposedEvent):
                r = decide_plan.sync(
                    ev.plan_id,
                    client=client,
                    body=models.PlanDecisionParams(decision=models.PlanAnswer.APPROVED),
                )
                assert isinstance(r, models.PlanDecisionResponse), r
        after = page.next_cursor
        f.after = after


def check(client, session: str) -> set[str]:
    page = list_events.sync(session, client=client, after=0, limit=5000)
    assert isinstance(page, models.EventPage), page
    types = set()
    for i, ev in enumerate(page.data, start=1):
        kind = ev.to_dict()["type"]
        types.add(kind)
        if type(ev).__name__ != class_of(kind):
            sys.exit(f"{session} event {i} ({kind}) parsed as {type(ev).__name__}")
        if ev.seq != i:
            sys.exit(f"{session}: seq {ev.seq} at position {i}")
    return types


def main() -> int:
    client = AuthenticatedClient(
        base_url=os.environ["TW_URL"], token=os.environ["TW_TOKEN"], timeout=30.0
    )
    deadline = time.monotonic() + 120

    a = create_session.sync(client=client, body=models.CreateSessionParams(title="all events"))
    assert isinstance(a, models.Session), a
    run = post_message.sync(a.id, client=client, body=models.PostMessageParams(text="everything"))
    assert isinstance(run, models.PostMessageResponse), run
    # The prompt's run (a question, a write and a background task, each answered here), then
    # the wake-up the task causes when it ends by itself.
    fa = Follower(a.id)
    drive(client, fa, lambda seen: "wakeup" in seen, deadline)
    renamed = patch_session.sync(
        a.id, client=client, body=models.PatchSessionParams(title="all events, renamed")
    )
    assert isinstance(renamed, models.Session), renamed
    # A provider that stays unavailable: retried (provider_retry), then the run fails (error).
    failing = post_message.sync(a.id, client=client, body=models.PostMessageParams(text="flaky"))
    assert isinstance(failing, models.PostMessageResponse), failing
    drive(client, fa, lambda seen: {"error", "provider_retry", "session_updated"} <= seen, deadline)
    # Compacted by hand (context_compacted), then reverted to the first prompt
    # (session_reverted) and redone (revert_undone).
    compact = compact_session.sync(a.id, client=client)
    assert isinstance(compact, models.PostMessageResponse), compact
    drive(client, fa, lambda seen: "context_compacted" in seen, deadline)
    while True:
        r = get_run.sync(compact.run_id, client=client)
        assert isinstance(r, models.RunInfo), r
        if r.status not in (models.RunStatus.QUEUED, models.RunStatus.RUNNING):
            break
        if time.monotonic() > deadline:
            sys.exit("the compaction run did not end")
        time.sleep(0.05)
    page = list_events.sync(a.id, client=client, after=0, limit=5000)
    assert isinstance(page, models.EventPage), page
    first = next(ev for ev in page.data if isinstance(ev, models.UserMessageEvent))
    back = revert.sync(
        a.id, client=client, body=models.RevertParams(message_id=first.message_id, force=True)
    )
    assert isinstance(back, models.RevertResult) and back.applied, back
    again = redo.sync(a.id, client=client, body=models.RedoParams(force=True))
    assert isinstance(again, models.RevertResult) and again.applied, again
    # A goal set and deleted (goal_updated, twice).
    goal = set_goal.sync(
        a.id, client=client, body=models.SetGoalParams(objective="all events, a goal")
    )
    assert isinstance(goal, models.Goal), goal
    delete_goal.sync_detailed(a.id, client=client)
    drive(client, fa, lambda seen: "goal_updated" in seen, deadline)
    # The user's own command (the token has `admin`): its output streams (tool_output).
    cmd = post_message.sync(
        a.id, client=client, body=models.PostMessageParams(text="!echo streamed")
    )
    assert isinstance(cmd, models.PostMessageResponse), cmd
    drive(client, fa, lambda seen: "tool_output" in seen, deadline)
    # A line comment on a file of the session's workspace: written, edited, resolved.
    with open(os.path.join(a.workspace, "reviewed.txt"), "w") as fh:
        fh.write("one\ntwo\n")
    c1 = add_comment.sync(
        a.id,
        client=client,
        body=models.NewReviewComment(path="reviewed.txt", start_line=1, body="Why one?"),
    )
    assert isinstance(c1, models.ReviewComment), c1
    patch_comment.sync(c1.id, client=client, body=models.PatchReviewComment(body="Why one here?"))
    patch_comment.sync(c1.id, client=client, body=models.PatchReviewComment(resolved=True))
    drive(
        client,
        fa,
        lambda seen: {"review_comment_added", "review_comment_updated", "review_comment_resolved"}
        <= seen,
        deadline,
    )

    b = create_session.sync(
        client=client, body=models.CreateSessionParams(title="plan", agent=models.Agent.PLAN)
    )
    assert isinstance(b, models.Session), b
    post_message.sync(b.id, client=client, body=models.PostMessageParams(text="plan it"))
    drive(client, Follower(b.id), lambda seen: "plan_decided" in seen, deadline)

    # A subagent whose write asks: child_pending in the root, answered from there.
    c = create_session.sync(client=client, body=models.CreateSessionParams(title="subagents"))
    assert isinstance(c, models.Session), c
    post_message.sync(c.id, client=client, body=models.PostMessageParams(text="delegate"))
    drive(
        client, Follower(c.id), lambda seen: {"child_pending", "run_finished"} <= seen, deadline
    )

    # A call whose hook runs (tests/api/all_events.hooks.json; the hooks file allowed for the
    # session when asked: hook_ran), then the provider's own web search (a recorded Responses
    # API stream: web_search, and the answer's citations).
    d = create_session.sync(client=client, body=models.CreateSessionParams(title="extend"))
    assert isinstance(d, models.Session), d
    post_message.sync(d.id, client=client, body=models.PostMessageParams(text="search the web"))
    drive(
        client,
        Follower(d.id),
        lambda seen: {"hook_ran", "web_search", "run_finished"} <= seen,
        deadline,
    )

    seen = check(client, a.id) | check(client, b.id) | check(client, c.id) | check(client, d.id)
    documented = {t.value for t in models.EventType}
    missing = documented - seen
    if missing:
        sys.exit(f"event types never emitted here: {sorted(missing)}")
    print(f"all {len(documented)} event types emitted and parsed into their classes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
