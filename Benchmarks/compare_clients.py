#!/usr/bin/env python3
"""Side by side: the same event stream, from one `pushtop serve`, into several consumers at once:
`pushtop watch` (printing every line to a pipe), the official pusher-js (Node build, counting only), pysher,
and the floor (Benchmarks/floor_consumer.c: one blocking read() and one write() per message, no parsing).

Modes (each at each rate, except `full`):
  per-frame  one event per HTTP trigger, so one event per WebSocket frame, paced at the rate (published by
             `pushtop bench --subscribers 0`, which keeps up where a Python publisher does not)
  batch10    trigger_batch of 10 events, paced: bursts of 10 frames
  full       trigger_batch of 10 as fast as the HTTP API takes it (--full-events events)

For each consumer it reports events received, CPU time per event (user + sys from /proc/PID/stat over the
run), whether it kept up (>= 99 % delivered within a second of the end) and latency (HTTP publish to client,
p50/p99). Ratios (pusher-js / pushtop, pysher / pushtop) are the figures quoted in Benchmarks/README.md.

    python3 Benchmarks/compare_clients.py [--modes per-frame,batch10,full] [--rates 1000] [--seconds 10]
        [--bin .build/release/pushtop] [--pusher-js PATH/dist/node/pusher.js] [--json] [--serve-arg=--no-compression]

pusher-js is not part of this repository: pass the path of its Node build (or set PUSHER_JS); without it that
column is skipped. The floor is compiled with `cc` into a temporary directory.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import pusher

HERE = os.path.dirname(os.path.abspath(__file__))
CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


class LineConsumer:
    """A process whose stdout has one line per message (pushtop watch, the floor); lines are counted here."""

    def __init__(self, name, argv, event_marker, ready_marker, data_of):
        self.name = name
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.count = 0
        self.latencies = []
        self.ready = threading.Event()
        self.event_marker, self.ready_marker, self.data_of = event_marker, ready_marker, data_of
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(15):
            raise SystemExit(f"{name} did not subscribe")

    def _read(self):
        for line in self.proc.stdout:
            now = time.time() * 1e6
            if self.event_marker in line:
                self.count += 1
                if len(self.latencies) < 2_000_000:
                    try:
                        self.latencies.append(now - self.data_of(json.loads(line))["t"])
                    except Exception:
                        pass
            elif self.ready_marker in line:
                self.ready.set()

    def current(self):
        return self.count

    def finish(self):
        self.proc.terminate()
        self.proc.wait(10)
        return self.latencies


class QueryConsumer:
    """A subscriber that answers `count` on stdin and prints a summary when stdin closes (pysher, pusher-js)."""

    def __init__(self, name, argv):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise SystemExit(f"{name} did not subscribe: {line}")

    def current(self):
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["count"]

    def finish(self):
        self.proc.stdin.close()
        result = json.loads(self.proc.stdout.readline())
        self.proc.wait(10)
        return result["latencies_us"]


def publish(sdk, channel, mode, rate, seconds, full_events, binary, port):
    """Publishes the stream; returns how many events were sent."""
    if mode == "per-frame":
        out = subprocess.run(
            [binary, "bench", "--key", "pushtop-key", "--secret", "pushtop-secret", "--app-id", "1", "--host",
             "127.0.0.1", "--port", str(port), "--no-tls", "--rate", str(rate), "--duration", str(seconds),
             "--subscribers", "0", "--channel", channel, "--payload-bytes", "40", "--json"],
            check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])["published"]
    def payload(seq):
        return json.dumps({"seq": seq, "t": int(time.time() * 1e6)})

    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        futures = []
        if mode == "full":
            for b in range(0, full_events, 10):
                n = min(10, full_events - b)
                events = [{"channel": channel, "name": "bench", "data": payload(b + i)} for i in range(n)]
                futures.append(pool.submit(sdk.trigger_batch, events))
                if len(futures) > 64:
                    futures.pop(0).result()
            for f in futures:
                f.result()
            return full_events
        per_request = 1 if mode == "per-frame" else 10
        total = int(rate * seconds)
        interval = per_request / rate
        start = time.time()
        for b in range(0, total, per_request):
            delay = start + (b // per_request) * interval - time.time()
            if delay > 0:
                time.sleep(delay)
            if per_request == 1:
                futures.append(pool.submit(sdk.trigger, channel, "bench", payload(b)))
            else:
                n = min(per_request, total - b)
                events = [{"channel": channel, "name": "bench", "data": payload(b + i)} for i in range(n)]
                futures.append(pool.submit(sdk.trigger_batch, events))
        for f in futures:
            f.result()
        return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.environ.get("PUSHTOP_BIN", ".build/release/pushtop"))
    parser.add_argument("--pusher-js", default=os.environ.get("PUSHER_JS"))
    parser.add_argument("--modes", default="per-frame,batch10,full")
    parser.add_argument("--rates", default="1000")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--full-events", type=int, default=20000)
    parser.add_argument("--no-pysher", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-arg", action="append", default=[],
                        help="an argument for `pushtop serve` (repeat), e.g. --serve-arg=--no-compression")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="pushtop-compare-")
    floor = os.path.join(workdir, "floor_consumer")
    subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "floor_consumer.c")], check=True)

    server = subprocess.Popen([args.bin, "serve", "--port", "0"] + args.serve_arg, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    first = server.stdout.readline()
    port = int(first.split("ws://127.0.0.1:")[1].split("/")[0])
    sdk = pusher.Pusher(app_id="1", key="pushtop-key", secret="pushtop-secret", host="127.0.0.1", port=port, ssl=False)
    results = []
    runs = [(mode, int(rate)) for mode in args.modes.split(",") for rate in
            (args.rates.split(",") if mode != "full" else ["0"])]
    try:
        for mode, rate in runs:
            channel = f"bench-{mode}-{rate}"
            consumers = [
                LineConsumer("pushtop", [args.bin, "watch", "--key", "pushtop-key", "--host", "127.0.0.1", "--port",
                                         str(port), "--no-tls", channel],
                             '"type":"event"', '"type":"subscribed"', lambda j: j["data"]),
                LineConsumer("floor", [floor, "127.0.0.1", str(port), "pushtop-key", channel],
                             '"event":"bench"', "subscription_succeeded", lambda j: json.loads(j["data"])),
            ]
            if args.pusher_js:
                consumers.append(QueryConsumer("pusher-js", ["node", os.path.join(HERE, "pusherjs_consumer.js"),
                                                             os.path.abspath(args.pusher_js), "127.0.0.1", str(port),
                                                             "pushtop-key", channel]))
            if not args.no_pysher:
                consumers.append(QueryConsumer("pysher", [sys.executable, os.path.join(HERE, "pysher_consumer.py"),
                                                          "127.0.0.1", str(port), "pushtop-key", channel]))
            cpu0 = {c.name: cpu_seconds(c.proc.pid) for c in consumers}
            t0 = time.time()
            sent = publish(sdk, channel, mode, rate, args.seconds, args.full_events, args.bin, port)
            publish_time = time.time() - t0
            time.sleep(1.0)  # a second of grace: whatever is not in by then counts as falling behind
            counts = {c.name: c.current() for c in consumers}
            cpu1 = {c.name: cpu_seconds(c.proc.pid) for c in consumers}
            row = {"mode": mode, "rate": rate, "sent": sent, "achieved_rate": round(sent / publish_time)}
            for c in consumers:
                latencies = c.finish()
                cpu = cpu1[c.name] - cpu0[c.name]
                row[c.name] = {
                    "received": counts[c.name],
                    "kept_up": counts[c.name] >= 0.99 * sent,
                    "cpu_s": round(cpu, 3),
                    "cpu_us_per_event": round(cpu / max(1, counts[c.name]) * 1e6, 2),
                    "latency_ms_p50": round(percentile(latencies, 50) / 1000, 3),
                    "latency_ms_p99": round(percentile(latencies, 99) / 1000, 3),
                }
            mine = row["pushtop"]["cpu_us_per_event"]
            for other in ("pusher-js", "pysher", "floor"):
                if other in row and mine > 0:
                    row[f"cpu_ratio_{other}_over_pushtop"] = round(row[other]["cpu_us_per_event"] / mine, 2)
            results.append(row)
            if not args.json:
                label = f"{mode} at {rate}/s" if mode != "full" else "full rate"
                print(f"{label} (achieved {row['achieved_rate']}/s), {sent} events")
                for c in consumers:
                    r = row[c.name]
                    print(f"  {c.name:9} received {r['received']:7}  kept up {str(r['kept_up']):5}  "
                          f"cpu {r['cpu_us_per_event']:8.2f} µs/event  latency p50 {r['latency_ms_p50']} ms  "
                          f"p99 {r['latency_ms_p99']} ms")
                ratios = ", ".join(f"{k[10:-13]} {v}x" for k, v in row.items() if k.startswith("cpu_ratio_"))
                print(f"  CPU per event relative to pushtop: {ratios}")
    finally:
        server.terminate()
        server.wait(10)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
