"""`pushtop webhooks --forward` in front of an app: `pushtop serve`'s webhooks go through pushtop, which shows them
as rows and passes them on byte for byte; the app checks each with the official SDK's `validate_webhook`."""
import json
import re
import signal
import subprocess
import threading

import pytest

from conftest import APP_ID, BIN, KEY, SECRET, ServeProcess, subscribe, wait_for
from test_webhooks import WebhookSink


class WebhooksProcess:
    """`pushtop webhooks` as a child process: its stdout rows, the port it listens on."""

    def __init__(self, *extra):
        self.proc = subprocess.Popen(
            [BIN, "webhooks", "--listen", "127.0.0.1:0", "--app-id", APP_ID, "--key", KEY, "--secret", SECRET, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.rows = []
        self.stderr = []
        self.lock = threading.Lock()
        threading.Thread(target=self._drain, args=(self.proc.stdout, self.rows, True), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr, False), daemon=True).start()
        line = wait_for(lambda: next((l for l in self.lines(self.stderr) if "listening on" in l), None), timeout=20,
                        what="pushtop webhooks to listen")
        self.port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))

    def _drain(self, stream, sink, parse):
        for line in stream:
            with self.lock:
                sink.append(json.loads(line) if parse else line)

    def lines(self, sink):
        with self.lock:
            return list(sink)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(10)


@pytest.fixture
def sink():
    s = WebhookSink()
    yield s
    s.close()


def test_the_sdk_validates_what_pushtop_forwards(sink, clients):
    base = sink.url[: -len("/pusher/webhooks")]
    webhooks = WebhooksProcess("--forward", base)
    server = ServeProcess("--webhook", f"http://127.0.0.1:{webhooks.port}/pusher/webhooks", "--webhook-grace", "0")
    try:
        import pysher
        from conftest import Recorder
        client = pysher.Pusher(KEY, custom_host=server.host, port=server.port, secure=False, reconnect_interval=30)
        client.recorder = Recorder(client)
        client.connect()
        wait_for(lambda: client.connection.state == "connected", what="pysher to connect")
        subscribe(client, "orders")
        client.unsubscribe("orders")
        wait_for(lambda: ("channel_vacated", "orders") in sink.names(), timeout=15, what="channel_vacated at the app")
        client.disconnect(timeout=0.2)
        # The SDK accepted every request pushtop passed on.
        assert sink.invalid == 0
        assert ("channel_occupied", "orders") in sink.names()
        # pushtop showed them, verified, and each forward's answer.
        rows = webhooks.lines(webhooks.rows)
        types = [(r["type"], r.get("channel")) for r in rows]
        assert ("occupied", "orders") in types
        assert ("vacated", "orders") in types
        assert not [r for r in rows if r["type"] in ("webhook_rejected", "webhook_problem")]
        assert [r for r in rows if r["type"] == "webhook_sent" and r["status"] == 200]
    finally:
        assert server.stop() == 0
        assert webhooks.stop() == 0
