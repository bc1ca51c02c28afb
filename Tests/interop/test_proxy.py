"""`pushtop proxy` between clients nobody here wrote and `pushtop serve`: the official pusher-js (its Node build),
pysher and the official Python server SDK, directly and through the proxy.

The pusher-js tests need PUSHER_JS (the path of dist/node/pusher.js from its public repository) and node; without
them they are skipped.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import threading

import pusher
import pytest

from conftest import APP_ID, BIN, KEY, SECRET, ServeProcess, wait_for, subscribe

PUSHER_JS = os.environ.get("PUSHER_JS")
needs_pusherjs = pytest.mark.skipif(not PUSHER_JS or not shutil.which("node"),
                                    reason="set PUSHER_JS to pusher-js's dist/node/pusher.js (and have node)")
SESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "proxy_session.js")


class ProxyProcess:
    """`pushtop proxy` in front of a `ServeProcess`, as a child process on a free port."""

    def __init__(self, upstream, *extra):
        self.proc = subprocess.Popen(
            [BIN, "proxy", "--listen", "127.0.0.1:0", "--upstream", f"ws://{upstream.host}:{upstream.port}",
             "--app-id", APP_ID, "--key", KEY, "--secret", SECRET, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.stderr_lines = []
        threading.Thread(target=self._drain, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr_lines), daemon=True).start()
        line = wait_for(lambda: next((l for l in self.lines if "listening on" in l), None), timeout=20,
                        what="pushtop proxy to listen")
        match = re.search(r"listening on ws://([\d.]+):(\d+)", line)
        self.host, self.port = match.group(1), int(match.group(2))

    @staticmethod
    def _drain(stream, sink):
        for line in stream:
            sink.append(line.rstrip("\n"))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(15)
        return self.proc.returncode


@pytest.fixture
def upstream():
    server = ServeProcess()
    yield server
    server.stop()


@pytest.fixture
def proxy(upstream):
    process = ProxyProcess(upstream)
    yield process
    assert process.stop() == 0


def run_session(host, port):
    """The pusher-js session against host:port; every message each client received, in order."""
    sdk = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=host, port=port, ssl=False)
    lines = []
    proc = subprocess.Popen(["node", SESSION, os.path.abspath(PUSHER_JS), host, str(port), KEY],
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    threading.Thread(target=lambda: [lines.append(json.loads(l)) for l in proc.stdout], daemon=True).start()
    wait_for(lambda: any(l.get("ready") for l in lines), timeout=15, what=f"both clients subscribed; saw {lines}")
    sdk.trigger("news", "update", {"text": "caf\u00e9 \U0001F600", "list": list(range(50))})
    sdk.trigger(["news", "private-room"], "multi", "plain string")
    sdk.trigger("news", "done", {})
    wait_for(lambda: any(l.get("finished") for l in lines), timeout=15, what=f"the client event; saw {lines}")
    proc.wait(10)
    # Pings and subscription counts depend on timing (which client subscribed first), not on the relay.
    timing = ("pusher:ping", "pusher:pong", "pusher_internal:subscription_count")
    return [l for l in lines if "event" in l and l["event"] not in timing]


def normalized(messages):
    """Socket ids differ from run to run: each becomes the order in which it first appeared."""
    ids = {}

    def replace(text):
        return re.sub(r"\d+\.\d+", lambda m: ids.setdefault(m.group(0), f"socket-{len(ids) + 1}"), text)

    return [json.loads(replace(json.dumps(m, sort_keys=True))) for m in messages]


@needs_pusherjs
def test_pusherjs_sees_the_same_session_directly_and_through_the_proxy(upstream, proxy):
    direct = run_session(upstream.host, upstream.port)
    relayed = run_session(proxy.host, proxy.port)
    for client in ("a", "b"):
        mine = lambda run: normalized([m for m in run if m["client"] == client])
        assert mine(relayed) == mine(direct)
    # What a sent reached b unchanged, and what the SDK published through the proxy reached both.
    hello = [m for m in relayed if m["event"] == "client-hello"]
    assert hello and hello[0]["data"]["text"] == "h\u00e9llo \u2713" and len(hello[0]["data"]["big"]) == 5000
    assert len([m for m in relayed if m["event"] == "multi"]) == 4


@needs_pusherjs
def test_pusherjs_comes_back_after_a_4200_and_the_report_says_so(upstream):
    relay = ProxyProcess(upstream, "--fault", "close:4200,after=1s,times=1", "--report")
    lines = []
    proc = subprocess.Popen(["node", SESSION, os.path.abspath(PUSHER_JS), relay.host, str(relay.port), KEY],
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    threading.Thread(target=lambda: [lines.append(json.loads(l)) for l in proc.stdout], daemon=True).start()

    def came_back():
        for client in ("a", "b"):
            mine = [l for l in lines if l.get("client") == client]
            # (pusher-js hands on no connection_established: its handshake takes it.)
            subscribed = [l for l in mine if l.get("event") == "pusher_internal:subscription_succeeded"]
            if len(subscribed) == 4:
                return True
        return False

    try:
        # One of the two is closed with 4200 a second after it connected; pusher-js reconnects and resubscribes.
        wait_for(came_back, timeout=15, what="a pusher-js client to reconnect and resubscribe")
    finally:
        proc.kill()
    assert relay.stop() == 0
    report = "\n".join(relay.lines)
    assert "close:4200,after=1s,times=1: applied 1 time" in report, report
    assert "reconnected 1, resubscribed to every channel 1" in report, report


def test_pysher_and_the_official_sdk_through_the_proxy(upstream, proxy, auth_endpoint):
    import pysher
    client = pysher.Pusher(KEY, custom_host=proxy.host, port=proxy.port, secure=False,
                           auth_endpoint=auth_endpoint.url, reconnect_interval=30)
    received = []
    client.connection.bind("pusher:connection_established",
                           lambda data: client.subscribe("news").bind("update", received.append))
    client.connect()
    try:
        wait_for(lambda: client.connection.state == "connected" and "news" in client.channels,
                 what="pysher connected through the proxy")
        sdk = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=proxy.host, port=proxy.port, ssl=False)
        wait_for(lambda: sdk.channel_info("news").get("occupied"), what="news occupied, asked through the proxy")
        sdk.trigger("news", "update", {"n": 1})
        wait_for(lambda: received, what="the event published through the proxy")
        assert json.loads(received[0]) == {"n": 1}
    finally:
        client.disconnect(timeout=0.2)


def test_pysher_waits_its_reconnect_interval_after_a_4200_and_the_report_measures_it(upstream, auth_endpoint):
    """4200 means "reconnect immediately"; pysher reconnects after its reconnect_interval whatever the code. The
    proxy's report measures it: the reconnection takes the interval, not milliseconds."""
    import pysher
    relay = ProxyProcess(upstream, "--fault", "close:4200,after=0.5s,times=1", "--report")
    client = pysher.Pusher(KEY, custom_host=relay.host, port=relay.port, secure=False,
                           auth_endpoint=auth_endpoint.url, reconnect_interval=1)
    sockets = []
    client.connection.bind("pusher:connection_established",
                           lambda data: (sockets.append(json.loads(data)["socket_id"]), client.subscribe("news")))
    client.connect()
    try:
        wait_for(lambda: len(sockets) == 2, timeout=10, what="pysher to come back after the 4200")
        wait_for(lambda: client.connection.state == "connected", what="pysher connected again")
    finally:
        client.disconnect(timeout=0.2)
    assert relay.stop() == 0
    report = "\n".join(relay.lines)
    assert "reconnected 1" in report, report
    reconnect = int(re.search(r"reconnect: p50 (\d+) ms", report).group(1))
    assert reconnect >= 900, report
