#!/usr/bin/env python3
"""Side by side: the same event stream, from one `pushtop serve`, into `pushtop watch` and into pysher.

For each publish rate it reports, per client: events received, CPU time per event (user + sys from
/proc/PID/stat), whether it kept up (>= 99 % delivered within a second of the end), and delivery latency
(p50/p99, HTTP publish to client). The CPU ratio pysher / pushtop is the figure quoted in Benchmarks/README.md.

    python3 Benchmarks/compare_clients.py [--rates 500,2000,5000] [--seconds 5] [--bin .build/release/pushtop]
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
import concurrent.futures

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


class WatchConsumer:
    """`pushtop watch` as a subprocess; its stdout lines are counted here."""

    def __init__(self, binary, port, channel):
        self.proc = subprocess.Popen(
            [binary, "watch", "--key", "pushtop-key", "--host", "127.0.0.1", "--port", str(port), "--no-tls", channel],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.count = 0
        self.latencies = []
        self.subscribed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.subscribed.wait(15):
            raise SystemExit("pushtop watch did not subscribe")

    def _read(self):
        for line in self.proc.stdout:
            now = time.time() * 1e6
            if '"type":"event"' in line:
                self.count += 1
                try:
                    self.latencies.append(now - json.loads(line)["data"]["t"])
                except Exception:
                    pass
            elif '"type":"subscribed"' in line:
                self.subscribed.set()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class PysherConsumer:
    def __init__(self, port, channel):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "pysher_consumer.py"), "127.0.0.1", str(port), "pushtop-key", channel],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise SystemExit(f"pysher did not subscribe: {line}")

    @property
    def count(self):
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["count"]

    def finish(self):
        self.proc.stdin.close()
        result = json.loads(self.proc.stdout.readline())
        self.proc.wait(10)
        return result


def publish(sdk, channel, rate, seconds):
    """Publishes rate*seconds events in batches of 10, paced; returns how many were sent."""
    total = int(rate * seconds)
    batch_interval = 10.0 / rate
    start = time.time()
    sent = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        futures = []
        for b in range(0, total, 10):
            due = start + (b // 10) * batch_interval
            delay = due - time.time()
            if delay > 0:
                time.sleep(delay)
            n = min(10, total - b)
            t = int(time.time() * 1e6)
            events = [{"channel": channel, "name": "bench", "data": json.dumps({"seq": b + i, "t": t})} for i in range(n)]
            futures.append(pool.submit(sdk.trigger_batch, events))
            sent += n
        for f in futures:
            f.result()
    return sent


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.environ.get("PUSHTOP_BIN", ".build/release/pushtop"))
    parser.add_argument("--rates", default="500,2000,5000")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    server = subprocess.Popen([args.bin, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    first = server.stdout.readline()
    port = int(first.split("ws://127.0.0.1:")[1].split("/")[0])
    sdk = pusher.Pusher(app_id="1", key="pushtop-key", secret="pushtop-secret", host="127.0.0.1", port=port, ssl=False)
    results = []
    try:
        for rate in [int(r) for r in args.rates.split(",")]:
            channel = f"bench-{rate}"
            watch = WatchConsumer(args.bin, port, channel)
            pysher_client = PysherConsumer(port, channel)
            cpu0 = {"pushtop": cpu_seconds(watch.proc.pid), "pysher": cpu_seconds(pysher_client.proc.pid)}
            t0 = time.time()
            sent = publish(sdk, channel, rate, args.seconds)
            publish_time = time.time() - t0
            time.sleep(1.0)  # a second of grace: whatever is not in by then counts as falling behind
            counts = {"pushtop": watch.count, "pysher": pysher_client.count}
            cpu1 = {"pushtop": cpu_seconds(watch.proc.pid), "pysher": cpu_seconds(pysher_client.proc.pid)}
            pysher_result = pysher_client.finish()
            watch.stop()
            row = {"rate": rate, "sent": sent, "achieved_rate": round(sent / publish_time)}
            for name, lat in (("pushtop", watch.latencies), ("pysher", pysher_result["latencies_us"])):
                cpu = cpu1[name] - cpu0[name]
                row[name] = {
                    "received": counts[name],
                    "kept_up": counts[name] >= 0.99 * sent,
                    "cpu_s": round(cpu, 3),
                    "cpu_us_per_event": round(cpu / max(1, counts[name]) * 1e6, 2),
                    "latency_ms_p50": round(percentile(lat, 50) / 1000, 3),
                    "latency_ms_p99": round(percentile(lat, 99) / 1000, 3),
                }
            p, q = row["pushtop"]["cpu_us_per_event"], row["pysher"]["cpu_us_per_event"]
            row["cpu_ratio_pysher_over_pushtop"] = round(q / p, 1) if p > 0 else None
            results.append(row)
            if not args.json:
                print(f"rate {rate}/s (achieved {row['achieved_rate']}/s), {sent} events")
                for name in ("pushtop", "pysher"):
                    r = row[name]
                    print(f"  {name:8} received {r['received']:7}  kept up {str(r['kept_up']):5}  "
                          f"cpu {r['cpu_us_per_event']:8.2f} µs/event  latency p50 {r['latency_ms_p50']} ms  "
                          f"p99 {r['latency_ms_p99']} ms")
                print(f"  CPU per event, pysher / pushtop: {row['cpu_ratio_pysher_over_pushtop']}x")
    finally:
        server.terminate()
        server.wait(10)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
