"""Webhooks from `pushtop serve --webhook URL`, received by a small HTTP server that checks each one with the
official SDK's `validate_webhook` (key, HMAC-SHA256 signature and time_ms)."""
import threading

import pusher
import pytest

from conftest import APP_ID, KEY, SECRET, LoopbackHTTPServer, QuietHandler, ServeProcess, subscribe, wait_for


class WebhookSink(LoopbackHTTPServer):
    """Receives webhooks; answers 500 to the first `fail_first` requests to exercise the server's retries."""

    def __init__(self, fail_first=0):
        sink = self
        self.valid = []
        self.invalid = 0
        self.requests = 0
        self.fail_first = fail_first
        self.lock = threading.Lock()
        sdk = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET)

        class Handler(QuietHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                with sink.lock:
                    sink.requests += 1
                    refuse = sink.requests <= sink.fail_first
                if not refuse:
                    checked = sdk.validate_webhook(key=self.headers.get("X-Pusher-Key", ""),
                                                   signature=self.headers.get("X-Pusher-Signature", ""), body=body)
                    with sink.lock:
                        if checked is None:
                            sink.invalid += 1
                        else:
                            sink.valid.extend(checked["events"])
                self.reply(500 if refuse else 200, content_type=None)

        self.serve(Handler, "/pusher/webhooks")

    def names(self):
        with self.lock:
            return [(e["name"], e.get("channel")) for e in self.valid]



@pytest.fixture
def sink():
    s = WebhookSink(fail_first=1)
    yield s
    s.close()


@pytest.fixture
def hooked_server(sink):
    process = ServeProcess("--webhook", sink.url)
    yield process
    assert process.stop() == 0


def test_webhooks_are_signed_batches_the_sdk_validates(hooked_server, sink, clients):
    import pysher
    from conftest import Recorder
    client = pysher.Pusher(KEY, custom_host=hooked_server.host, port=hooked_server.port, secure=False,
                           reconnect_interval=30)
    client.recorder = Recorder(client)
    client.connect()
    try:
        wait_for(lambda: client.connection.state == "connected", what="pysher to connect")
        subscribe(client, "orders")
        subscribe(client, "cache-prices")
        client.unsubscribe("orders")
        wait_for(lambda: ("channel_vacated", "orders") in sink.names(), timeout=15, what="channel_vacated")
        # The first request was refused with 500: the server retried it.
        assert sink.requests >= 2
        assert sink.invalid == 0
        names = sink.names()
        assert ("channel_occupied", "orders") in names
        assert ("cache_miss", "cache-prices") in names
        assert names.index(("channel_occupied", "orders")) < names.index(("channel_vacated", "orders"))
    finally:
        client.disconnect(timeout=0.2)
