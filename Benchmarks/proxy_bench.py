#!/usr/bin/env python3
"""`pushtop proxy`'s cost, in one run against one `pushtop serve` (see Benchmarks/README.md, "pushtop proxy"):

1. idle: N connections through the proxy, each established; the proxy's and serve's memory.
2. throughput: R events/s for S seconds on one channel, one subscriber through the proxy and one direct; every
   event must reach both (no loss).
3. latency: L events/s; per event, when it reached the proxied subscriber minus when it reached the direct one
   (both read by one thread with one clock): the latency the relay adds, p50 and p99.
4. CPU: K (100) subscribers on one channel, E (400) events/s for S seconds, first all direct then all through the
   proxy: serve's CPU per delivery (direct run) against the proxy's CPU per relayed frame (proxied run), from
   /proc/PID/stat (400,000 frames: about a second of CPU, so the clock tick's 10 ms is 1 %).

    Benchmarks/proxy_bench.py [--bin .build/release/pushtop] [--idle 9900] [--rate 5000] [--latency-rate 1000]

The client side is raw sockets and selectors (no WebSocket library), in this one process.
"""
import argparse
import hashlib
import hmac
import http.client
import json
import os
import re
import selectors
import socket
import struct
import subprocess
import sys
import threading
import time

KEY, SECRET, APP_ID = "bench-key", "bench-secret", "1"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SO_TIMESTAMPNS = 35  # Linux: SCM_TIMESTAMPNS carries a struct timespec


def start(args):
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    return proc, port


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Socket:
    """A WebSocket client on a raw socket: the handshake, masked text frames out, unmasked frames in."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(
            (f"GET /app/{KEY}?protocol=7&client=bench&version=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("closed during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(head.decode(errors="replace"))

    def send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        header += bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def frames(self):
        """Every whole frame's payload in the buffer (after a read)."""
        out = []
        while len(self.buffer) >= 2:
            length = self.buffer[1] & 0x7F
            offset = 2
            if length == 126:
                if len(self.buffer) < 4:
                    break
                length = int.from_bytes(self.buffer[2:4], "big")
                offset = 4
            elif length == 127:
                if len(self.buffer) < 10:
                    break
                length = int.from_bytes(self.buffer[2:10], "big")
                offset = 10
            if len(self.buffer) < offset + length:
                break
            out.append(self.buffer[offset:offset + length])
            self.buffer = self.buffer[offset + length:]
        return out

    def read_until(self, marker, timeout=10):
        deadline = time.monotonic() + timeout
        self.sock.settimeout(timeout)
        while time.monotonic() < deadline:
            for frame in self.frames():
                if marker in frame:
                    return frame
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("closed")
            self.buffer += chunk
        raise RuntimeError(f"no {marker!r}")

    def subscribe(self, channel):
        self.read_until(b"connection_established")
        self.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": channel}}))
        self.read_until(b"subscription_succeeded")
        self.sock.setblocking(False)


