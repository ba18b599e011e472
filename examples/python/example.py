"""Drive a Tradewind server from Python with the client generated from openapi/openapi.json.

Creates a session, sends a prompt, follows the run's events over Server-Sent Events (parsed
into the generated event classes), answers the approval the run asks for, and stops at
`run_finished`.

    ./generate.sh OUT            # the client package, into OUT/tradewind_client
    PYTHONPATH=OUT TW_URL=http://127.0.0.1:7420 TW_TOKEN=... python example.py "make a file"
"""

import json
import os
import sys

import httpx

from tradewind_client import AuthenticatedClient, models
from tradewind_client.api.events import list_events
from tradewind_client.api.prompts import answer_approval
from tradewind_client.api.runs import post_message
from tradewind_client.api.sessions import create_session


def parse_event(frame: dict):
    """A frame as its generated class (`RunFinishedEvent`, ...); `UnknownEvent` for a type this
    client does not know (a newer server)."""
    try:
        kind = models.EventType(frame.get("type"))
    except ValueError:
        return models.UnknownEvent.from_dict(frame)
    name = "".join(w.capitalize() for w in kind.value.split("_")) + "Event"
    return getattr(models, name).from_dict(frame)


def sse_frames(client: AuthenticatedClient, session: str, after: int = 0):
    """The session's events from `after` on: `id:` is the seq, `data:` the frame JSON."""
    http = client.get_httpx_client()
    with http.stream(
        "GET",
        f"/api/sessions/{session}/events/stream",
        params={"after": after},
        headers={"Accept": "text/event-stream"},
        timeout=httpx.Timeout(10.0, read=None),
    ) as resp:
        resp.raise_for_status()
        data: list[str] = []
        for line in resp.iter_lines():
            if line == "":
                if data:
                    yield json.loads("\n".join(data))
                    data = []
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())


def check_log(client: AuthenticatedClient, session: str) -> int:
    """The whole log through the generated `list_events`: every frame parsed into the class of
    its type (none left as `UnknownEvent`), seqs 1, 2, 3... and `next_cursor` the last one."""
    page = list_events.sync(session, client=client, after=0, limit=5000)
    if not isinstance(page, models.EventPage):
        print(f"list_events failed: {page}", file=sys.stderr)
        return 1
    for i, ev in enumerate(page.data, start=1):
        kind = ev.to_dict()["type"]
        want = "".join(w.capitalize() for w in kind.split("_")) + "Event"
        if type(ev).__name__ != want or ev.seq != i:
            print(f"event {i} ({kind}) parsed as {type(ev).__name__}", file=sys.stderr)
            return 1
    if page.next_cursor != len(page.data) or page.has_more:
        print(f"bad cursor: {page.next_cursor} after {len(page.data)} events", file=sys.stderr)
        return 1
    print(f"{len(page.data)} events, each parsed into its own class")
    return 0


def main() -> int:
    base_url = os.environ.get("TW_URL", "http://127.0.0.1:7420")
    client = AuthenticatedClient(base_url=base_url, token=os.environ["TW_TOKEN"])
    prompt = sys.argv[1] if len(sys.argv) > 1 else "make a file"

    session = create_session.sync(
        client=client, body=models.CreateSessionParams(title="Python example")
    )
    if not isinstance(session, models.Session):
        print(f"create_session failed: {session}", file=sys.stderr)
        return 1
    print(f"session {session.id} in {session.workspace}")

    posted = post_message.sync(
        session.id, client=client, body=models.PostMessageParams(text=prompt)
    )
    if not isinstance(posted, models.PostMessageResponse):
        print(f"post_message failed: {posted}", file=sys.stderr)
        return 1

    for frame in sse_frames(client, session.id):
        ev = parse_event(frame)
        if isinstance(ev, models.MessageDeltaEvent):
            print(ev.text, end="", flush=True)
        elif isinstance(ev, models.ToolCallEvent):
            print(f"\n[tool] {ev.tool} {ev.input_.to_dict()}")
        elif isinstance(ev, models.ApprovalRequestedEvent):
            print(f"[approval] {ev.tool}: {ev.reason} -> once")
            answered = answer_approval.sync(
                ev.approval_id,
                client=client,
                body=models.ApprovalParams(decision=models.ApprovalDecision.ONCE),
            )
            if not isinstance(answered, models.ApprovalResponse):
                print(f"answer_approval failed: {answered}", file=sys.stderr)
                return 1
        elif isinstance(ev, models.ToolResultEvent):
            print(f"[result] {ev.tool} ok={ev.ok}")
        elif isinstance(ev, models.RunFinishedEvent) and ev.run_id == posted.run_id:
            usage = ev.usage
            print(
                f"\nrun {ev.status.value} in {ev.duration_ms} ms, "
                f"{usage.input_tokens}+{usage.output_tokens} tokens"
            )
            if ev.status != models.RunStatus.COMPLETED:
                return 1
            return check_log(client, session.id)
        elif isinstance(ev, models.UnknownEvent):
            pass  # a type added by a newer server: skip it
    print("the stream ended before run_finished", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
