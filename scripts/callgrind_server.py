"""What scripts/instructions and scripts/text-order share: a Tradewind server under
`valgrind --tool=callgrind` in a fresh state dir and git workspace, and the API calls they make."""
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

TOKEN = "callgrind-" + "0" * 22


def api(base, method, path, body=None, timeout=120):
    req = urllib.request.Request(base + path, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, data=data, timeout=timeout) as r:
        return json.loads(r.read() or b"null")


def turn(base, sid, after):
    """One prompt; waits (long-poll) for its run_finished. Returns the last seq seen."""
    run = api(base, "POST", f"/api/sessions/{sid}/messages", {"text": "hi"})["run_id"]
    while True:
        page = api(base, "GET", f"/api/sessions/{sid}/events?after={after}&wait=60")
        for e in page["data"]:
            after = e["seq"]
            if e["type"] == "run_finished" and e["run"] == run:
                if e["status"] != "completed":
                    sys.exit(f"a turn did not complete: {e}")
                return after


def replay_args(tmp):
    """Server arguments for the replay provider answering every turn with "ok"."""
    replay = os.path.join(tmp, "replay.json")
    with open(replay, "w") as f:
        json.dump({"scripts": [{"turns": [{"text": "ok"}]}]}, f)
    return ["--provider", "replay", "--replay", replay]


def start(binary, tmp, args, files=40, options=()):
    """The server under callgrind (child processes included: it restarts itself once to drop
    TRADEWIND_TOKEN from its environment), in `tmp`/{ws,home,out}, with a committed git workspace
    of `files` small files. Returns the process, its base URL and the dump folder."""
    ws, home, out = (os.path.join(tmp, d) for d in ("ws", "home", "out"))
    for d in (ws, home, out):
        os.makedirs(d, mode=0o700)
    for i in range(files):
        with open(os.path.join(ws, f"f{i}.txt"), "w") as f:
            f.write(f"file {i}\n" * 50)
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid")
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        subprocess.run(["git", *git], cwd=ws, env=env, check=True)
    cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes", *options,
           f"--callgrind-out-file={out}/cg.%p", "--dump-instr=no", "--collect-jumps=no",
           binary, "serve", "--port", "0", "--workspace", ws, *args]
    senv = dict(os.environ, TRADEWIND_HOME=os.path.join(home, "state"), TRADEWIND_TOKEN=TOKEN,
                TRADEWIND_LOG="warn")
    server = subprocess.Popen(cmd, env=senv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    deadline = time.time() + 240
    while True:
        line = server.stdout.readline()
        if not line:
            stop(server)
            sys.exit("the server under valgrind exited before it was ready")
        m = re.search(r"(https?://[^/\s]+)", line)
        if m:
            return server, m.group(1), out
        if time.time() > deadline:
            stop(server)
            sys.exit("the server under valgrind did not start in 4 minutes")


def dump(server, name):
    subprocess.run(["callgrind_control", f"--dump={name}", str(server.pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def zero(server):
    subprocess.run(["callgrind_control", "--zero", str(server.pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(server):
    server.terminate()
    try:
        server.wait(timeout=120)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
