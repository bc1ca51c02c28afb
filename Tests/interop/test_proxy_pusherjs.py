"""Transparency, shown with the official pusher-js (its Node build): the same scripted session run directly against
`pushtop serve` and through `pushtop proxy` in front of it gives the same messages both ways, message by message,
frame text for frame text, once the socket ids (and the signatures made with them) are set aside.

pusher-js is not in this repository (and no npm registry is reachable on CI): set PUSHER_JS to the path of
dist/node/pusher.js from its public repository to run this test; without it it is skipped.
"""
import json
import os
import re
import shutil
import subprocess
import threading

import pusher
import pytest
import websocket

from conftest import APP_ID, KEY, SECRET, ProxyProcess, wait_for

PUSHER_JS = os.environ.get("PUSHER_JS")
pytestmark = pytest.mark.skipif(not PUSHER_JS or not shutil.which("node"),
                                reason="set PUSHER_JS to pusher-js's dist/node/pusher.js (and have node)")
SESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pusherjs_session.js")


class Session:
    """One run of pusherjs_session.js: steps in on stdin, every message sent and received out as JSON lines."""

    def __init__(self, host, port, user_id):
        self.lines = []
        self.proc = subprocess.Popen(
            ["node", SESSION, os.path.abspath(PUSHER_JS), host, str(port), KEY, user_id],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_done("connect")

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))

    def wait_done(self, step):
        wait_for(lambda: any(l["type"] == "done" and l["step"] == step for l in self.lines), timeout=10,
                 what=f"pusher-js step {step!r}; saw {self.lines}")

    def step(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        self.wait_done(line)

    def finish(self):
        """Ends the session; returns the socket id and every frame sent and received."""
        self.proc.stdin.close()
        self.proc.wait(10)
        socket_id = next(l["socket_id"] for l in self.lines if l["type"] == "done" and l["step"] == "connect")
        return socket_id, [l for l in self.lines if l["type"] in ("sent", "recd")]


def normalised(frames, socket_id):
    """The frames' text with what differs between two connections replaced: the socket id, and the signatures
    made with it (`auth`); pings and pongs (timing) are left out."""
    result = []
    for f in frames:
        if '"pusher:ping"' in f["frame"] or '"pusher:pong"' in f["frame"]:
            continue
        text = f["frame"].replace(socket_id, "SOCKET")
        text = re.sub(r'"auth":"[0-9A-Za-z_-]+:[0-9a-f]{64}"', '"auth":"SIGNED"', text)
        result.append((f["type"], text))
    return result


class Observer:
    """A raw WebSocket straight to the server, subscribed to a private channel: what reaches the server from the
    session's client events, frame text as it arrived."""

    def __init__(self, server, sdk, channel):
        self.frames = []
        self.socket = websocket.create_connection(f"ws://{server.host}:{server.port}/app/{KEY}?protocol=7", timeout=5)
        established = json.loads(self.socket.recv())
        socket_id = json.loads(established["data"])["socket_id"]
        auth = sdk.authenticate(channel=channel, socket_id=socket_id)["auth"]
        self.socket.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth}}))
        while "subscription_succeeded" not in self.socket.recv():
            pass
        self.socket.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while True:
                self.frames.append(self.socket.recv())
        except Exception:
            pass

    def wait(self, event):
        return wait_for(lambda: [f for f in self.frames if f'"{event}"' in f], timeout=10, what=f"{event} on the observer")

    def close(self):
        self.socket.close()


def run_session(host, port, sdk):
    """The scripted session: subscribe to a public, a private and a presence channel, receive a server event on
    each, send a client event, unsubscribe, disconnect."""
    session = Session(host, port, "ada")
    for channel in ("proxy-public", "private-proxy", "presence-proxy"):
        session.step(f"subscribe {channel}")
    for channel in ("proxy-public", "private-proxy", "presence-proxy"):
        sdk.trigger(channel, "news", {"on": channel, "text": "héllo ✓"})
        session.step("wait news")
    session.step('trigger private-proxy client-typing {"typing": true}')
    session.step("unsubscribe proxy-public")
    sdk.trigger("presence-proxy", "last", {"n": 2})
    session.step("wait last")
    return session.finish()


def test_the_same_pusherjs_session_directly_and_through_the_proxy_sends_and_receives_the_same_frames(server):
    sdk = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=server.host, port=server.port, ssl=False)
    observer = Observer(server, sdk, "private-proxy")
    direct_socket, direct = run_session(server.host, server.port, sdk)
    direct_arrived = observer.wait("client-typing")
    observer.frames.clear()
    proxy = ProxyProcess(server)
    try:
        proxied_socket, proxied = run_session(proxy.host, proxy.port, sdk)
        proxied_arrived = observer.wait("client-typing")
    finally:
        observer.close()
        assert proxy.stop() == 0
    # Client to server: the client event reached another subscriber the same, frame text for frame text.
    assert proxied_arrived == direct_arrived
    # Server to client (and what the client sent), frame by frame.
    assert direct_socket != proxied_socket, "two connections, two socket ids"
    a, b = normalised(direct, direct_socket), normalised(proxied, proxied_socket)
    assert sum(1 for d, _ in a if d == "sent") >= 5 and sum(1 for d, _ in a if d == "recd") >= 9, a
    assert any("pusher:connection_established" in text for _, text in a)
    for index, (left, right) in enumerate(zip(a, b)):
        assert left == right, f"message {index} differs:\n direct:  {left}\n proxied: {right}"
    assert len(a) == len(b), f"direct {len(a)} messages, through the proxy {len(b)}:\n{a}\n{b}"
