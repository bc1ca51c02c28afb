#!/usr/bin/env python3
"""cluster-audit: proves a `pushtop serve --redis` cluster correct from outside (issue 17).

Starts a redis-server and N nodes (the real binary; each reaches Redis through its own proxy), a round-robin TCP
balancer in front of them, M presence-channel clients connected through the balancer (reconnecting when their node
dies, each connection a new member), and publishers of sequence-numbered events through random nodes' HTTP API.
Meanwhile it SIGKILLs and restarts nodes and partitions nodes from Redis, in turn. Then it audits:

  - events: 0 lost and 0 duplicated for every connection subscribed before an event and connected after it (events
    that a fault could have touched, on the publishing or the receiving node, are not counted as required), order
    per publisher through one node kept;
  - presence: at each quiet moment (before each fault and at the end) every connection's roster is exactly the
    members connected (no ghost, none missing); after each SIGKILL, member_removed within 1.25x the node timeout;
  - the HTTP API of every node at the end (users, user_count, subscription_count, the channel list) and /health.

Prints a summary and exits 1 on any violation (2 when the cluster could not be set up).

    scripts/cluster-audit --seconds 60                  # the CI run
    scripts/cluster-audit --seconds 3600 --clients 60   # the long run
"""
import argparse
from collections import Counter
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from audit import Faults, Report, audit_deliveries, audit_kill_removals, audit_quiet_point  # noqa: E402
from clients import Client, Publisher, api_client, KEY  # noqa: E402
from cluster import Cluster, wait_for  # noqa: E402
from proxy import ProxyLoop  # noqa: E402


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def parse():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.environ.get("PUSHTOP_BIN", ".build/release/pushtop"),
                        help="the pushtop binary (default: .build/release/pushtop, or $PUSHTOP_BIN)")
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--clients", type=int, default=24, help="presence-channel clients (through the balancer)")
    parser.add_argument("--channels", type=int, default=3, help="presence channels the clients are spread over")
    parser.add_argument("--publishers", type=int, default=2)
    parser.add_argument("--rate", type=float, default=40, help="events per second, all publishers together")
    parser.add_argument("--seconds", type=float, default=60, help="how long events are published and faults made")
    parser.add_argument("--node-timeout", type=float, default=4, help="the nodes' --node-timeout (seconds)")
    parser.add_argument("--down-seconds", type=float, default=1, help="how long a killed node stays dead")
    parser.add_argument("--partition-mode", choices=["cut", "drop", "both"], default="both",
                        help="cut: reset the node's Redis connections and refuse new ones; drop: silently drop "
                             "bytes; both: alternate")
    parser.add_argument("--faults", choices=["all", "kill", "partition", "none"], default="all")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep-logs", action="store_true", help="keep the nodes' logs even when the audit passes")
    return parser.parse_args()


