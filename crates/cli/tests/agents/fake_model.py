#!/usr/bin/env python3
"""A scripted model behind the provider API of a real agent CLI, for end-to-end tests of bashrt.

Stdlib only; listens on 127.0.0.1 only.

    python3 fake_model.py serve PROVIDER --script turns.json --log requests.jsonl
    python3 fake_model.py results PROVIDER requests.jsonl

PROVIDER is the API the CLI speaks:
    anthropic   Claude Code: the Messages API (POST /v1/messages, SSE), ANTHROPIC_BASE_URL
    openai      Codex CLI: the Responses API (POST /v1/responses, SSE), a model_providers base_url
    gemini      Gemini CLI: generateContent / streamGenerateContent, GOOGLE_GEMINI_BASE_URL

`serve` prints `listening <port>` on stdout once it accepts connections.

The script is a JSON list of turns, the same for every provider:
    {"calls": [{"tool": "bash", "args": {"command": "echo hi"}}, ...]}
        one model answer calling bashrt's tools (several calls: one answer, parallel calls)
    {"text": "done"}
        a final answer
    optional in a turn: "delay": seconds to think before answering
The tool is named as the CLI names bashrt's MCP tools: `mcp__bashrt__bash` (Claude Code), namespace
`mcp__bashrt` and name `bash` (Codex), `mcp_bashrt_bash` (Gemini CLI).

Only the agent's own turns take a turn of the script. Requests a CLI makes besides (Gemini's model
router and loop checks, Claude Code's titles, Codex's compaction) are answered from their schema,
or with a short text, and logged as "side".

Every request goes to the log as one JSON line {"seq", "kind", "turn", "path", "body"}. `results`
prints what the model received back from the tools, in call order, as a JSON list of
{"tool", "text", "is_error", "raw"}: `text` is the tool output as the model reads it, with the
CLI's own wrapper taken off (Codex's `Wall time` header, Gemini's `<untrusted_context>`), `is_error`
whether the CLI flagged it as an error (Codex never does), `raw` the result as the CLI sent it.
"""
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SERVER = "bashrt"


def tool_name(provider, tool):
    """How the CLI names bashrt's MCP tool `tool` to its model: (namespace, name)."""
    if provider == "anthropic":
        return None, f"mcp__{SERVER}__{tool}"
    if provider == "openai":
        return f"mcp__{SERVER}", tool
    return None, f"mcp_{SERVER}_{tool}"


def schema_value(schema, key=None, depth=0):
    """A small value that satisfies a (JSON or Gemini) schema, for side requests."""
    overrides = {"next_speaker": "user", "complexity_score": 1, "unproductive_state_confidence": 0,
                 "outcome": "allow"}
    if key in overrides:
        return overrides[key]
    if depth > 20 or not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for alt in ("anyOf", "oneOf"):
        if schema.get(alt):
            return schema_value(schema[alt][0], key, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "null")
    kind = str(kind or ("object" if "properties" in schema else "string")).lower()
    if kind == "object":
        return {k: schema_value(v, k, depth + 1) for k, v in (schema.get("properties") or {}).items()}
    if kind in ("number", "integer"):
        low = schema.get("minimum")
        return low if isinstance(low, (int, float)) else 0
    return {"array": [], "boolean": False, "null": None}.get(kind, "fake")


class Script:
    def __init__(self, provider, path, log_path):
        with open(path) as f:
            self.turns = json.load(f)
        self.provider = provider
        self.log_path = log_path
        self.lock = threading.Lock()
        self.seq = 0
        self.next = 0

    def turn(self, index):
        if index is not None and index < len(self.turns):
            return self.turns[index]
        return {"text": "(fake model: script exhausted)"}

    def take(self):
        """The next turn, for providers whose requests do not show how far the agent is."""
        with self.lock:
            index, self.next = self.next, self.next + 1
        return index

    def log(self, record):
        with self.lock:
            self.seq += 1
            record = {"seq": self.seq, "t": round(time.time(), 3), **record}
            with open(self.log_path, "a") as f:
                f.write(json.dumps(record) + "\n")


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


# --- Anthropic Messages (Claude Code) ------------------------------------------------------------


