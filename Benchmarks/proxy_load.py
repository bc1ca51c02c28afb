#!/usr/bin/env python3
"""The load tool of Benchmarks/proxy_cost.sh (no build needed): raw WebSocket subscribers on one selector thread and a
signed HTTP publisher in one process, so that a frame's latency is the same clock's "request written -> frame read".

  proxy_load.py latency --api-port P --sub-port P [--rate 1000] [--seconds 10] [--subscribers 4] [--pids name=PID,...]
      events through POST /apps/ID/batch_events (--batch a request, --connections publishers) at --rate, to --subscribers on --sub-port:
      delivered, lost, out of order, latency p50/p99/max, and each named process's CPU per delivered frame.
  proxy_load.py idle --port P --n 10000 --hold 30
      opens N connections (the WebSocket handshake and pusher:connection_established), holds them, says how many.
"""
import argparse
import base64
import hashlib
import hmac
import http.client
import json
import os
import selectors
import socket
import struct
import threading
import time

APP_ID, KEY, SECRET = "1", "pushtop-key", "pushtop-secret"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def handshake(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /app/{KEY}?protocol=7&client=bench&version=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    return s


def masked(text):
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    n = len(payload)
    header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Reader:
    """Reads a socket's unmasked server frames from a byte buffer (after the HTTP answer)."""

    def __init__(self):
        self.buffer = b""
        self.upgraded = False

    def feed(self, data):
        self.buffer += data
        frames = []
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return frames
            if b" 101 " not in self.buffer[:end].split(b"\r\n")[0]:
                raise RuntimeError(self.buffer[:end].decode(errors="replace"))
            self.buffer = self.buffer[end + 4:]
            self.upgraded = True
        b = self.buffer
        i = 0
        while len(b) - i >= 2:
            n = b[i + 1] & 0x7F
            at = i + 2
            if n == 126:
                if len(b) - i < 4:
                    break
                n = struct.unpack(">H", b[i + 2:i + 4])[0]
                at = i + 4
            elif n == 127:
                if len(b) - i < 10:
                    break
                n = struct.unpack(">Q", b[i + 2:i + 10])[0]
                at = i + 10
            if len(b) - at < n:
                break
            frames.append((b[i] & 0x0F, b[at:at + n]))
            i = at + n
        self.buffer = b[i:]
        return frames


def connect_subscribers(port, count, channel):
    sockets = []
    for _ in range(count):
        s = handshake(port)
        reader = Reader()
        subscribed = False
        while not subscribed:
            for opcode, payload in reader.feed(s.recv(65536)):
                if b"connection_established" in payload:
                    s.sendall(masked(json.dumps({"event": "pusher:subscribe", "data": {"channel": channel}})))
                elif b"subscription_succeeded" in payload:
                    subscribed = True
        s.setblocking(False)
        sockets.append((s, reader))
    return sockets


def signed_path(path, body):
    query = {"auth_key": KEY, "auth_timestamp": str(int(time.time())), "auth_version": "1.0",
             "body_md5": hashlib.md5(body).hexdigest()}
    to_sign = "&".join(f"{k}={query[k]}" for k in sorted(query))
    query["auth_signature"] = hmac.new(SECRET.encode(), f"POST\n{path}\n{to_sign}".encode(), hashlib.sha256).hexdigest()
    return path + "?" + "&".join(f"{k}={v}" for k, v in query.items())


def latency(args):
    channel = "proxy-bench"
    subs = connect_subscribers(args.sub_port, args.subscribers, channel)
    pids = dict(p.split("=") for p in args.pids.split(",") if p)
    latencies, last = [], {}
    out_of_order = [0]
    stop = threading.Event()
    selector = selectors.DefaultSelector()
    for index, (s, reader) in enumerate(subs):
        selector.register(s, selectors.EVENT_READ, index)

    def read():
        while not stop.is_set():
            for key, _ in selector.select(0.1):
                index = key.data
                s, reader = subs[index]
                try:
                    data = s.recv(1 << 20)
                except BlockingIOError:
                    continue
                now = time.perf_counter_ns()
                for opcode, payload in reader.feed(data):
                    if opcode != 1 or b'"bench"' not in payload:
                        continue
                    inner = json.loads(json.loads(payload)["data"])
                    latencies.append(now - inner["t"])
                    stream = (index, inner["seq"] % args.connections)
                    if inner["seq"] <= last.get(stream, -1):
                        out_of_order[0] += 1
                    last[stream] = inner["seq"]

    reader_thread = threading.Thread(target=read, daemon=True)
    reader_thread.start()
    path = f"/apps/{APP_ID}/batch_events"
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    # --connections publishers (keep-alive HTTP connections), each its share of the rate and its own sequence.
    interval = args.batch * args.connections / args.rate
    start = time.monotonic()
    counts = [0] * args.connections

    def publish(stream):
        api = http.client.HTTPConnection("127.0.0.1", args.api_port)
        request = 0
        while time.monotonic() - start < args.seconds:
            wait = start + request * interval - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            t = time.perf_counter_ns()
            batch = [{"name": "bench", "channel": channel,
                      "data": json.dumps({"seq": (request * args.batch + i) * args.connections + stream, "t": t})}
                     for i in range(args.batch)]
            body = json.dumps({"batch": batch}).encode()
            api.request("POST", signed_path(path, body), body, {"Content-Type": "application/json"})
            answer = api.getresponse()
            answer.read()
            if answer.status != 200:
                raise SystemExit(f"publish answered {answer.status}")
            request += 1
            counts[stream] += args.batch

    publishers = [threading.Thread(target=publish, args=(n,)) for n in range(args.connections)]
    for thread in publishers:
        thread.start()
    for thread in publishers:
        thread.join()
    sent = sum(counts)
    elapsed = time.monotonic() - start
    deadline = time.monotonic() + 10
    while len(latencies) < sent * len(subs) and time.monotonic() < deadline:
        time.sleep(0.05)
    after = {name: cpu_seconds(pid) for name, pid in pids.items()}
    stop.set()
    reader_thread.join()
    delivered = len(latencies)
    ordered = sorted(latencies)

    def at(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6 if ordered else float("nan")

    print(f"latency: {sent} events in {elapsed:.1f} s = {sent / elapsed:.0f}/s to {len(subs)} subscribers")
    print(f"delivered {delivered}/{sent * len(subs)}  lost {sent * len(subs) - delivered}  out of order {out_of_order[0]}")
    print(f"latency (request written -> frame read): p50 {at(0.5):.2f} ms  p99 {at(0.99):.2f} ms  max {at(1):.2f} ms")
    for name in pids:
        cpu = after[name] - before[name]
        print(f"{name} CPU: {cpu:.2f} s = {cpu * 100 / elapsed:.0f}% of a core; "
              f"{cpu * 1e6 / max(1, delivered):.2f} µs per delivered frame")


def idle(args):
    selector = selectors.DefaultSelector()
    established = 0
    opened = []
    start = time.monotonic()
    for i in range(args.n):
        s = handshake(args.port)
        s.setblocking(False)
        reader = Reader()
        selector.register(s, selectors.EVENT_READ, reader)
        opened.append(s)
        if i % 200 == 199 or i == args.n - 1:
            # Read what has arrived (answers and connection_established) before opening more.
            deadline = time.monotonic() + (30 if i == args.n - 1 else 0.05)
            while time.monotonic() < deadline and established < i + 1:
                for key, _ in selector.select(0.05):
                    try:
                        data = key.fileobj.recv(65536)
                    except BlockingIOError:
                        continue
                    established += sum(1 for _, p in key.data.feed(data) if b"connection_established" in p)
    print(f"idle connections: {established} of {args.n} established in {time.monotonic() - start:.1f} s; "
          f"holding {args.hold} s", flush=True)
    end = time.monotonic() + args.hold
    while time.monotonic() < end:
        for key, _ in selector.select(1):
            try:
                key.fileobj.recv(65536)  # pings, if any: read and drop
            except (BlockingIOError, ConnectionError):
                pass
    for s in opened:
        s.close()


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    l = sub.add_parser("latency")
    l.add_argument("--api-port", type=int, required=True)
    l.add_argument("--sub-port", type=int, required=True)
    l.add_argument("--rate", type=int, default=1000)
    l.add_argument("--seconds", type=float, default=10)
    l.add_argument("--subscribers", type=int, default=4)
    l.add_argument("--batch", type=int, default=10)
    l.add_argument("--connections", type=int, default=4)
    l.add_argument("--pids", default="")
    i = sub.add_parser("idle")
    i.add_argument("--port", type=int, required=True)
    i.add_argument("--n", type=int, default=10000)
    i.add_argument("--hold", type=float, default=30)
    args = parser.parse_args()
    latency(args) if args.mode == "latency" else idle(args)


if __name__ == "__main__":
    main()