class Run:
    def __init__(self, args):
        self.args = args
        self.faults = Faults()
        self.quiet_points = []
        self.bound = 1.25 * args.node_timeout + 2
        self.gap = 1.25 * args.node_timeout + 3

    def make_fault(self, number):
        """One fault on the next node in turn: a SIGKILL (and restart), or a partition from Redis (alternately
        shorter and longer than the node timeout). Returns when the node serves with Redis again."""
        args, cluster = self.args, self.cluster
        count = len(cluster.nodes)
        node = cluster.nodes[number % count]
        kinds = {"all": ["kill", "partition"], "kill": ["kill"], "partition": ["partition"]}[args.faults]
        # Every node gets every kind of fault in turn (with an even node count, the pattern shifts each round).
        kind = kinds[(number + (number // count if count % 2 == 0 else 0)) % len(kinds)]
        nth = sum(1 for f in self.faults.log if f[0] == kind)
        start = time.time()
        if kind == "kill":
            # Alternately back soon (the restarted node clears its old registration itself) and dead for longer
            # than the node timeout (the survivors must find it gone and remove its members).
            down = args.down_seconds if nth % 2 == 0 else 1.5 * args.node_timeout
            node.kill()
            log(f"SIGKILL node {node.index} (down {down:.1f} s)")
            time.sleep(down)
            node.start()
            ready = node.wait_ready()
            log(f"node {node.index} restarted, ready after {ready - start:.1f} s")
            self.faults.add(node.index, start, ready + 1, "kill", f"down {down:.1f} s")
        else:
            modes = ["cut", "drop"] if args.partition_mode == "both" else [args.partition_mode]
            mode = modes[nth % len(modes)]
            length = args.node_timeout * (0.5 if (nth // 2) % 2 == 0 else 1.5)
            node.redis_proxy.partition(mode)
            log(f"partition node {node.index} from Redis ({mode}, {length:.1f} s)")
            saw_down = wait_for(lambda: (node.health() or {}).get("redis") in ("down", "reconnecting"), length)
            health = node.health()
            served = health is not None and health.get("status") in ("ok", "degraded")
            remaining = start + length - time.time()
            if remaining > 0:
                time.sleep(remaining)
            node.redis_proxy.heal()
            ready = node.wait_ready(timeout=60)
            log(f"healed node {node.index}: Redis up again after {ready - start - length:.1f} s"
                f"{'' if saw_down else ' (health never said down)'}")
            if not served:
                self.report.violation("health", f"node {node.index} did not answer /health 200 while cut from Redis")
            if not saw_down and mode == "cut":
                self.report.violation("health", f"node {node.index}: /health never reported Redis down during "
                                                f"a {length:.1f} s partition")
            self.faults.add(node.index, start - 0.5, ready + 2, "partition", f"{mode} {length:.1f} s")
        return time.time()

    def execute(self):
        args = self.args
        if args.seed is not None:
            random.seed(args.seed)
        self.report = Report()
        self.workdir = tempfile.mkdtemp(prefix="cluster-audit-")
        loop = ProxyLoop()
        log(f"starting redis-server and {args.nodes} nodes ({args.bin}); logs in {self.workdir}")
        self.cluster = cluster = Cluster(loop, args.bin, args.nodes, args.node_timeout, self.workdir)
        auth = api_client(cluster.nodes[0].port)
        channels = [f"presence-audit-{i}" for i in range(args.channels)]
        client_stop, publish_stop = threading.Event(), threading.Event()
        clients = [Client(i, cluster.balancer, channels[i % len(channels)], auth, client_stop)
                   for i in range(args.clients)]
        for client in clients:
            client.start()
        if not wait_for(lambda: sum(1 for c in clients if c.current_session_open()) == len(clients), 30):
            raise RuntimeError("not every client could subscribe within 30 s")
        log(f"{len(clients)} clients subscribed through the balancer")
        publishers = [Publisher(i, cluster.nodes, channels, args.rate / args.publishers, publish_stop)
                      for i in range(args.publishers)]
        started = time.time()
        for publisher in publishers:
            publisher.start()
        time.sleep(min(3, args.seconds / 10))
        number = 0
        last_fault_end = time.time()
        if args.faults != "none":
            while time.time() + self.gap + 2 * args.node_timeout + 5 < started + args.seconds:
                self.quiet_points.append((time.time() - 0.2, f"before fault {number + 1}"))
                last_fault_end = self.make_fault(number)
                number += 1
                time.sleep(self.gap)
        remaining = started + args.seconds - time.time()
        if remaining > 0:
            time.sleep(remaining)
        publish_stop.set()
        for publisher in publishers:
            publisher.join()
        settle = last_fault_end + self.gap - time.time()
        if settle > 0:
            time.sleep(settle)
        self.drain(clients)
        end = time.time()
        self.quiet_points.append((end, "at the end"))
        self.api_check(channels, clients)
        for node in cluster.nodes:
            health = node.health() or {}
            if health.get("status") != "ok" or health.get("redis") != "up":
                self.report.violation("health", f"node {node.index} at the end: {health}")
        time.sleep(1.5)  # the end's quiet point needs the connections open a little after it
        client_stop.set()
        for client in clients:
            client.join(5)
        sessions = [s for c in clients for s in c.sessions]
        events = [e for p in publishers for e in p.events]
        audit_deliveries(sessions, events, self.faults, self.report)
        for at, label in self.quiet_points:
            audit_quiet_point(sessions, at, self.report, label)
        delays = audit_kill_removals(sessions, self.faults, self.bound, self.report)
        self.summary(clients, sessions, events, delays, end - started)
        failed = any(self.report.violations.values())
        if not failed and not args.keep_logs:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return 1 if failed else 0

    def drain(self, clients):
        """Publishes a marker through every node and waits until every connected client has all of them: what
        was published before has then arrived."""
        ids = []
        for node in self.cluster.nodes:
            marker = f"end-{node.index}"
            api_client(node.port).trigger(sorted({c.channel for c in clients}), "marker", {"id": marker})
            ids.append(marker)
        open_sessions = lambda: [c.current for c in clients if c.current_session_open()]  # noqa: E731
        if not wait_for(lambda: all(set(ids) <= s.markers for s in open_sessions()), 20):
            for session in open_sessions():
                if not set(ids) <= session.markers:
                    self.report.violation("lost", f"{session.user_id} (node {session.node}) got markers "
                                                  f"{sorted(session.markers)} of {ids}")

    def api_check(self, channels, clients):
        """Every node's HTTP API agrees with the connections open now (polled until it does, for 10 s)."""
        def problems():
            found = []
            open_sessions = [c.current for c in clients if c.current_session_open()]
            for node in self.cluster.nodes:
                api = api_client(node.port)
                try:
                    listed = api.channels_info(prefix_filter="presence-audit-", attributes=["user_count"])["channels"]
                except Exception as error:  # noqa: BLE001
                    found.append(f"node {node.index}: GET /channels failed: {error}")
                    continue
                for channel in channels:
                    expected = {s.user_id for s in open_sessions if s.channel == channel}
                    try:
                        users = {u["id"] for u in api.users_info(channel)["users"]}
                        info = api.channel_info(channel, ["user_count", "subscription_count"])
                    except Exception as error:  # noqa: BLE001
                        found.append(f"node {node.index}: {channel}: {error}")
                        continue
                    if users != expected:
                        found.append(f"node {node.index}: users of {channel}: ghosts {sorted(users - expected)}, "
                                     f"missing {sorted(expected - users)}")
                    if info.get("user_count") != len(expected):
                        found.append(f"node {node.index}: {channel} user_count {info.get('user_count')}, "
                                     f"expected {len(expected)}")
                    if "subscription_count" in info and info["subscription_count"] != len(expected):
                        found.append(f"node {node.index}: {channel} subscription_count "
                                     f"{info['subscription_count']}, expected {len(expected)}")
                    listed_count = (listed.get(channel) or {}).get("user_count")
                    if expected and listed_count != len(expected):
                        found.append(f"node {node.index}: GET /channels: {channel} user_count {listed_count}, "
                                     f"expected {len(expected)}")
                extra = set(listed) - {c for c in channels if any(s.channel == c for s in open_sessions)}
                if extra:
                    found.append(f"node {node.index}: GET /channels lists vacant channels {sorted(extra)}")
            return found
        found = problems()
        deadline = time.monotonic() + 10
        while found and time.monotonic() < deadline:
            time.sleep(0.5)
            found = problems()
        for problem in found:
            self.report.violation("HTTP API", problem)
        self.report.figures["api checks"] = len(self.cluster.nodes) * len(channels)

    def summary(self, clients, sessions, events, delays, duration):
        args, figures, report = self.args, self.report.figures, self.report
        kills = [f"{n} × {kind}" for kind, n in sorted(Counter(f[4] for f in self.faults.log if f[0] == "kill").items())]
        partitions = [f"{n} × {kind}" for kind, n in
                      sorted(Counter(f[4] for f in self.faults.log if f[0] == "partition").items())]
        ok = sum(1 for e in events if e.ok)
        print()
        print(f"cluster-audit: {args.nodes} nodes (node timeout {args.node_timeout:g} s), {args.clients} clients in "
              f"{args.channels} presence channels, {args.publishers} publishers at {args.rate:g} events/s, "
              f"{duration:.0f} s")
        kill_count = sum(1 for f in self.faults.log if f[0] == "kill")
        partition_count = sum(1 for f in self.faults.log if f[0] == "partition")
        print(f"  faults:      {kill_count} SIGKILL + restart{' (' + ', '.join(kills) + ')' if kills else ''}, "
              f"{partition_count} Redis partitions{' (' + ', '.join(partitions) + ')' if partitions else ''}")
        print(f"  connections: {len(sessions)} subscribed sessions ({len(sessions) - args.clients} reconnections), "
              f"{sum(c.connect_failures for c in clients)} attempts that did not subscribe")
        print(f"  events:      {len(events)} published, {ok} acknowledged, {len(events) - ok} refused or failed "
              f"(node down)")
        print(f"  deliveries:  {figures['required']} required, {figures['received']} received: lost "
              f"{report.count('lost')}, duplicated {figures['duplicated']}, "
              f"out of order {figures['disorder']} (per publisher through one node); "
              f"{figures['crossed']} arrived before an earlier event of the same publisher sent through another node")
        removal = f"max {max(delays):.1f} s, median {sorted(delays)[len(delays) // 2]:.1f} s" if delays else "none observed"
        print(f"  presence:    {figures.get('rosters checked', 0)} rosters checked at {len(self.quiet_points)} quiet "
              f"points: ghosts {report.count('ghost')}, missing members {report.count('missing member')}; "
              f"killed connections' member_removed: {len(delays)}, {removal} (bound {self.bound:.1f} s)")
        print(f"  HTTP API:    {figures.get('api checks', 0)} channel checks across nodes: "
              f"{report.count('HTTP API')} wrong; health: {report.count('health')} wrong")
        failed = [kind for kind, items in report.violations.items() if items]
        for kind in failed:
            items = report.violations[kind]
            print(f"  {kind}: {len(items)}")
            for item in items[:5]:
                print(f"    - {item}")
        print(f"RESULT: {'FAIL (' + ', '.join(failed) + ')' if failed else 'PASS'}"
              f"{'; node logs in ' + self.workdir if failed or args.keep_logs else ''}")


def main():
    args = parse()
    if not os.path.exists(args.bin):
        print(f"cluster-audit: no pushtop binary at {args.bin} (build it, or pass --bin)", file=sys.stderr)
        return 2
    if shutil.which("redis-server") is None:
        print("cluster-audit: redis-server is not installed (scripts/install-deps)", file=sys.stderr)
        return 2
    run = Run(args)
    try:
        return run.execute()
    except RuntimeError as error:
        print(f"cluster-audit: {error}", file=sys.stderr)
        return 2
    finally:
        if getattr(run, "cluster", None):
            try:
                run.cluster.stop()
            except Exception:  # noqa: BLE001
                pass


if __name__ == "__main__":
    sys.exit(main())
