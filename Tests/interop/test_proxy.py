"""`pushtop proxy` between clients nobody here wrote and `pushtop serve`: the official pusher-js (its Node build),
pysher and the official Python server SDK, directly and through the proxy.

The pusher-js tests need PUSHER_JS (the path of dist/node/pusher.js from its public repository) and node; without
them they are skipped.
"""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import threading

import pusher
import pytest
import websocket

from conftest import APP_ID, KEY, SECRET, ProxyProcess, ServeProcess, wait_for

PUSHER_JS = os.environ.get("PUSHER_JS")
needs_pusherjs = pytest.mark.skipif(not PUSHER_JS or not shutil.which("node"),
                                    reason="set PUSHER_JS to pusher-js's dist/node/pusher.js (and have node)")
SESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "proxy_session.js")


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


class RecordingUpstream:
    """A TCP listener standing for the upstream: keeps each upgrade request the proxy sends it, then hangs up."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self.listener.getsockname()
        self.requests = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            data = b""
            conn.settimeout(5)
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
            self.requests.append(data.split(b"\r\n\r\n")[0].decode())
            conn.close()

    def close(self):
        self.listener.close()


def upgrade(port, path, headers):
    """A raw WebSocket upgrade to port; reads until the proxy hangs up (this upstream never answers 101)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join(f"{h}\r\n" for h in headers)
        s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
        while s.recv(4096):
            pass


def test_the_upstream_gets_the_clients_request_its_address_and_only_the_clients_own_deflate_offer():
    upstream = RecordingUpstream()
    relay = ProxyProcess(upstream)
    path = f"/app/{KEY}?protocol=7&client=js&version=8.4.0&flash=false"
    try:
        upgrade(relay.port, path, ["X-Forwarded-For: 203.0.113.9", "User-Agent: interop-test"])
        wait_for(lambda: len(upstream.requests) == 1, timeout=10, what="the first upgrade to reach the upstream")
        upgrade(relay.port, path, ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"])
        wait_for(lambda: len(upstream.requests) == 2, timeout=10, what="the second upgrade to reach the upstream")
    finally:
        assert relay.stop() == 0
        upstream.close()

    def parsed(request):
        lines = request.split("\r\n")
        return lines[0], {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}

    (plain_line, plain), (deflate_line, deflate) = map(parsed, upstream.requests)
    assert plain_line == deflate_line == f"GET {path} HTTP/1.1"
    assert plain["x-forwarded-for"] == "203.0.113.9, 127.0.0.1"
    assert plain["user-agent"] == "interop-test"
    assert plain["host"] == f"127.0.0.1:{upstream.port}"
    assert plain["x-forwarded-host"] == f"127.0.0.1:{relay.port}"
    # A client that does not compress: nothing is asked of the upstream (it would deflate for the proxy to inflate).
    assert "sec-websocket-extensions" not in plain
    assert deflate["sec-websocket-extensions"].startswith("permessage-deflate")
    assert deflate["x-forwarded-for"] == "127.0.0.1"


class Client:
    """A Pusher client through websocket-client: connected once pusher:connection_established came."""

    def __init__(self, port, timeout=3):
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}/app/{KEY}?protocol=7&client=raw&version=1",
                                              timeout=timeout)
        self.read_until("pusher:connection_established")

    def read_until(self, needle):
        while needle not in self.ws.recv():
            pass

    def send(self, text):
        self.ws.send(text)

    def close(self):
        self.ws.close()


def test_out_of_open_files_the_proxy_refuses_new_connections_says_so_and_keeps_the_others(upstream):
    relay = ProxyProcess(upstream, open_files=64)
    clients = []
    try:
        refused = False
        for _ in range(64):
            try:
                clients.append(Client(relay.port))
            except (websocket.WebSocketException, OSError):
                refused = True
                break
        # Two open files a connection, 64 in all: about 20 connections, then a refusal.
        assert refused and 10 <= len(clients) <= 31, len(clients)
        warning = wait_for(lambda: next((l for l in relay.stderr_lines + relay.lines if "out of open files" in l), None),
                           timeout=10, what="the proxy to say it is out of open files")
        assert "limit 64" in warning and f"{len(clients)} open" in warning, warning
        # The connections it holds still relay.
        first = clients[0]
        first.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": "news"}}))
        first.read_until("pusher_internal:subscription_succeeded")
        sdk = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=upstream.host, port=upstream.port, ssl=False)
        sdk.trigger("news", "update", {"n": 1})
        first.read_until('"update"')
        # Room again once some close.
        for client in clients[-4:]:
            client.close()
        del clients[-4:]
        clients.append(wait_for(lambda: _try_client(relay.port), timeout=15, what="a new connection once some closed"))
    finally:
        for client in clients:
            client.close()
        assert relay.stop() == 0


def _try_client(port):
    try:
        return Client(port)
    except (websocket.WebSocketException, OSError):
        return None
