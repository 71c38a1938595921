"""make live-local's repair check: a loopback proxy in front of the real llama-server.

The first chat request is answered here with a call the model meant but broke (its JSON left
unclosed), as a small model writes one; every later request, and every GET, goes to the real
server unchanged. So mend must send its grammar repair request (`response_format: json_schema`)
to the real model, and what comes back is what the real server's grammar made of it.

Usage: live-local-repair-proxy.py PORT UPSTREAM REQUESTS_LOG
Binds 127.0.0.1 only; serves at most 20 requests and stops after 10 minutes either way.
"""

import json
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

PORT, UPSTREAM, LOG = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3]
MAX_REQUESTS = 20
LIFETIME_SECONDS = 600
BROKEN = 'I will read the file first: {"name": "read_file", "arguments": {"path": "path_rules.py"'


def broken_stream():
    """An OpenAI-compatible stream whose text is the broken call, then its end."""
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "smollm2-135m",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": BROKEN},
                          "finish_reason": None}]}
    end = dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])
    # No prompt count: a made-up one would be judged against the request's size (a count far
    # below it reads as a server that cut the prompt, and stops the run).
    usage = dict(chunk, choices=[], usage={"completion_tokens": 30})
    events = [json.dumps(event) for event in (chunk, end, usage)] + ["[DONE]"]
    return "".join(f"data: {event}\n\n" for event in events).encode()


class Proxy(BaseHTTPRequestHandler):
    chats = 0
    served = 0

    def do_GET(self):
        Proxy.served += 1
        self.forward(None)

    def do_POST(self):
        Proxy.served += 1
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(body.decode("utf-8", "replace") + "\n")
        Proxy.chats += 1
        if Proxy.chats == 1:
            self.reply(200, "text/event-stream", broken_stream())
        else:
            self.forward(body)

    def forward(self, body):
        request = urllib.request.Request(UPSTREAM + self.path, data=body, method=self.command)
        request.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=300) as answer:
                self.reply(answer.status, answer.headers.get("content-type", ""), answer.read())
        except urllib.error.HTTPError as error:
            self.reply(error.code, "application/json", error.read())

    def reply(self, status, content_type, data):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    server = HTTPServer(("127.0.0.1", PORT), Proxy)
    server.timeout = 5  # handle_request returns when idle, so the deadline is checked
    deadline = time.monotonic() + LIFETIME_SECONDS
    while Proxy.served < MAX_REQUESTS and time.monotonic() < deadline:
        server.handle_request()


if __name__ == "__main__":
    main()
