"""`pushtop conform --client` judging clients through its proxy, with `pushtop serve` upstream.

Each client case is shown able to fail: a scripted client broken in exactly one way (scripted_client.py --break)
fails the case for that rule, and the same client unbroken passes every case. Then real clients get their true
verdicts: pysher, `pushtop watch`, and pusher-js's Node build (when PUSHER_JS is set).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import APP_ID, BIN, KEY, SECRET, ServeProcess, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTED = os.path.join(HERE, "scripted_client.py")
PUSHER_JS = os.environ.get("PUSHER_JS")


@pytest.fixture(scope="module")
def upstream():
    server = ServeProcess()
    yield server
    server.stop()


class Judge:
    """`pushtop conform --client` on a free port in front of `upstream`, its verdicts read from --format json."""

    def __init__(self, upstream, *extra, time_limit=240):
        self.proc = subprocess.Popen(
            [BIN, "conform", "--client", "--listen", "127.0.0.1:0", "--upstream",
             f"ws://{upstream.host}:{upstream.port}", "--app-id", APP_ID, "--key", KEY, "--secret", SECRET,
             "--activity-timeout", "2", "--time-limit", str(time_limit), "--format", "json", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err = []
        threading.Thread(target=lambda: [self.err.append(l) for l in self.proc.stderr], daemon=True).start()
        line = wait_for(lambda: next((l for l in self.err if "point the client at" in l), None), timeout=20,
                        what="the judge's listening line")
        self.port = int(re.search(r"ws://127\.0\.0\.1:(\d+)", line).group(1))

    def report(self, timeout=300):
        out, _ = self.proc.communicate(timeout=timeout)
        return json.loads(out)


def verdicts(report):
    return {c["id"]: c["result"] for c in report["cases"]}


def scripted(port, broken=None):
    args = [sys.executable, SCRIPTED, "127.0.0.1", str(port), KEY, SECRET, "--pong-timeout", "3"]
    # Each client in channels of its own: clients judged side by side must not keep one another's connections busy.
    args.append(f"--suffix=-{broken or 'ok'}")
    return subprocess.Popen(args + (["--break", broken] if broken else []), stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)


def judged(upstream, client_factory, *extra, time_limit=240, pong_timeout=5):
    """A judge's report on the client `client_factory` starts; `pong_timeout`: what the client allows itself."""
    judge = Judge(upstream, "--pong-timeout", str(pong_timeout), *extra, time_limit=time_limit)
    client = client_factory(judge.port)
    try:
        return judge.report(timeout=time_limit + 30)
    finally:
        client.kill()
        client.wait(10)


def test_the_scripted_client_passes_every_case(upstream):
    report = judged(upstream, scripted)
    assert verdicts(report) == {c: "pass" for c in verdicts(report)}, json.dumps(report, indent=1)
    assert report["kind"] == "client" and len(report["cases"]) == 15
    assert any("client=scripted" in target for target in report["clients"])


BROKEN = [
    ("no-pong", "client.ping.answers-server-ping"),
    ("no-activity-ping", "client.ping.pings-after-activity-timeout"),
    ("ignores-stall", "client.ping.notices-stalled-connection"),
    ("slow-reconnect-4200", "client.reconnect.at-once-after-4200"),
    ("forgets-channels", "client.reconnect.resubscribes-after-4200"),
    ("stale-auth", "client.reconnect.reauthorizes-after-4200"),
    ("no-signin-again", "client.reconnect.signs-in-again-after-4200"),
    ("closes-on-refusal", "client.subscription.survives-refusal"),
    ("no-backoff-4100", "client.reconnect.backs-off-after-4100"),
    ("no-reconnect-after-drop", "client.reconnect.after-dropped-connection"),
    ("storm", "client.reconnect.no-storm-during-outage"),
    ("reconnects-after-4009", "client.reconnect.not-unchanged-after-4009"),
    ("malformed", "client.messages.well-formed"),
    ("public-client-event", "client.events.private-or-presence-only"),
    ("client-event-flood", "client.events.at-most-10-per-second"),
]


def test_a_client_that_breaks_a_rule_fails_exactly_its_case(upstream):
    """Each broken variant through the whole catalogue, all at once (each judge is its own proxy and process): it fails
    its own case and no other (a case it keeps from being judged says not observed)."""

    def run(pair):
        broken, case = pair
        report = judged(upstream, lambda port: scripted(port, broken), time_limit=200)
        return broken, case, report

    with ThreadPoolExecutor(max_workers=len(BROKEN)) as pool:
        results = list(pool.map(run, BROKEN))
    wrong = {}
    for broken, case, report in results:
        failed = [c for c in report["cases"] if c["result"] == "fail"]
        if [c["id"] for c in failed] != [case] or not (failed[0]["expected"] and failed[0]["got"]
                                                       and failed[0]["evidence"]):
            wrong[broken] = {c["id"]: [c["result"], c.get("got") or c.get("message")] for c in report["cases"]
                             if c["result"] != "pass"}
    assert not wrong, json.dumps(wrong, indent=1)


def test_the_catalogue_lists_every_case_with_its_level_and_source():
    out = subprocess.run([BIN, "conform", "--client", "--list", "--format", "json"], capture_output=True,
                         text=True, check=True).stdout
    cases = json.loads(out)
    assert {c["id"] for c in cases} == {case for _, case in BROKEN}
    assert all(c["level"] in ("must", "should") and c["url"].startswith("https://pusher.com/") for c in cases)


def test_a_client_that_never_comes_reports_not_observed_and_exits_0(upstream):
    judge = Judge(upstream, "--case", "client.ping", time_limit=10)
    report = judge.report(timeout=40)
    assert judge.proc.returncode == 0
    assert set(verdicts(report).values()) == {"not_observed"}
    assert "no client connected" in report["cases"][0]["message"]


