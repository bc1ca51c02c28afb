#!/usr/bin/env python3
"""Where one wake-up goes (issue 40): CPU, context switches, system calls and allocations per event of `pushtop
watch` at one event per frame, or per request of `pushtop serve`'s HTTP API under wrk, over one measured window.

    cc -O2 -shared -fPIC -o /tmp/malloc_count.so Benchmarks/malloc_count.c -lpthread
    python3 Benchmarks/wakeup_costs.py watch --bin .build/release/pushtop --rate 1000 --seconds 8
    python3 Benchmarks/wakeup_costs.py http --bin .build/release/pushtop --connections 32 --seconds 8
    ... --strace        the same window under `strace -c -f` instead (system calls by name; slows the process)
    ... --perf FILE     `perf record -F 4999 -g` of the process over the window (read with `perf report -i FILE`)

`watch` is measured beside the floor (Benchmarks/floor_consumer.c: one read and one write per message) on the
same stream, published by `pushtop bench --subscribers 0` (one event per HTTP request, so per WebSocket frame).
CPU is user and system time from /proc/PID/stat (10 ms ticks); context switches are every thread's voluntary and
involuntary switches (/proc/PID/task/*/status), and `involuntary_switches` the preemptions among them; system calls come from `perf stat -e raw_syscalls:sys_enter`;
allocations from the preloaded counter (Benchmarks/malloc_count.c: malloc, calloc, realloc and aligned
allocations of every thread), when --preload names it.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLK = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK, int(fields[12]) / CLK


def switches(pid):
    """Every thread's context switches: (all, involuntary). Involuntary ones are preemptions, not sleeps."""
    total = involuntary = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(status) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
                    if line.startswith("nonvoluntary_ctxt_switches"):
                        involuntary += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total, involuntary


def mallocs(path):
    try:
        with open(path) as f:
            return int(f.read().split()[1])
    except (FileNotFoundError, IndexError, ValueError):
        return None


class Probe:
    """Counters of one process over the window."""

    def __init__(self, name, pid, malloc_file, args):
        self.name, self.pid, self.malloc_file, self.args = name, pid, malloc_file, args
        self.perf = self.strace = self.record = None

    def start(self):
        if self.args.strace:
            self.strace_out = tempfile.mktemp(prefix="strace-")
            self.strace = subprocess.Popen(["strace", "-c", "-f", "-p", str(self.pid), "-o", self.strace_out],
                                           stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        else:
            self.perf_out = tempfile.mktemp(prefix="perfstat-")
            self.perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p", str(self.pid),
                                          "-o", self.perf_out], stderr=subprocess.DEVNULL)
        if self.args.perf and self.name != "floor":
            self.record = subprocess.Popen(["perf", "record", "-F", "4999", "-g", "-p", str(self.pid), "-o",
                                            self.args.perf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.2)
        self.cpu0, self.cs0, self.m0 = cpu(self.pid), switches(self.pid), mallocs(self.malloc_file)

    def stop(self):
        self.cpu1, self.cs1 = cpu(self.pid), switches(self.pid)
        time.sleep(0.12)  # the counter file is written every 50 ms
        self.m1 = mallocs(self.malloc_file)
        for p in (self.perf, self.record, self.strace):
            if p:
                p.send_signal(2)
                p.wait(30)

    def row(self, n):
        user, system = self.cpu1[0] - self.cpu0[0], self.cpu1[1] - self.cpu0[1]
        row = {"name": self.name, "count": n, "cpu_us": round((user + system) / n * 1e6, 2),
               "user_us": round(user / n * 1e6, 2), "sys_us": round(system / n * 1e6, 2),
               "context_switches": round((self.cs1[0] - self.cs0[0]) / n, 3),
               "involuntary_switches": round((self.cs1[1] - self.cs0[1]) / n, 3)}
        if self.m0 is not None and self.m1 is not None:
            row["mallocs"] = round((self.m1 - self.m0) / n, 2)
        if self.perf:
            with open(self.perf_out) as f:
                for line in f:
                    parts = line.strip().split(",")
                    if len(parts) > 2 and parts[2] == "raw_syscalls:sys_enter" and parts[0].isdigit():
                        row["syscalls"] = round(int(parts[0]) / n, 3)
        if self.strace:
            calls = {}
            with open(self.strace_out) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] not in ("total",):
                        calls[parts[-1]] = round(int(parts[3]) / n, 3)
            row["syscalls_by_name"] = dict(sorted(calls.items(), key=lambda kv: -kv[1]))
        return row


