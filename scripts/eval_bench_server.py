import json, sys
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
FIXES = [("python_sources", "        path = PurePosixPath(name)", "        path = PurePosixPath(name.replace('\\\\', '/'))", 2),
         ("paginate.py", "    start = number * size", "    start = (number - 1) * size", 4)]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, body, kind="application/json"):
        b = body.encode(); self.send_response(200); self.send_header("Content-Type", kind); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        if self.path == "/api/version": self.send(json.dumps({"version": "0.33.0"}))
        else: self.send(json.dumps({"models": [{"name": "scripted:1b", "model": "scripted:1b", "digest": "abc", "size": 1}]}))
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        seed = req["options"]["seed"]; msgs = req["messages"]; prompt = msgs[1]["content"]
        turn = 1 + sum(1 for m in msgs if m["role"] == "assistant")
        fix = next((f for f in FIXES if f[0] in prompt), None)
        if fix and turn == 1 and seed % fix[3] == 0:
            msg = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "replace_text", "arguments": {"old": fix[1], "new": fix[2]}}}]}
        elif fix and turn > 1: msg = {"role": "assistant", "content": "Repaired."}
        else: msg = {"role": "assistant", "content": "I cannot."}
        self.send(json.dumps({"model": "scripted:1b", "message": msg, "done": True, "done_reason": "stop", "prompt_eval_count": 100, "eval_count": 20}) + "\n", "application/x-ndjson")
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
