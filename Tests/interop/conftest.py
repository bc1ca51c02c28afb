"""Fixtures of the interop suite: the real `pushtop serve` binary, the official Pusher server SDK, and pysher.

The server is started as a process on a free port (`--port 0`); the port is read from the line it prints
when listening. Set PUSHTOP_BIN to use another binary than .build/debug/pushtop.
"""
import json
import os
import re
import resource
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pusher
import pysher
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("PUSHTOP_BIN", os.path.join(ROOT, ".build", "debug", "pushtop"))

APP_ID = "4242"
KEY = "interop-key"
SECRET = "interop-secret"


def wait_for(condition, timeout=5.0, what="a condition"):
    """Polls `condition` until it is truthy; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class ServeProcess:
    """`pushtop serve` running as a child process."""

    def __init__(self, *extra):
        if not os.path.exists(BIN):
            raise RuntimeError(f"pushtop binary not found at {BIN}: run `swift build` or set PUSHTOP_BIN")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--port", "0", "--app-id", APP_ID, "--key", KEY, "--secret", SECRET, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.first_line = self._read_line(timeout=20)
        match = re.search(r"listening on ws://([\d.]+):(\d+)/app/(\S+) \(app id (\d+)\)", self.first_line)
        if not match:
            self.stop()
            raise RuntimeError(f"unexpected first line from pushtop serve: {self.first_line!r}")
        self.host, self.port = match.group(1), int(match.group(2))
        # Keep draining stdout/stderr so the child never blocks on a full pipe.
        self.stderr_lines = []
        threading.Thread(target=self._drain, args=(self.proc.stdout, []), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr_lines), daemon=True).start()

    def _read_line(self, timeout):
        result = {}

        def read():
            result["line"] = self.proc.stdout.readline()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if "line" not in result:
            self.stop()
            raise RuntimeError("pushtop serve printed nothing within the timeout")
        return result["line"]

    @staticmethod
    def _drain(stream, sink):
        for line in stream:
            sink.append(line)

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"pushtop serve did not stop within {timeout}s of signal {sig}")
        return self.proc.returncode


class ProxyProcess:
    """`pushtop proxy` as a child process on a free port, relaying to `upstream` (anything with `host` and `port`:
    a ServeProcess, or a bare listener). `lines` is its standard output, `stderr_lines` its log; `open_files` sets
    its limit on open files (soft and hard), as `ulimit -n` would."""

    def __init__(self, upstream, *extra, open_files=None):
        if not os.path.exists(BIN):
            raise RuntimeError(f"pushtop binary not found at {BIN}: run `swift build` or set PUSHTOP_BIN")
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))) if open_files else None
        self.proc = subprocess.Popen(
            [BIN, "proxy", "--listen", "127.0.0.1:0", "--upstream", f"ws://{upstream.host}:{upstream.port}",
             "--app-id", APP_ID, "--key", KEY, "--secret", SECRET, "--log-level", "notice", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        self.lines = []
        self.stderr_lines = []
        self._drains = [threading.Thread(target=self._drain, args=(stream, sink), daemon=True)
                        for stream, sink in ((self.proc.stdout, self.lines), (self.proc.stderr, self.stderr_lines))]
        for drain in self._drains:
            drain.start()
        try:
            line = wait_for(lambda: next((l for l in self.lines if "listening on" in l), None), timeout=20,
                            what="pushtop proxy to listen")
        except AssertionError:
            self.stop()
            raise AssertionError(f"pushtop proxy did not start: {self.lines} {self.stderr_lines}")
        match = re.search(r"listening on ws://([\d.]+):(\d+)", line)
        assert match, f"unexpected line from pushtop proxy: {line!r}"
        self.host, self.port = match.group(1), int(match.group(2))

    @staticmethod
    def _drain(stream, sink):
        for line in stream:
            sink.append(line.rstrip("\n"))

    def stop(self, timeout=10):
        """SIGTERM, then its exit status (a proxy that does not stop within `timeout` fails the test)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"pushtop proxy did not stop within {timeout}s of SIGTERM")
        # What it printed last (the --report summary) is in `lines` once its pipes reached end of file.
        for drain in self._drains:
            drain.join(timeout)
        return self.proc.returncode