def start_serve(binary, env=None):
    server = subprocess.Popen([binary, "serve", "--port", "0", "--log-level", "error"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    port = int(server.stdout.readline().split("ws://127.0.0.1:")[1].split("/")[0])
    threading.Thread(target=lambda: server.stdout.read(), daemon=True).start()
    return server, port


class Lines:
    """Counts a process's output lines that contain `marker`; `ready` once a line contains `ready_marker`."""

    def __init__(self, argv, marker, ready_marker, env=None):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.count, self.marker, self.ready_marker = 0, marker.encode(), ready_marker.encode()
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(15):
            raise SystemExit(f"{argv[0]} did not subscribe")

    def _read(self):
        for line in self.proc.stdout:
            if self.marker in line:
                self.count += 1
            elif self.ready_marker in line:
                self.ready.set()


def watch(args, preload_env):
    work = tempfile.mkdtemp(prefix="wakeup-")
    floor_bin = os.path.join(work, "floor_consumer")
    subprocess.run(["cc", "-O2", "-o", floor_bin, os.path.join(HERE, "floor_consumer.c")], check=True)
    server, port = start_serve(args.bin)
    channel = "wakeup"
    malloc_file = os.path.join(work, "watch.mallocs")
    env = dict(os.environ, **preload_env(malloc_file))
    try:
        consumer = Lines([args.bin, "watch", "--key", "pushtop-key", "--host", "127.0.0.1", "--port", str(port),
                          "--no-tls", channel], '"type":"event"', '"type":"subscribed"', env=env)
        floor = Lines([floor_bin, "127.0.0.1", str(port), "pushtop-key", channel], '"event":"bench"',
                      "subscription_succeeded")
        probes = [Probe("pushtop watch", consumer.proc.pid, malloc_file, args), Probe("floor", floor.proc.pid, "",
                                                                                   args)]
        for p in probes:
            p.start()
        c0, f0 = consumer.count, floor.count
        subprocess.run([args.bin, "bench", "--key", "pushtop-key", "--secret", "pushtop-secret", "--app-id", "1",
                        "--host", "127.0.0.1", "--port", str(port), "--no-tls", "--rate", str(args.rate),
                        "--duration", str(args.seconds), "--subscribers", "0", "--channel", channel,
                        "--payload-bytes", "40", "--json"], check=True, capture_output=True)
        time.sleep(0.5)
        for p in probes:
            p.stop()
        rows = [probes[0].row(max(1, consumer.count - c0)), probes[1].row(max(1, floor.count - f0))]
        consumer.proc.terminate()
        floor.proc.terminate()
        return rows
    finally:
        server.terminate()
        server.wait(10)


def http(args, preload_env):
    work = tempfile.mkdtemp(prefix="wakeup-")
    malloc_file = os.path.join(work, "serve.mallocs")
    server, port = start_serve(args.bin, env=dict(os.environ, **preload_env(malloc_file)))
    try:
        body = '{"name":"bench","channels":["bench"],"data":"{\\"price\\":101.25,\\"sym\\":\\"ACME\\"}"}'
        sys.path.insert(0, HERE)
        import hashlib, hmac
        params = {"auth_key": "pushtop-key", "auth_timestamp": str(int(time.time())), "auth_version": "1.0",
                  "body_md5": hashlib.md5(body.encode()).hexdigest()}
        query = "&".join(f"{k}={params[k]}" for k in sorted(params))
        path = "/apps/1/events"
        signature = hmac.new(b"pushtop-secret", f"POST\n{path}\n{query}".encode(), hashlib.sha256).hexdigest()
        script = os.path.join(work, "events.lua")
        with open(script, "w") as f:
            f.write(f'wrk.method = "POST"\nwrk.body = {json.dumps(body)}\n'
                    f'wrk.headers["Content-Type"] = "application/json"\n'
                    f'request = function() return wrk.format(nil, {json.dumps(path + "?" + query + "&auth_signature=" + signature)}) end\n')
        probe = Probe("pushtop serve", server.pid, malloc_file, args)
        probe.start()
        out = subprocess.run(["wrk", f"-t{min(2, args.connections)}", f"-c{args.connections}",
                              f"-d{args.seconds}s", "-s", script, f"http://127.0.0.1:{port}"],
                             check=True, capture_output=True, text=True).stdout
        probe.stop()
        requests = int(next(line.split()[0] for line in out.splitlines() if "requests in" in line))
        if "Non-2xx" in out:
            raise SystemExit(out)
        row = probe.row(requests)
        row["requests_per_s"] = round(requests / args.seconds)
        return [row]
    finally:
        server.terminate()
        server.wait(10)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["watch", "http"])
    parser.add_argument("--bin", default=".build/release/pushtop")
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--preload", help="the malloc counter, built from Benchmarks/malloc_count.c")
    parser.add_argument("--strace", action="store_true")
    parser.add_argument("--perf", help="perf record's output file")
    args = parser.parse_args()

    def preload_env(path):
        return {"LD_PRELOAD": os.path.abspath(args.preload), "MALLOC_COUNT_FILE": path} if args.preload else {}

    load = open("/proc/loadavg").read().split()[:3]
    rows = watch(args, preload_env) if args.mode == "watch" else http(args, preload_env)
    for row in rows:
        row["load"] = " ".join(load)
        print(json.dumps(row))


if __name__ == "__main__":
    main()
