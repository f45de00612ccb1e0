"""Drives `bashrt mcp` with the official MCP Python SDK, one scenario per run.

Usage: python_client.py BASHRT STATE_DIR WORK_DIR SCENARIO
Exits 0 when the scenario passed; an assertion error (with the traceback) otherwise. Every wait is on an
event (a response, a progress notification, a pidfd), bounded by a generous deadline, never a sleep.
"""

import hashlib
import json
import os
import re
import select
import subprocess
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BASHRT, STATE, WORK, SCENARIO = sys.argv[1:5]
DEADLINE = 60


def server(*args):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": WORK, "BASHRT_STATE_DIR": STATE}
    return StdioServerParameters(command=BASHRT, args=["mcp", *args], env=env, cwd=WORK)


def gone(pid, timeout=DEADLINE):
    """Waits until process `pid` has exited (its pidfd turns readable); True if it did in time."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def text(result):
    return "".join(block.text for block in result.content)


def details(result):
    """The details of a result: in its `_meta` by default, where no client shows them to its model."""
    assert result.structured_content is None, result
    return result.meta["bashrt/details"]


async def session_run(body, *args, elicitation=None):
    async with stdio_client(server(*args)) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation) as session:
            init = await session.initialize()
            await body(session, init)


async def initialize(session, init):
    assert init.server_info.name == "bashrt", init.server_info
    assert init.protocol_version in ("2025-06-18", "2025-11-25"), init.protocol_version
    assert init.capabilities.tools is not None and init.capabilities.resources is not None


async def tools(session, init):
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(listed) == {"bash", "read_output", "job", "bash_escalated"}, listed.keys()
    cli_schema = json.loads(subprocess.run([BASHRT, "schema"], capture_output=True, check=True).stdout)
    bash = listed["bash"]
    assert bash.input_schema == cli_schema, (bash.input_schema, cli_schema)
    assert bash.input_schema["required"] == ["command"]
    # No output schema: a client that sees one shows its model the structured details, not the text.
    assert bash.output_schema is None
    assert bash.meta["anthropic/alwaysLoad"] is True, bash.meta
    assert "artifact://" in bash.description and "read_output" in bash.description
    read = listed["read_output"]
    assert read.input_schema["required"] == ["artifactId"]
    assert set(read.input_schema["properties"]) == {"artifactId", "head", "tail", "lines", "grep"}
    assert read.output_schema is None
    assert "format" not in json.dumps([bash.input_schema, read.input_schema])
    job = listed["job"]
    assert set(job.input_schema["properties"]) == {
        "action", "id", "until", "port", "timeout", "input", "keys", "close", "deadline"
    }, job.input_schema
    assert "yield_ms" in bash.input_schema["properties"] and "background" in bash.input_schema["properties"]
    escalated = listed["bash_escalated"]
    assert escalated.input_schema["required"] == ["command", "sandbox"], escalated.input_schema
    assert "[Sandbox denied" in bash.description and "bash_escalated" in bash.description


async def sandbox(session, init):
    import tempfile

    # A directory outside every writable root (the workspace, /tmp, the caches).
    parent = "/run" if os.geteuid() == 0 else os.path.expanduser("~")
    outside = tempfile.mkdtemp(dir=parent)
    other = tempfile.mkdtemp(dir=parent)
    try:
        denied = await session.call_tool("bash", {"command": f"touch {outside}/x"})
        assert f"[Sandbox denied: write to {outside}/x (outside the writable roots" in text(denied), text(denied)
        assert details(denied)["sandbox"]["denials"][0]["kind"] == "write", details(denied)
        # `bash` cannot ask anyone: it names the tool the client asks the user about.
        asked = await session.call_tool(
            "bash", {"command": f"touch {outside}/x", "sandbox": {"write": [outside], "reason": "test"}}
        )
        assert asked.is_error, text(asked)
        assert text(asked).startswith(f"Not run: the sandbox does not allow write {outside}, and `bash` cannot ask"), text(asked)
        assert "call `bash_escalated` with the same arguments" in text(asked), text(asked)
        assert not os.path.exists(f"{outside}/x")
        # `bash_escalated` (the client's permission prompt approved it): that write, nothing more.
        granted = await session.call_tool(
            "bash_escalated",
            {"command": f"touch {outside}/x && echo made; touch {other}/y", "sandbox": {"write": [outside], "reason": "test"}},
        )
        assert text(granted).startswith("made\n"), text(granted)
        assert f"[Sandbox denied: write to {other}/y" in text(granted), text(granted)
        assert details(granted)["sandbox"]["grant"]["scope"] == "once", details(granted)
        assert os.path.exists(f"{outside}/x") and not os.path.exists(f"{other}/y")
        missing = await session.call_tool("bash_escalated", {"command": "true"})
        assert missing.is_error and "`sandbox` is required" in text(missing), text(missing)
    finally:
        subprocess.run(["rm", "-rf", outside, other], check=True)


async def structured(session, init):
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert listed["bash"].output_schema["type"] == "object"
    assert "exitCode" in listed["bash"].output_schema["properties"]
    assert listed["read_output"].output_schema["type"] == "object"
    result = await session.call_tool("bash", {"command": "echo hi; exit 2"})
    assert result.is_error and text(result) == "hi\n\nCommand exited with code 2", text(result)
    assert result.structured_content["exitCode"] == 2, result


async def bash_success(session, init):
    result = await session.call_tool("bash", {"command": "export GREETING=hello; f() { echo \"$1 $GREETING\"; }"})
    assert not result.is_error, text(result)
    result = await session.call_tool("bash", {"command": "f world"})
    assert not result.is_error, text(result)
    assert text(result) == "world hello\n", text(result)
    found = details(result)
    assert found["exitCode"] == 0 and found["outcome"] == {"kind": "exited", "code": 0}, found
    assert found["cwd"] == WORK, found


async def bash_error(session, init):
    result = await session.call_tool("bash", {"command": "echo out; echo err >&2; sh -c 'exit 3'"})
    assert result.is_error
    assert text(result) == "out\nerr\n\nCommand exited with code 3", repr(text(result))
    assert details(result)["exitCode"] == 3
    assert details(result)["failure"] == "error"
    result = await session.call_tool("bash", {"command": "echo x", "cwd": "no/such/dir"})
    assert result.is_error and details(result)["failure"] == "refused", result
    # Arguments that mean nothing runnable are a tool error the model can read, not a protocol error.
    result = await session.call_tool("bash", {"command": 5})
    assert result.is_error and text(result) == "Invalid arguments for tool bash: `command` must be a string, got 5"


async def arguments(session, init):
    # As models and their clients send them: numbers as strings, milliseconds, other agents' names, a
    # client's own additions; what changes a value, or may have been meant to, is said.
    result = await session.call_tool(
        "bash", {"command": "pwd", "timeout": "120000", "dir_path": "/", "wait_for_previous": True, "sudo": True}
    )
    assert not result.is_error, text(result)
    assert text(result) == (
        "/\n\n[Timeout 120000 read as milliseconds (120s): timeout is in seconds]\n[Ignored unknown argument: `sudo`]"
    ), text(result)
    assert details(result)["ignoredArguments"] == ["sudo", "wait_for_previous"]
    result = await session.call_tool("bash", {"command": "seq 5", "tail": "2", "description": "count"})
    assert text(result).startswith("4\n5\n"), text(result)
    # The tail limit kept the whole output as artifact 1.
    window = await session.call_tool("read_output", {"artifact_id": 1, "head": "1", "wait_for_previous": False})
    assert not window.is_error and text(window) == "1\n", text(window)


async def gemini_profile(session, init):
    # Gemini CLI shows an error result to its model as one JSON-escaped line: failures are plain text.
    result = await session.call_tool("bash", {"command": "echo oops; exit 3"})
    assert not result.is_error and text(result) == "oops\n\nCommand exited with code 3", result
    result = await session.call_tool("bash", {"command": "seq 1 100000"})
    assert len(text(result).encode()) < 39_959, len(text(result))


async def claude_profile(session, init):
    # Claude Code cuts an error result past 11,024 characters: bashrt's view of a failure fits within.
    command = "seq 1 20000; echo 'error: boom at line 12345'; seq 1 20000 | sed 's/^/x/'; exit 1"
    result = await session.call_tool("bash", {"command": command})
    assert result.is_error
    assert len(text(result)) <= 11_024, len(text(result))
    assert "\n20001:error: boom at line 12345\n" in text(result), text(result)
    assert text(result).endswith("\nCommand exited with code 1"), text(result)
    # A success keeps a view of up to 48,000 bytes.
    result = await session.call_tool("bash", {"command": "seq 1 100000"})
    assert 40_000 < len(text(result)) <= 50_000, len(text(result))
    # Claude's own tools, by their names.
    with open(os.path.join(WORK, "notes.txt"), "w") as f:
        f.write("secret\n")
    result = await session.call_tool("bash", {"command": "cat notes.txt"})
    assert text(result).startswith("Blocked: Use the `Read` tool"), text(result)
    assert details(result)["interception"]["suggestedTool"] == "Read"


async def blocked(session, init):
    with open(os.path.join(WORK, "notes.txt"), "w") as f:
        f.write("secret\n")
    result = await session.call_tool("bash", {"command": "cat notes.txt"})
    assert result.is_error, text(result)
    assert text(result).startswith("Blocked: "), text(result)
    assert text(result).endswith("Original command: cat notes.txt"), text(result)
    found = details(result)
    assert found["failure"] == "refused"
    assert found["interception"]["suggestedTool"] == "read", found
    # A command the rules do not cover still runs.
    result = await session.call_tool("bash", {"command": "cat notes.txt | tr a-z A-Z"})
    assert text(result) == "SECRET\n", text(result)


async def not_blocked_without_tools(session, init):
    with open(os.path.join(WORK, "notes.txt"), "w") as f:
        f.write("secret\n")
    result = await session.call_tool("bash", {"command": "cat notes.txt"})
    assert not result.is_error and text(result) == "secret\n", text(result)


async def progress(session, init):
    gate = os.path.join(WORK, "gate")
    os.mkfifo(gate)
    messages = []
    seen_first = anyio.Event()

    async def on_progress(value, total, message):
        messages.append((value, message))
        if message and "first" in message:
            seen_first.set()

    async def opener():
        # The command waits for the gate until the client has seen its first line live.
        await seen_first.wait()

        def release():
            with open(gate, "w") as f:
                f.write("go\n")

        await anyio.to_thread.run_sync(release)

    command = f"echo first; read go < {gate}; echo second"
    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(opener)
            result = await session.call_tool("bash", {"command": command}, progress_callback=on_progress)
    assert text(result) == "first\nsecond\n", text(result)
    values = [value for value, _ in messages]
    assert values == sorted(set(values)), values
    assert messages[0][1] == "first", messages
    # The last update is not lost to the throttle: the client saw the final line live too.
    assert messages[-1][1].endswith("second"), messages
    assert messages[-1][0] == len("first\nsecond\n"), messages


async def cancel(session, init):
    started = anyio.Event()
    box = {}

    async def on_progress(value, total, message):
        found = re.search(r"pid=(\d+)", message or "")
        if found and "pid" not in box:
            box["pid"] = int(found.group(1))
            started.set()

    scope = anyio.CancelScope()

    async def call():
        with scope:
            await session.call_tool("bash", {"command": "sleep 60 & echo pid=$!; wait"}, progress_callback=on_progress)
            box["answered"] = True

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await started.wait()
            assert not gone(box["pid"], 0), "sleep is not running"
            scope.cancel()
    assert "answered" not in box
    assert gone(box["pid"]), f"sleep {box['pid']} still runs after the cancel"
    # The server keeps serving (in a fresh shell: the cancelled command's shell was killed with it).
    result = await session.call_tool("bash", {"command": "echo still here"})
    assert text(result).startswith("still here\n"), text(result)


async def artifact(session, init):
    result = await session.call_tool("bash", {"command": "seq 1 100000"})
    assert not result.is_error
    truncation = details(result)["meta"]["truncation"]
    artifact_id = truncation["artifactId"]
    uri = f"artifact://{artifact_id}"
    assert uri in text(result), text(result)
    expected = "".join(f"{i}\n" for i in range(1, 100001)).encode()
    assert truncation["totalBytes"] == len(expected)
    listed = {r.uri: r for r in (await session.list_resources()).resources}
    assert uri in listed, listed.keys()
    assert listed[uri].size == len(expected), listed[uri]
    assert "seq 1 100000" in (listed[uri].title or ""), listed[uri]
    contents = (await session.read_resource(uri)).contents
    assert len(contents) == 1
    got = contents[0].text.encode()
    assert hashlib.sha256(got).hexdigest() == hashlib.sha256(expected).hexdigest()
    templates = (await session.list_resource_templates()).resource_templates
    assert templates[0].uri_template == "artifact://{id}{?head,tail,lines,grep}", templates
    window = (await session.read_resource(f"{uri}?lines=99998-100000")).contents[0].text
    assert window == "99998\n99999\n100000\n", window


async def read_output(session, init):
    result = await session.call_tool("bash", {"command": "for i in $(seq 1 20000); do echo \"line $i\"; done"})
    artifact_id = details(result)["meta"]["truncation"]["artifactId"]
    window = await session.call_tool("read_output", {"artifactId": f"artifact://{artifact_id}", "lines": "10-12"})
    assert not window.is_error, text(window)
    assert text(window) == "line 10\nline 11\nline 12\n", text(window)
    assert details(window) == {"artifactId": artifact_id, "bytes": 24, "truncated": False}
    window = await session.call_tool("read_output", {"artifactId": artifact_id, "grep": "^line 1999[0-9]$"})
    assert text(window).splitlines()[0] == "19990:line 19990", text(window)
    assert len(text(window).splitlines()) == 10
    window = await session.call_tool("read_output", {"artifactId": artifact_id, "tail": 1})
    assert text(window) == "line 20000\n", text(window)
    window = await session.call_tool("read_output", {"artifactId": 999999, "head": 1})
    assert window.is_error, text(window)
    # One answer carries at most the view's budget, and says how to read on.
    window = await session.call_tool("read_output", {"artifactId": artifact_id})
    assert details(window)["truncated"] is True and len(text(window).encode()) < 52_000, details(window)
    assert text(window).endswith("— read the rest with a narrower window: lines or grep]"), text(window)[-200:]


async def concurrent(session, init):
    fifo = os.path.join(WORK, "fifo")
    os.mkfifo(fifo)
    results = {}

    async def call(name, command):
        results[name] = await session.call_tool("bash", {"command": command})

    # The reader finishes only once the writer ran: both calls were in flight at the same time.
    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(call, "reader", f"read line < {fifo}; echo got $line")
            group.start_soon(call, "writer", f"echo hello > {fifo}; echo sent")
    assert text(results["reader"]) == "got hello\n", text(results["reader"])
    assert text(results["writer"]) == "sent\n", text(results["writer"])


async def jobs(session, init):
    gate = os.path.join(WORK, "gate")
    os.mkfifo(gate)
    # Past its yield time the call comes back with the output so far; the command goes on as job 1.
    command = f"echo started; read line < {gate}; echo got $line"
    result = await session.call_tool("bash", {"command": command, "yield_ms": 300})
    assert not result.is_error and text(result).startswith("started\n"), text(result)
    assert "[Still running as job 1 (" in text(result), text(result)
    assert details(result)["job"]["state"] == "running", details(result)
    # Its whole output so far is in its artifact, readable while it runs, as a window and as a resource.
    artifact = details(result)["job"]["artifactId"]
    window = await session.call_tool("read_output", {"artifactId": artifact})
    assert text(window).startswith("started\n"), text(window)
    resource = await session.read_resource(f"artifact://{artifact}")
    assert resource.contents[0].text.startswith("started\n"), resource
    # The job holds the FIFO's read end open: this write does not wait for anyone else.
    with open(gate, "w") as w:
        w.write("go\n")
    with anyio.fail_after(DEADLINE):
        waited = await session.call_tool("job", {"action": "wait", "id": 1})
    assert text(waited).startswith("got go\n"), text(waited)
    assert "[Job 1 exited with code 0 after " in text(waited), text(waited)
    # A server comes back as soon as it listens, long before its yield time.
    with anyio.fail_after(DEADLINE):
        result = await session.call_tool(
            "bash", {"command": "exec python3 -u -m http.server 0 --bind 127.0.0.1", "yield_ms": 3_000_000}
        )
    job = details(result)["job"]
    assert job["state"] == "listening" and job["id"] == 2, (job, text(result))
    address = job["listening"][0]
    assert f"listening on {address}" in text(result), text(result)
    import urllib.request

    with urllib.request.urlopen(f"http://{address}/", timeout=DEADLINE) as answer:
        assert answer.status == 200
    listed = await session.call_tool("job", {"action": "list"})
    assert text(listed).startswith("job 1: exited with code 0 after "), text(listed)
    assert f"job 2: running for " in text(listed) and f"listening on {address}" in text(listed), text(listed)
    killed = await session.call_tool("job", {"action": "kill", "id": "2"})
    assert "[Job 2 was killed on request after " in text(killed), text(killed)
    assert "GET / HTTP/1.1" in text(killed), text(killed)
    # A prompt on a stdin pipe comes back at once; `write` answers it.
    with anyio.fail_after(DEADLINE):
        result = await session.call_tool(
            "bash",
            {"command": "printf 'Deploy? [y/N] '; read a; echo \"deploying: $a\"", "stdin": "pipe", "yield_ms": 3_000_000},
        )
    assert details(result)["job"]["state"] == "awaitingInput", text(result)
    assert text(result).startswith("Deploy? [y/N] \n\n"), text(result)
    # (its shell of its own may say what of the session's state it lacks: calls came back to back)
    assert "\n[Waiting for input as job 3: bash reads its stdin (" in text(result), text(result)
    answered = await session.call_tool("job", {"action": "write", "id": 3, "input": "y\n"})
    assert text(answered).startswith("deploying: y\n"), text(answered)
    assert "[Job 3 exited with code 0 after " in text(answered), text(answered)
    wrong = await session.call_tool("job", {"action": "wait", "id": 7})
    assert wrong.is_error and text(wrong).startswith("No job 7. The jobs are 1 (exited with code 0 after "), text(wrong)
    # In a terminal: a read with echo off is a secret, and the answer never shows.
    with anyio.fail_after(DEADLINE):
        result = await session.call_tool(
            "bash", {"command": "read -s -p 'Code: ' c; echo; echo \"got ${#c}\"", "stdin": "pty", "yield_ms": 3_000_000}
        )
    job = details(result)["job"]
    assert job["state"] == "awaitingInput" and job["terminal"], (job, text(result))
    assert job["prompt"]["kind"] == "password" and job["prompt"]["secret"], job
    answered = await session.call_tool("job", {"action": "write", "id": job["id"], "input": "hunter2\n"})
    assert "got 7" in text(answered) and "hunter2" not in text(answered), text(answered)
    # What a call leaves running with `&` is followed as a job: its port, its output, its kill.
    with anyio.fail_after(DEADLINE):
        result = await session.call_tool(
            "bash", {"command": "python3 -u -m http.server 0 --bind 127.0.0.1 & echo started"}
        )
    left = details(result)["leftJob"]
    assert "followed as job %d" % left["id"] in text(result), text(result)
    with anyio.fail_after(DEADLINE):
        waited = await session.call_tool("job", {"action": "wait", "id": left["id"], "port": 0})
    assert details(waited)["job"]["state"] == "listening", text(waited)
    assert "Serving HTTP on 127.0.0.1" in text(waited), text(waited)
    killed = await session.call_tool("job", {"action": "kill", "id": left["id"]})
    assert details(killed)["job"]["state"] == "cancelled", text(killed)


ASKED = []


async def answer_from_the_list(context, params):
    """The user of a client that can ask: answers each question with the next decision queued."""
    import mcp.types as types

    ASKED.append(params.message)
    decision = ANSWERS.pop(0)
    if decision == "decline":
        return types.ElicitResult(action="decline")
    return types.ElicitResult(action="accept", content={"decision": decision})


ANSWERS = []


async def elicitation(session, init):
    import tempfile

    parent = "/run" if os.geteuid() == 0 else os.path.expanduser("~")
    outside = tempfile.mkdtemp(dir=parent)
    try:
        request = {"write": [outside], "reason": "the test writes there"}
        ANSWERS.extend(["once", "deny", "decline"])
        once = await session.call_tool("bash", {"command": f"touch {outside}/a && echo made", "sandbox": request})
        assert text(once).startswith("made\n"), text(once)
        assert "[Sandbox widened for this call by the user: write " in text(once), text(once)
        assert ASKED and "asks for more than the sandbox allows: write " in ASKED[0] and "the test writes there" in ASKED[0], ASKED
        denied = await session.call_tool("bash", {"command": f"touch {outside}/b", "sandbox": request})
        assert denied.is_error and text(denied).startswith("Blocked: the sandbox does not allow write "), text(denied)
        declined = await session.call_tool("bash", {"command": f"touch {outside}/c", "sandbox": request})
        assert declined.is_error and "the user denied it" in text(declined), text(declined)
        assert os.path.exists(f"{outside}/a") and not os.path.exists(f"{outside}/b") and not os.path.exists(f"{outside}/c")
        assert len(ASKED) == 3, ASKED
    finally:
        subprocess.run(["rm", "-rf", outside], check=True)


async def disconnect_scenario():
    box = {}
    started = anyio.Event()

    async def body(session, init):
        async def on_progress(value, total, message):
            found = re.search(r"pid=(\d+)", message or "")
            if found and "pid" not in box:
                box["pid"] = int(found.group(1))
                started.set()

        async def call():
            await session.call_tool("bash", {"command": "sleep 60 & echo pid=$!; wait"}, progress_callback=on_progress)

        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as group:
                group.start_soon(call)
                await started.wait()
                # Leaving the client's context closes the server's stdin with the call still running.
                group.cancel_scope.cancel()

    await session_run(body)
    assert gone(box["pid"]), f"sleep {box['pid']} outlived the client"


SCENARIOS = {
    "initialize": (initialize, []),
    "tools": (tools, []),
    "structured": (structured, ["--structured-content"]),
    "arguments": (arguments, []),
    "gemini_profile": (gemini_profile, ["--client", "gemini"]),
    "claude_profile": (claude_profile, ["--client", "claude"]),
    "bash_success": (bash_success, []),
    "bash_error": (bash_error, []),
    "blocked": (blocked, ["--tools", "read,grep"]),
    "blocked_by_setting": (blocked, ["--set", "bashInterceptor.tools=read"]),
    "not_blocked_without_tools": (not_blocked_without_tools, []),
    "progress": (progress, []),
    "cancel": (cancel, []),
    "artifact": (artifact, []),
    "read_output": (read_output, []),
    "concurrent": (concurrent, []),
    "jobs": (jobs, []),
    "sandbox": (sandbox, []),
}


def main():
    if SCENARIO == "disconnect":
        anyio.run(disconnect_scenario)
    elif SCENARIO == "elicitation":
        anyio.run(lambda: session_run(elicitation, elicitation=answer_from_the_list))
    else:
        body, args = SCENARIOS[SCENARIO]
        anyio.run(session_run, body, *args)
    print(f"ok {SCENARIO}")


if __name__ == "__main__":
    main()