def anthropic(script, path, body):
    """(kind, turn, status, content type, body bytes)"""
    if path.endswith("/messages/count_tokens"):
        tokens = max(1, len(json.dumps(body.get("messages"))) // 4)
        return "side", None, 200, "application/json", json.dumps({"input_tokens": tokens}).encode()
    if not path.endswith("/messages"):
        return "other", None, 200, "application/json", b"{}"
    forced = (body.get("tool_choice") or {}).get("type") == "tool"
    main = bool(body.get("tools")) and (body.get("max_tokens") or 0) > 1 and not forced
    if main:
        # The turn is the number of the agent's answers so far: a retried request gets the same one.
        index = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        turn = script.turn(index)
        kind = "main"
    else:
        index, kind = None, "side"
        fmt = (body.get("output_config") or {}).get("format") or {}
        if forced:
            name = body["tool_choice"]["name"]
            tool = next((t for t in body["tools"] if t.get("name") == name), {})
            turn = {"raw_calls": [{"name": name, "input": schema_value(tool.get("input_schema")) or {}}]}
        elif fmt.get("type") == "json_schema":
            turn = {"text": json.dumps(schema_value(fmt.get("schema")))}
        else:
            turn = {"text": "OK"}
    blocks = []
    for i, call in enumerate(turn.get("calls", [])):
        blocks.append({"type": "tool_use", "id": f"toolu_{index}_{i}",
                       "name": tool_name("anthropic", call["tool"])[1], "input": call.get("args", {})})
    for i, call in enumerate(turn.get("raw_calls", [])):
        blocks.append({"type": "tool_use", "id": f"toolu_side_{i}", **call})
    if "text" in turn:
        blocks.append({"type": "text", "text": turn["text"]})
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    model = body.get("model", "claude-fake")
    usage = {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message_id = "msg_" + uuid.uuid4().hex[:20]
    if not body.get("stream"):
        message = {"id": message_id, "type": "message", "role": "assistant", "model": model, "content": blocks,
                   "stop_reason": stop, "stop_sequence": None, "usage": usage}
        return kind, index, 200, "application/json", json.dumps(message).encode()
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": block["text"]}}))
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}))
            text = json.dumps(block["input"])
            for part in (text[: len(text) // 2], text[len(text) // 2:]):
                out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "input_json_delta", "partial_json": part}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 10}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return kind, index, 200, "text/event-stream", b"".join(out)


def anthropic_results(records):
    mains = [r for r in records if r["kind"] == "main"]
    if not mains:
        return []
    names = {}
    results = []
    for message in mains[-1]["body"].get("messages", []):
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
            elif block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
                else:
                    text = content or ""
                results.append({"tool": names.get(block["tool_use_id"]), "text": text,
                                "is_error": bool(block.get("is_error")), "raw": block})
    return results


# --- OpenAI Responses (Codex CLI) ----------------------------------------------------------------


