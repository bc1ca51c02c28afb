"""A pysher subscriber for compare_clients.py: counts events and records latency; prints a JSON summary
when its stdin closes."""
import json
import sys
import threading
import time

import pysher

host, port, key, channel = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lock = threading.Lock()
count = 0
latencies = []
ready = threading.Event()


def on_event(data, *args):
    global count
    now = time.time() * 1e6
    try:
        sent = json.loads(data)["t"]
    except Exception:
        sent = None
    with lock:
        count += 1
        if sent is not None and len(latencies) < 2_000_000:
            latencies.append(now - sent)


def on_connect(_):
    ch = client.subscribe(channel)
    ch.bind("bench", on_event)
    ch.bind("pusher_internal:subscription_succeeded", lambda *_: ready.set())


client = pysher.Pusher(key, custom_host=host, port=port, secure=False, log_level=50)
client.connection.bind("pusher:connection_established", on_connect)
client.connect()
if not ready.wait(15):
    print(json.dumps({"error": "pysher did not subscribe"}), flush=True)
    sys.exit(1)
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "count":
        with lock:
            print(json.dumps({"count": count}), flush=True)
with lock:
    print(json.dumps({"count": count, "latencies_us": latencies}), flush=True)
# pysher's threads linger after disconnect(); the measurement is done, so leave at once.
import os
os._exit(0)