@pytest.fixture(scope="module")
def server():
    process = ServeProcess()
    yield process
    assert process.stop() == 0


@pytest.fixture
def sdk(server):
    """The official Pusher server SDK, pointed at the server."""
    return pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=server.host, port=server.port, ssl=False)


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing and answers with `reply`."""

    def reply(self, status, body=b"", content_type="application/json"):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class LoopbackHTTPServer:
    """Serves a `QuietHandler` subclass on 127.0.0.1 and a free port, in a thread; `url` ends with `path`."""

    def serve(self, handler, path):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class AuthEndpoint(LoopbackHTTPServer):
    """An app's auth endpoint, as the Pusher docs describe it: the official SDK's `authenticate` signs.

    The user is named by the X-User header; its presence data comes from `users`.
    """

    def __init__(self, sdk):
        endpoint = self
        self.users = {}

        class Handler(QuietHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                channel = form["channel_name"][0]
                socket_id = form["socket_id"][0]
                user = self.headers.get("X-User")
                custom = endpoint.users.get(user) if channel.startswith("presence-") else None
                self.reply(200, json.dumps(sdk.authenticate(channel=channel, socket_id=socket_id, custom_data=custom)).encode())

        self.serve(Handler, "/auth")


@pytest.fixture
def auth_endpoint(sdk):
    endpoint = AuthEndpoint(sdk)
    yield endpoint
    endpoint.close()


class Recorder:
    """Collects every message pysher hands on, thread-safely: (channel, event, data).

    It wraps pysher's connection-level event handler, so nothing is lost to the race between pysher sending
    `pusher:subscribe` and registering the channel object that callbacks would be bound to.
    """

    def __init__(self, client):
        self.lock = threading.Lock()
        self.items = []
        forward = client.connection.event_handler

        def handler(event_name, data, channel_name):
            with self.lock:
                self.items.append((channel_name, event_name, data))
            forward(event_name, data, channel_name)

        client.connection.event_handler = handler

        def on_error(data, *args, **kwargs):
            with self.lock:
                self.items.append((None, "pusher:error", data))

        client.connection.bind("pusher:error", on_error)

    def named(self, channel, event):
        with self.lock:
            return [data for (c, e, data) in self.items if c == channel and e == event]

    def wait(self, channel, event, count=1, timeout=5):
        return wait_for(lambda: len(self.named(channel, event)) >= count and self.named(channel, event),
                        timeout, f"{count} x {event} on {channel}")


@pytest.fixture
def clients(server, auth_endpoint):
    """Makes connected pysher clients (protocol 6, as pysher speaks it); disconnects them after the test."""
    made = []

    def make(user=None, user_info=None, key=KEY, wait=True, **options):
        user_data = None
        headers = {}
        if user is not None:
            user_data = {"user_id": user, "user_info": user_info or {"name": user.title()}}
            auth_endpoint.users[user] = user_data
            headers["X-User"] = user
        client = pysher.Pusher(
            key, custom_host=server.host, port=server.port, secure=False,
            auth_endpoint=options.pop("auth_endpoint", auth_endpoint.url), auth_endpoint_headers=headers,
            user_data=user_data, reconnect_interval=30, **options,
        )
        client.recorder = Recorder(client)
        client.connect()
        made.append(client)
        if wait:
            wait_for(lambda: client.connection.state == "connected" and client.connection.socket_id,
                     what="pysher to connect")
        return client

    yield make
    for client in made:
        client.disconnect(timeout=0.2)  # pysher threads linger for seconds after the socket closed; they are daemons


def subscribe(client, channel_name, timeout=5):
    """Subscribes a pysher client and waits for pusher_internal:subscription_succeeded; returns its data."""
    client.subscribe(channel_name)
    return client.recorder.wait(channel_name, "pusher_internal:subscription_succeeded", timeout=timeout)[0]