def pysher_client(port):
    code = f"""
import sys, time, pysher
client = pysher.Pusher({KEY!r}, secret={SECRET!r}, custom_host="127.0.0.1", port={port}, secure=False)
client.connection.bind("pusher:connection_established", lambda _: (client.subscribe("news"),
                       client.subscribe("private-room")))
client.connect()
sys.stdin.read()
"""
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def watch_client(port):
    return subprocess.Popen(
        [BIN, "watch", "--host", "127.0.0.1", "--port", str(port), "--no-tls", "--key", KEY, "--secret", SECRET,
         "--pong-timeout", "5", "news", "private-room", "presence-room"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def test_pushtop_watch_passes_every_case_it_can_be_judged_on(upstream):
    report = judged(upstream, watch_client)
    results = verdicts(report)
    failed = {c["id"]: c["got"] for c in report["cases"] if c["result"] == "fail"}
    assert not failed, json.dumps(failed, indent=1)
    assert results["client.reconnect.reauthorizes-after-4200"] == "pass"
    assert results["client.events.private-or-presence-only"] == "not_observed"


def test_pysher_gets_its_true_verdicts(upstream):
    report = judged(upstream, pysher_client, pong_timeout=30)
    results = verdicts(report)
    print(json.dumps({c["id"]: [c["result"], c["message"]] for c in report["cases"]}, indent=1))
    # pysher 1.0.8 departs from the protocol in four places, each its true verdict: it pings every 120 s whatever
    # activity_timeout the server announces, so it neither pings after the announced silence nor notices a stalled
    # connection within activity_timeout + 30 s; and it reads close codes only from pusher:error messages, not from
    # the WebSocket close frame, so after a close with 4200 it waits its reconnect_interval (10 s) and after a close
    # with 4009 it comes back unchanged after the same 10 s.
    failed = {k for k, v in results.items() if v == "fail"}
    assert failed == {"client.ping.pings-after-activity-timeout", "client.ping.notices-stalled-connection",
                      "client.reconnect.at-once-after-4200", "client.reconnect.not-unchanged-after-4009"}, \
        json.dumps(report, indent=1)
    at_once = next(c for c in report["cases"] if c["id"] == "client.reconnect.at-once-after-4200")
    assert "reconnected after 10." in at_once["got"]
    came_back = next(c for c in report["cases"] if c["id"] == "client.reconnect.not-unchanged-after-4009")
    assert "reconnected unchanged 10." in came_back["got"]
    assert results["client.reconnect.resubscribes-after-4200"] == "pass"
    assert results["client.reconnect.backs-off-after-4100"] == "pass"


@pytest.mark.skipif(not PUSHER_JS or not shutil.which("node"),
                    reason="set PUSHER_JS to pusher-js's dist/node/pusher.js (and have node)")
def test_pusherjs_passes_every_case_it_can_be_judged_on(upstream):
    app = os.path.join(HERE, "pusherjs_app.js")
    factory = lambda port: subprocess.Popen(
        ["node", app, os.path.abspath(PUSHER_JS), "127.0.0.1", str(port), KEY, "alice", ""],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    report = judged(upstream, factory, pong_timeout=30)
    failed = {c["id"]: c["got"] for c in report["cases"] if c["result"] == "fail"}
    assert not failed, json.dumps(failed, indent=1)


def test_each_verdict_is_a_row_of_the_proxys_console_feed_as_it_lands(upstream):
    judge = Judge(upstream, "--case", "client.ping.answers-server-ping", "--pong-timeout", "5", time_limit=60)
    console = subprocess.Popen(
        [BIN, "console", "--node", f"127.0.0.1:{judge.port}", "--app-id", APP_ID, "--key", KEY, "--secret", SECRET,
         "--type", "verdict"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rows, states = [], []
    threading.Thread(target=lambda: [rows.append(json.loads(l)) for l in console.stdout], daemon=True).start()
    threading.Thread(target=lambda: [states.append(l) for l in console.stderr], daemon=True).start()
    wait_for(lambda: any(": live" in l for l in states), timeout=20, what=f"the console feed to be live; saw {states}")
    client = scripted(judge.port)
    try:
        wait_for(lambda: rows, timeout=30, what="a verdict row on the console feed")
        report = judge.report(timeout=60)
    finally:
        client.kill()
        console.terminate()
        console.wait(10)
    assert rows[0]["type"] == "verdict" and rows[0]["rule"] == "client.ping.answers-server-ping"
    assert rows[0]["verdict"] == "pass" == report["cases"][0]["result"]


class TinyUpstream:
    """tiny_pusher_server.py: a Pusher server not written with pushtop, as the judge's upstream."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "tiny_pusher_server.py"), KEY, SECRET],
                                     stdout=subprocess.PIPE, text=True)
        self.host, self.port = "127.0.0.1", int(self.proc.stdout.readline().split()[-1])

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def test_the_judge_works_in_front_of_a_server_pushtop_did_not_write():
    upstream = TinyUpstream()
    try:
        report = judged(upstream, scripted, "--case", "client.ping.answers-server-ping", "--case",
                        "client.reconnect.at-once-after-4200", "--case", "client.reconnect.resubscribes-after-4200",
                        "--case", "client.reconnect.reauthorizes-after-4200", "--case",
                        "client.reconnect.signs-in-again-after-4200", "--case", "client.subscription",
                        "--case", "client.messages", "--case", "client.events", time_limit=120)
    finally:
        upstream.stop()
    assert verdicts(report) == {c: "pass" for c in verdicts(report)}, json.dumps(report, indent=1)
    assert len(report["cases"]) == 9
