"""User authentication, events to users, terminating users' connections and watchlists against pushtop serve,
driven by the official `pusher` SDK (authenticate_user, send_to_user, terminate_user_connections) and a raw
WebSocket client that speaks pusher-js's sign-in protocol (pysher has no sign-in).
"""
import json
import threading
import time

import websocket

from conftest import KEY, wait_for


class RawClient:
    """A protocol-7 WebSocket client that does what pusher-js's `pusher.signin()` does on the wire."""

    def __init__(self, server):
        self.messages = []
        self.lock = threading.Lock()
        self.close_code = None
        self.ws = websocket.WebSocketApp(
            f"ws://{server.host}:{server.port}/app/{KEY}?protocol=7&client=js&version=8.4.0",
            on_message=self._on_message, on_close=self._on_close)
        threading.Thread(target=self.ws.run_forever, daemon=True).start()
        established = self.wait("pusher:connection_established")
        self.socket_id = json.loads(established["data"])["socket_id"]

    def _on_message(self, _ws, text):
        with self.lock:
            self.messages.append(json.loads(text))

    def _on_close(self, _ws, code, _reason):
        self.close_code = code

    def named(self, event, channel=None):
        with self.lock:
            return [m for m in self.messages if m["event"] == event and (channel is None or m.get("channel") == channel)]

    def wait(self, event, channel=None, count=1, timeout=5):
        return wait_for(lambda: len(self.named(event, channel)) >= count and self.named(event, channel)[count - 1],
                        timeout, f"{event} on {channel}")

    def send(self, event, data):
        self.ws.send(json.dumps({"event": event, "data": data}))

    def sign_in(self, sdk, user_data):
        """pusher-js: POST to the user-auth endpoint (here: the SDK directly), then pusher:signin, then
        subscribe to #server-to-user-{id} on pusher:signin_success."""
        auth = sdk.authenticate_user(self.socket_id, user_data)
        self.send("pusher:signin", {"auth": auth["auth"], "user_data": auth["user_data"]})
        success = self.wait("pusher:signin_success")
        signed = json.loads(json.loads(success["data"])["user_data"])
        self.send("pusher:subscribe", {"channel": f"#server-to-user-{signed['id']}"})
        self.wait("pusher_internal:subscription_succeeded", f"#server-to-user-{signed['id']}")
        return signed

    def close(self):
        self.ws.close()


def watchlist_changes(message):
    return [(e["name"], e["user_ids"]) for e in json.loads(message["data"])["events"]]


def test_authenticate_user_signs_a_user_the_server_accepts_and_send_to_user_reaches_them(server, sdk):
    client = RawClient(server)
    try:
        signed = client.sign_in(sdk, {"id": "alice", "user_info": {"name": "Alice"}})
        assert signed == {"id": "alice", "user_info": {"name": "Alice"}}
        assert sdk.send_to_user("alice", "invoice-paid", {"amount": 42}) == {}
        event = client.wait("invoice-paid", "#server-to-user-alice")
        assert json.loads(event["data"]) == {"amount": 42}
    finally:
        client.close()


def test_a_signature_made_with_another_secret_is_refused_with_4009(server):
    import pusher
    from conftest import APP_ID
    forger = pusher.Pusher(app_id=APP_ID, key=KEY, secret="not-the-secret", host=server.host, port=server.port,
                           ssl=False)
    client = RawClient(server)
    auth = forger.authenticate_user(client.socket_id, {"id": "mallory"})
    client.send("pusher:signin", auth)
    error = client.wait("pusher:error")
    assert error["data"]["code"] == 4009
    wait_for(lambda: client.close_code == 4009, what="the close with 4009")


def test_terminate_user_connections_closes_every_connection_of_the_user(server, sdk):
    first, second, other = RawClient(server), RawClient(server), RawClient(server)
    try:
        first.sign_in(sdk, {"id": "gina"})
        second.sign_in(sdk, {"id": "gina"})
        other.sign_in(sdk, {"id": "hank"})
        assert sdk.terminate_user_connections("gina") == {}
        wait_for(lambda: first.close_code == 4009 and second.close_code == 4009, what="gina's connections to close")
        time.sleep(0.2)  # a wrong close of hank's connection would show by now
        assert other.close_code is None
    finally:
        for client in (first, second, other):
            client.close()


def test_events_answered_before_a_terminate_reach_the_user_before_the_close(server, sdk):
    """send_to_user and trigger answered 200, then terminate_user_connections: the user gets every event, then
    4009. (The HTTP API queues publishes and hands them to the hub once a millisecond; the terminate went to the hub
    directly and closed the socket before the last events of a burst, about one user in ten.)"""
    for n in range(8):
        user = f"burst-{n}"
        client = RawClient(server)
        try:
            client.sign_in(sdk, {"id": user})
            client.send("pusher:subscribe", {"channel": f"burst-{n}"})
            client.wait("pusher_internal:subscription_succeeded", f"burst-{n}")
            for i in range(25):
                assert sdk.trigger(f"burst-{n}", "tick", {"i": i}) == {}
            assert sdk.send_to_user(user, "last-word", {}) == {}
            assert sdk.terminate_user_connections(user) == {}
            wait_for(lambda: client.close_code is not None, what=f"{user}'s connection to close")
            ticks = [json.loads(m["data"])["i"] for m in client.named("tick", f"burst-{n}")]
            assert ticks == list(range(25)), f"{user} got {len(ticks)} of 25 events before the close"
            assert client.named("last-word", f"#server-to-user-{user}"), f"{user} lost send_to_user's event"
            assert client.close_code == 4009
        finally:
            client.close()


def test_watchers_see_online_and_offline(server, sdk):
    watcher = RawClient(server)
    try:
        watcher.sign_in(sdk, {"id": "carol", "watchlist": ["dave"]})
        dave = RawClient(server)
        dave.sign_in(sdk, {"id": "dave"})
        assert watchlist_changes(watcher.wait("pusher_internal:watchlist_events")) == [("online", ["dave"])]
        dave.close()
        assert watchlist_changes(watcher.wait("pusher_internal:watchlist_events", count=2)) == [("offline", ["dave"])]
    finally:
        watcher.close()
