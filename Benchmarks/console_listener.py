#!/usr/bin/env python3
"""One listener of `pushtop serve`'s debug feed (GET /apps/{id}/console, server-sent events), for the feed's
benchmarks: signs the request like the HTTP API, reads every row as fast as it arrives, counts rows and gaps, and
prints the counts when it is stopped (SIGTERM/SIGINT).

    python3 Benchmarks/console_listener.py --port 6131 [--app-id 1 --key pushtop-key --secret pushtop-secret]
"""
import argparse
import hashlib
import hmac
import http.client
import json
import signal
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--app-id", default="1")
parser.add_argument("--key", default="pushtop-key")
parser.add_argument("--secret", default="pushtop-secret")
parser.add_argument("--types", default=None)
args = parser.parse_args()

path = f"/apps/{args.app_id}/console"
params = {"auth_key": args.key, "auth_timestamp": str(int(time.time())), "auth_version": "1.0"}
if args.types:
    params["types"] = args.types
query = "&".join(f"{k}={params[k]}" for k in sorted(params))
signature = hmac.new(args.secret.encode(), f"GET\n{path}\n{query}".encode(), hashlib.sha256).hexdigest()
counts = {"rows": 0, "gaps": 0, "dropped": 0, "bytes": 0}


def report(*_):
    print(json.dumps(counts), flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, report)
signal.signal(signal.SIGINT, report)
connection = http.client.HTTPConnection(args.host, args.port)
connection.request("GET", f"{path}?{query}&auth_signature={signature}")
response = connection.getresponse()
if response.status != 200:
    print(f"feed answered {response.status}: {response.read()[:200]!r}", file=sys.stderr)
    sys.exit(1)
for line in response:
    counts["bytes"] += len(line)
    if line.startswith(b"data: "):
        if line.startswith(b'data: {"type":"gap"'):
            counts["gaps"] += 1
            counts["dropped"] += json.loads(line[6:]).get("dropped", 0)
        else:
            counts["rows"] += 1
report()
