#!/usr/bin/env python3
"""Cross-node delivery through Redis (issue 17): latency and CPU per event per node.

Starts a redis-server and two `pushtop serve --redis` nodes (A and B), puts subscribers on both, publishes
sequence-numbered, time-stamped events through A's HTTP API at a fixed rate (batch_events, 10 per request), and
reports, for subscribers on A (same node) and on B (across Redis), p50/p99/max of publish-to-receive latency and
0 lost / 0 duplicated / in order, plus the CPU time of each node and of Redis per event.

    python3 Benchmarks/cluster_delivery.py --pushtop .build/release/pushtop --rate 1000 --seconds 10

Latency includes the Python receivers' own overhead (a thread per socket, the GIL); the difference between the
same-node and cross-node figures is what the Redis hop adds.
"""
import argparse, json, os, random, socket, subprocess, threading, time

import pusher
import websocket


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_node(binary, port, redis_url, node_id, prefix):
    p = subprocess.Popen([binary, "serve", "--port", str(port), "--redis", redis_url, "--node-id", node_id,
                          "--redis-prefix", prefix, "--log-level", "warning"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    p.stdout.readline()  # "listening on …": the node is registered
    return p


class Subscriber(threading.Thread):
    def __init__(self, port, channel):
        super().__init__(daemon=True)
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}/app/pushtop-key?protocol=7&client=bench")
        json.loads(self.ws.recv())  # connection_established
        self.ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": channel}}))
        while json.loads(self.ws.recv())["event"] != "pusher_internal:subscription_succeeded":
            pass
        self.seqs, self.latencies = [], []

    def run(self):
        while True:
            try:
                text = self.ws.recv()
            except Exception:
                return
            now = time.time()
            message = json.loads(text)
            if message.get("event") != "tick":
                continue
            data = json.loads(message["data"])
            if data["seq"] < 0:
                return
            self.seqs.append(data["seq"])
            self.latencies.append((now - data["t"]) * 1000)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushtop", default=".build/release/pushtop")
    parser.add_argument("--rate", type=int, default=1000, help="events per second")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--subscribers", type=int, default=4, help="per node")
    args = parser.parse_args()

    redis_port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--save", "", "--appendonly", "no"],
                             stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    redis_url = f"redis://127.0.0.1:{redis_port}"
    prefix = f"bench{random.randrange(1 << 30)}"
    port_a, port_b = free_port(), free_port()
    a = start_node(args.pushtop, port_a, redis_url, "a", prefix)
    b = start_node(args.pushtop, port_b, redis_url, "b", prefix)
    try:
        same = [Subscriber(port_a, "bench") for _ in range(args.subscribers)]
        cross = [Subscriber(port_b, "bench") for _ in range(args.subscribers)]
        for s in same + cross:
            s.start()
        client = pusher.Pusher(app_id="1", key="pushtop-key", secret="pushtop-secret", host="127.0.0.1",
                               port=port_a, ssl=False)
        total = int(args.rate * args.seconds)
        cpu_before = {name: cpu_seconds(p.pid) for name, p in (("node A", a), ("node B", b), ("redis", redis))}
        start = time.time()
        for batch_start in range(0, total, 10):
            due = start + batch_start / args.rate
            delay = due - time.time()
            if delay > 0:
                time.sleep(delay)
            now = time.time()
            client.trigger_batch([{"channel": "bench", "name": "tick",
                                   "data": json.dumps({"seq": seq, "t": now})}
                                  for seq in range(batch_start, min(total, batch_start + 10))])
        elapsed = time.time() - start
        client.trigger("bench", "tick", json.dumps({"seq": -1, "t": time.time()}))
        for s in same + cross:
            s.join(timeout=30)
        cpu = {name: cpu_seconds(p.pid) - cpu_before[name] for name, p in (("node A", a), ("node B", b), ("redis", redis))}
        print(f"{total} events in {elapsed:.1f} s ({total / elapsed:.0f}/s), {args.subscribers} subscribers per node")
        for label, group in (("same node (A)", same), ("across Redis (B)", cross)):
            latencies = [l for s in group for l in s.latencies]
            ok = all(s.seqs == list(range(total)) for s in group)
            print(f"  {label}: p50 {percentile(latencies, 0.5):.2f} ms, p99 {percentile(latencies, 0.99):.2f} ms, "
                  f"max {max(latencies):.2f} ms; every subscriber got all {total} once, in order: {ok}")
        for name, seconds in cpu.items():
            print(f"  CPU {name}: {seconds:.2f} s = {seconds / total * 1e6:.1f} µs per event")
    finally:
        for p in (a, b):
            p.terminate()
            p.wait()
        redis.kill()


if __name__ == "__main__":
    main()
