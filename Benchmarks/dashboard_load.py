#!/usr/bin/env python3
"""The dashboard under a firehose: CPU per event and key response.

Starts `pushtop serve`, opens the real dashboard on channel `bench` in a detached tmux session (140x42), publishes
RATE events/s for SECONDS with `pushtop bench` (one subscriber of its own), and meanwhile presses `p` (pause) a few
times, timing each press to the changed screen by polling `tmux capture-pane`. Prints the dashboard process's CPU
(utime+stime from /proc) per event delivered and as a share of one core at RATE, its RSS, and the key responses.

    python3 Benchmarks/dashboard_load.py --bin .build/release/pushtop --rate 5000 --seconds 10
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Tmux:
    def __init__(self, name):
        self.name = name

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True, check=check)

    def capture(self):
        return self.run("capture-pane", "-p", check=False).stdout

    def wait_for(self, text, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.capture():
                return True
            time.sleep(0.05)
        return False


def press_keys(tmux, presses, results, stop):
    """Presses `p` `presses` times; each time waits for PAUSED to appear or go."""
    for _ in range(presses):
        if stop.is_set():
            return
        paused_before = "PAUSED" in tmux.capture()
        started = time.monotonic()
        tmux.run("send-keys", "p")
        while ("PAUSED" in tmux.capture()) == paused_before:
            if time.monotonic() - started > 2:
                break
            time.sleep(0.001)
        results.append((time.monotonic() - started) * 1000)
        time.sleep(0.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release/pushtop")
    parser.add_argument("--rate", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--keys", type=int, default=10, help="key presses to time (0: none)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    port = free_port()
    tmux = Tmux(f"pushtop-dashload-{os.getpid()}")
    server = subprocess.Popen([args.bin, "serve", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("dashboard_load: pushtop serve did not start")
                time.sleep(0.05)
        command = f"exec {args.bin} --key pushtop-key --host 127.0.0.1 --port {port} --no-tls bench"
        tmux.run("new-session", "-d", "-x", "140", "-y", "42", command)
        if not tmux.wait_for("subscribed"):
            sys.exit("dashboard_load: the dashboard did not subscribe:\n" + tmux.capture())
        pid = int(tmux.run("list-panes", "-F", "#{pane_pid}").stdout.split()[0])
        keys, stop = [], threading.Event()
        presser = threading.Thread(target=lambda: (time.sleep(min(2, args.seconds / 3)),
                                                   press_keys(tmux, args.keys, keys, stop)))
        before, wall = cpu_ticks(pid), time.monotonic()
        presser.start()
        bench = subprocess.run(
            [args.bin, "bench", "--key", "pushtop-key", "--secret", "pushtop-secret", "--app-id", "1",
             "--host", "127.0.0.1", "--port", str(port), "--no-tls", "--rate", str(args.rate),
             "--duration", str(args.seconds), "--subscribers", "1", "--channel", "bench", "--json"],
            capture_output=True, text=True, check=True)
        # The dashboard may still be drawing the tail of the stream: let it settle for one frame or two.
        time.sleep(0.2)
        stop.set()
        presser.join()
        ticks, elapsed = cpu_ticks(pid) - before, time.monotonic() - wall
        result = json.loads(bench.stdout.strip().splitlines()[-1])
        events = result["published"]
        per_event_us = ticks / TICKS / max(1, events) * 1e6
        report = {
            "rate_asked": args.rate,
            "rate_published": round(events / args.seconds if result.get("throughput_per_s") is None
                                    else result["throughput_per_s"]),
            "events": events,
            "dashboard_cpu_s": ticks / TICKS,
            "cpu_per_event_us": round(per_event_us, 2),
            "core_share_at_rate_pct": round(per_event_us * args.rate / 1e4, 1),
            "core_share_measured_pct": round(ticks / TICKS / elapsed * 100, 1),
            "rss_kb": rss_kb(pid),
            "key_response_ms": [round(k) for k in keys],
            "load_average": open("/proc/loadavg").read().split()[0],
        }
        if args.json:
            print(json.dumps(report))
        else:
            print(f"dashboard at {args.rate}/s asked ({report['rate_published']}/s published), {events} events: "
                  f"{per_event_us:.1f} µs CPU per event = {report['core_share_at_rate_pct']} % of one core at "
                  f"{args.rate}/s ({report['core_share_measured_pct']} % over the run); RSS {report['rss_kb']} kB")
            if keys:
                print(f"key response (p → screen, tmux polling included): median {statistics.median(keys):.0f} ms, "
                      f"max {max(keys):.0f} ms: " + " ".join(f"{k:.0f}" for k in keys))
            print(f"load average {report['load_average']}")
    finally:
        tmux.run("kill-server", check=False)
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