class Publisher:
    """Signed `batch_events` over one keep-alive connection to serve's HTTP API."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port)

    def batch(self, channel, events):
        body = json.dumps({"batch": [{"name": "tick", "channel": channel, "data": d} for d in events]}).encode()
        path = f"/apps/{APP_ID}/batch_events"
        params = {"auth_key": KEY, "auth_timestamp": str(int(time.time())), "auth_version": "1.0",
                  "body_md5": hashlib.md5(body).hexdigest()}
        query = "&".join(f"{k}={params[k]}" for k in sorted(params))
        signature = hmac.new(SECRET.encode(), f"POST\n{path}\n{query}".encode(), hashlib.sha256).hexdigest()
        self.conn.request("POST", f"{path}?{query}&auth_signature={signature}", body,
                          {"Content-Type": "application/json"})
        response = self.conn.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"publish: {response.status}")


def pump(sockets, until, on_frame):
    """Reads every socket until `until()` or 30 s of silence."""
    selector = selectors.DefaultSelector()
    for index, s in enumerate(sockets):
        # The kernel's receive time of each read (not when this loop got to it): arrival order is exact.
        s.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        selector.register(s.sock, selectors.EVENT_READ, index)
    last = time.monotonic()
    while not until() and time.monotonic() - last < 30:
        for key, _ in selector.select(timeout=0.5):
            s = sockets[key.data]
            try:
                chunk, ancillary, _, _ = s.sock.recvmsg(1 << 20, 64)
            except BlockingIOError:
                continue
            now = time.time_ns()
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", data[:16])
                    now = seconds * 1_000_000_000 + nanoseconds
            last = time.monotonic()
            s.buffer += chunk
            for frame in s.frames():
                on_frame(key.data, frame, now)
    selector.close()


def publish_at(port, channel, rate, seconds, per_request=10, stamp=False):
    publisher = Publisher(port)
    total = int(rate * seconds)
    interval = per_request / rate
    start_time = time.monotonic()
    sent = 0
    while sent < total:
        count = min(per_request, total - sent)
        publisher.batch(channel, [f"{sent + i}" for i in range(count)])
        sent += count
        delay = start_time + sent / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return total, time.monotonic() - start_time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release/pushtop")
    parser.add_argument("--idle", type=int, default=9900)
    parser.add_argument("--rate", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--latency-rate", type=int, default=1000)
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--cpu-rate", type=int, default=400)
    args = parser.parse_args()

    serve, serve_port = start([args.bin, "serve", "--port", "0", "--key", KEY, "--secret", SECRET, "--app-id",
                               APP_ID, "--log-level", "error", "--max-connections", "100000"])
    proxy, proxy_port = start([args.bin, "proxy", "--listen", "127.0.0.1:0", "--upstream",
                               f"ws://127.0.0.1:{serve_port}", "--key", KEY, "--secret", SECRET, "--app-id",
                               APP_ID, "--log-level", "error"])
    results = {}
    try:
        # 1. Idle connections.
        idle = []
        started = time.monotonic()
        for _ in range(args.idle):
            s = Socket(proxy_port)
            s.read_until(b"connection_established")
            idle.append(s)
        results["idle"] = {"connections": len(idle), "open_seconds": round(time.monotonic() - started, 1),
                           "proxy_rss_mib": round(rss_mib(proxy.pid), 1),
                           "serve_rss_mib": round(rss_mib(serve.pid), 1)}
        print(json.dumps(results["idle"]), flush=True)

        # 2. Throughput without loss, with the idle connections still open.
        direct, relayed = Socket(serve_port), Socket(proxy_port)
        direct.subscribe("bench")
        relayed.subscribe("bench")
        counts = [0, 0]
        total = int(args.rate * args.seconds)
        done = threading.Event()

        def count(index, frame, now):
            if b'"tick"' in frame:
                counts[index] += 1

        reader = threading.Thread(target=pump, args=([direct, relayed], lambda: min(counts) >= total or done.is_set(), count))
        reader.start()
        cpu_before = cpu_seconds(proxy.pid)
        sent, took = publish_at(serve_port, "bench", args.rate, args.seconds)
        reader.join(60)
        done.set()
        results["throughput"] = {"sent": sent, "rate": round(sent / took), "direct": counts[0], "proxied": counts[1],
                                 "lost": sent - counts[1],
                                 "proxy_cpu_us_per_frame": round((cpu_seconds(proxy.pid) - cpu_before) / max(1, counts[1]) * 1e6, 1)}
        print(json.dumps(results["throughput"]), flush=True)

        # 3. Added latency: the same event, proxied minus direct arrival.
        arrivals = [{}, {}]

        def stamp(index, frame, now):
            match = re.search(rb'"data":"(\d+)"', frame)
            if match:
                arrivals[index][int(match.group(1))] = now

        latency_total = args.latency_rate * args.seconds
        direct2, relayed2 = Socket(serve_port), Socket(proxy_port)
        direct2.subscribe("latency")
        relayed2.subscribe("latency")
        reader = threading.Thread(target=pump, args=([direct2, relayed2], lambda: min(len(a) for a in arrivals) >= latency_total, stamp))
        reader.start()
        publish_at(serve_port, "latency", args.latency_rate, args.seconds, per_request=1)
        reader.join(60)
        added = sorted((arrivals[1][n] - arrivals[0][n]) / 1000 for n in arrivals[0] if n in arrivals[1])
        pick = lambda p: round(added[min(len(added) - 1, int(len(added) * p))], 1)
        results["latency_us"] = {"events": len(added), "p50": pick(0.5), "p99": pick(0.99), "max": round(added[-1], 1)}
        print(json.dumps(results["latency_us"]), flush=True)
        for s in idle + [direct, relayed, direct2, relayed2]:
            s.sock.close()

        # 4. CPU per frame: K subscribers direct (serve's CPU per delivery), then K through the proxy.
        for label, port in (("direct", serve_port), ("proxied", proxy_port)):
            subs = [Socket(port) for _ in range(args.subscribers)]
            for s in subs:
                s.subscribe(f"cpu-{label}")
            received = [0]

            def tally(index, frame, now):
                if b'"tick"' in frame:
                    received[0] += 1

            expected = int(args.cpu_rate * args.seconds) * args.subscribers
            reader = threading.Thread(target=pump, args=(subs, lambda: received[0] >= expected, tally))
            serve_before, proxy_before = cpu_seconds(serve.pid), cpu_seconds(proxy.pid)
            reader.start()
            publish_at(serve_port, f"cpu-{label}", args.cpu_rate, args.seconds)
            reader.join(60)
            results[f"cpu_{label}"] = {
                "frames": received[0], "expected": expected,
                "serve_us_per_frame": round((cpu_seconds(serve.pid) - serve_before) / max(1, received[0]) * 1e6, 2),
                "proxy_us_per_frame": round((cpu_seconds(proxy.pid) - proxy_before) / max(1, received[0]) * 1e6, 2)}
            print(json.dumps({label: results[f"cpu_{label}"]}), flush=True)
            for s in subs:
                s.sock.close()
            time.sleep(1)
    finally:
        proxy.terminate()
        serve.terminate()
        proxy.wait(10)
        serve.wait(10)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