def openai(script, path, body, headers):
    if path.endswith("/models"):
        return "side", None, 200, "application/json", b'{"models": []}'
    if not path.endswith("/responses"):
        return "other", None, 404, "application/json", b'{"error": {"message": "not here"}}'
    metadata = headers.get("x-codex-turn-metadata") or (body.get("client_metadata") or {}).get(
        "x-codex-turn-metadata")
    try:
        metadata = json.loads(metadata) if metadata else {}
    except ValueError:
        metadata = {}
    main = metadata.get("request_kind", "turn") == "turn" and metadata.get("thread_source", "user") == "user"
    main = main and bool(body.get("tools") or body.get("input"))
    if main:
        index = script.take()
        turn = script.turn(index)
        kind = "main"
    else:
        index, kind = None, "side"
        fmt = (body.get("text") or {}).get("format") or {}
        turn = {"text": json.dumps(schema_value(fmt.get("schema"))) if fmt.get("type") == "json_schema" else "OK"}
    items = []
    for call in turn.get("calls", []):
        namespace, name = tool_name("openai", call["tool"])
        items.append({"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20],
                      "call_id": "call_" + uuid.uuid4().hex[:20], "namespace": namespace, "name": name,
                      "arguments": json.dumps(call.get("args", {})), "status": "completed"})
    if "text" in turn:
        items.append({"type": "message", "id": "msg_" + uuid.uuid4().hex[:20], "role": "assistant",
                      "status": "completed", "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]})
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}
    response = {"id": "resp_" + uuid.uuid4().hex[:20], "object": "response", "created_at": int(time.time()),
                "model": body.get("model", "fake")}
    out = [sse("response.created", {"type": "response.created", "response": {**response, "status": "in_progress",
                                                                             "output": []}})]
    for i, item in enumerate(items):
        out.append(sse("response.output_item.added", {"type": "response.output_item.added", "output_index": i,
                                                      "item": item}))
        out.append(sse("response.output_item.done", {"type": "response.output_item.done", "output_index": i,
                                                     "item": item}))
    out.append(sse("response.completed", {"type": "response.completed", "response": {
        **response, "status": "completed", "output": items, "usage": usage}}))
    return kind, index, 200, "text/event-stream", b"".join(out)


def openai_results(records):
    seen, calls, results = set(), {}, []
    for record in records:
        if record["kind"] != "main":
            continue
        for item in record["body"].get("input", []):
            if item.get("type") == "function_call":
                calls[item["call_id"]] = item.get("name")
            if item.get("type") != "function_call_output" or item["call_id"] in seen:
                continue
            seen.add(item["call_id"])
            output = item.get("output")
            if isinstance(output, list):
                texts = [part.get("text", "") for part in output if part.get("type") == "input_text"]
                if texts and texts[0].startswith("Wall time:"):
                    texts = texts[1:]
                text = "\n".join(texts)
            else:
                text = output or ""
                if text.startswith("Wall time:"):
                    text = text.split("\nOutput:\n", 1)[1] if "\nOutput:\n" in text else ""
            results.append({"tool": calls.get(item["call_id"]), "text": text, "is_error": False, "raw": item})
    return results


# --- Gemini API (Gemini CLI) ---------------------------------------------------------------------


def gemini(script, path, body):
    action = path.rsplit(":", 1)[-1] if ":" in path else ""
    if action == "countTokens":
        return "side", None, 200, "application/json", json.dumps({"totalTokens": 100}).encode()
    if action not in ("generateContent", "streamGenerateContent"):
        return "other", None, 200, "application/json", b"{}"
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    declared = any((tool or {}).get("functionDeclarations") for tool in body.get("tools") or [])
    if declared and not schema and config.get("responseMimeType") != "application/json":
        index = script.take()
        turn = script.turn(index)
        kind = "main"
    else:
        index, kind = None, "side"
        turn = {"text": json.dumps(schema_value(schema)) if schema else "OK"}
    parts = [{"functionCall": {"name": tool_name("gemini", call["tool"])[1], "args": call.get("args", {})}}
             for call in turn.get("calls", [])]
    if "text" in turn:
        parts.append({"text": turn["text"]})
    answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
              "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}}
    if action == "streamGenerateContent":
        return kind, index, 200, "text/event-stream", ("data: " + json.dumps(answer) + "\r\n\r\n").encode()
    return kind, index, 200, "application/json", json.dumps(answer).encode()


def gemini_results(records):
    results = []
    for record in records:
        if record["kind"] != "main":
            continue
        contents = record["body"].get("contents") or []
        for part in (contents[-1].get("parts", []) if contents else []):
            reply = part.get("functionResponse")
            if not reply:
                continue
            response = reply.get("response") or {}
            if "error" in response:
                text, is_error = response["error"], True
                if not isinstance(text, str):
                    text = json.dumps(text)
            else:
                text, is_error = response.get("output", ""), False
                prefix, suffix = "<untrusted_context>\n", "\n</untrusted_context>"
                if text.startswith(prefix) and text.endswith(suffix):
                    text = text[len(prefix):-len(suffix)]
            results.append({"tool": reply.get("name"), "text": text, "is_error": is_error, "raw": reply})
    return results


# --- the server ----------------------------------------------------------------------------------


def serve(provider, script_path, log_path):
    script = Script(provider, script_path, log_path)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, body):
            path = self.path.split("?")[0].rstrip("/")
            if provider == "anthropic":
                kind, turn, status, kind_of_body, data = anthropic(script, path, body)
            elif provider == "openai":
                kind, turn, status, kind_of_body, data = openai(script, path, body, self.headers)
            else:
                kind, turn, status, kind_of_body, data = gemini(script, path, body)
            script.log({"kind": kind, "turn": turn, "path": self.path, "body": body})
            delay = script.turn(turn).get("delay", 0) if kind == "main" else 0
            if delay:
                time.sleep(delay)
            self.send_response(status)
            self.send_header("Content-Type", kind_of_body)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id", "req_fake")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.answer({})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            self.answer(body if isinstance(body, dict) else {"_body": body})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


def results(provider, log_path):
    with open(log_path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    found = {"anthropic": anthropic_results, "openai": openai_results, "gemini": gemini_results}[provider](records)
    json.dump(found, sys.stdout, ensure_ascii=False)


def main():
    args = sys.argv[1:]
    if len(args) == 6 and args[0] == "serve" and args[2] == "--script" and args[4] == "--log":
        serve(args[1], args[3], args[5])
    elif len(args) == 3 and args[0] == "results":
        results(args[1], args[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
