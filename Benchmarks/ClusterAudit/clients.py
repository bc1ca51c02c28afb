"""The audit's traffic: WebSocket clients in presence channels (through the balancer), reconnecting when their
node dies, each connection a `Session` that records what it received; and publishers of sequence-numbered events
through random nodes' HTTP API."""
import json
import random
import threading
import time

import pusher
import websocket

APP_ID, KEY, SECRET = "1", "pushtop-key", "pushtop-secret"


def api_client(port):
    return pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host="127.0.0.1", port=port, ssl=False, timeout=5)


class Session:
    """One connection of one client: its node, when it subscribed and closed, the ticks and member changes it saw."""

    def __init__(self, client, number, channel):
        self.client = client
        self.number = number
        self.channel = channel
        self.user_id = f"c{client}-s{number}"
        self.node = None
        self.opened = time.time()
        self.subscribed = None
        self.closed = None
        self.close_reason = None
        self.initial_members = set()
        self.member_log = []  # (time, "added" | "removed", user_id)
        self.ticks = []  # (publisher, seq, via node, time)
        self.markers = set()
        self.lock = threading.Lock()

    def roster(self, until=None):
        """The members this session believes are in its channel (at `until`, default now)."""
        members = set(self.initial_members)
        with self.lock:
            log = list(self.member_log)
        for at, change, user in log:
            if until is not None and at > until:
                break
            if change == "added":
                members.add(user)
            else:
                members.discard(user)
        return members

    def is_open(self):
        return self.subscribed is not None and self.closed is None


class Client(threading.Thread):
    def __init__(self, index, balancer, channel, auth, stop):
        super().__init__(name=f"client-{index}", daemon=True)
        self.index = index
        self.balancer = balancer
        self.channel = channel
        self.auth = auth
        self.stop = stop
        self.sessions = []
        self.current = None
        self.connect_failures = 0

    def current_session_open(self):
        session = self.current
        return session is not None and session.is_open()

    def run(self):
        while not self.stop.is_set():
            session = Session(self.index, len(self.sessions) + self.connect_failures, self.channel)
            self.current = session
            try:
                self._serve(session)
            except Exception as error:  # noqa: BLE001 (any end of the connection ends the session)
                session.close_reason = repr(error)[:200]
            if session.closed is None:
                session.closed = time.time()
            if session.subscribed is not None:
                self.sessions.append(session)
            else:
                self.connect_failures += 1
            self.stop.wait(random.uniform(0.1, 0.5))

    def _serve(self, session):
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.balancer.port}/app/{KEY}?protocol=7&client=cluster-audit&version=1", timeout=5)
        try:
            session.node = self.balancer.origin(ws.sock.getsockname()[1])
            established = json.loads(ws.recv())
            if established.get("event") != "pusher:connection_established":
                raise RuntimeError(f"unexpected first frame {established}")
            socket_id = json.loads(established["data"])["socket_id"]
            auth = self.auth.authenticate(self.channel, socket_id, {"user_id": session.user_id,
                                                                    "user_info": {"client": self.index}})
            ws.send(json.dumps({"event": "pusher:subscribe",
                                "data": {"channel": self.channel, "auth": auth["auth"],
                                         "channel_data": auth["channel_data"]}}))
            ws.settimeout(1)
            while not self.stop.is_set():
                try:
                    text = ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                now = time.time()
                if not text:
                    raise ConnectionError("closed")
                self._handle(session, json.loads(text), now, ws)
            session.closed = time.time()
            session.close_reason = "stopped"
        finally:
            if session.closed is None:
                session.closed = time.time()
            try:
                ws.close(timeout=1)
            except Exception:  # noqa: BLE001
                pass

    def _handle(self, session, message, now, ws):
        event = message.get("event")
        if event == "tick":
            data = json.loads(message["data"])
            with session.lock:
                session.ticks.append((data["p"], data["s"], data["n"], now))
        elif event == "marker":
            session.markers.add(json.loads(message["data"])["id"])
        elif event == "pusher_internal:member_added":
            with session.lock:
                session.member_log.append((now, "added", json.loads(message["data"])["user_id"]))
        elif event == "pusher_internal:member_removed":
            with session.lock:
                session.member_log.append((now, "removed", json.loads(message["data"])["user_id"]))
        elif event == "pusher_internal:subscription_succeeded":
            presence = json.loads(message["data"])["presence"]
            session.initial_members = set(presence["ids"])
            session.subscribed = now
        elif event == "pusher:ping":
            ws.send(json.dumps({"event": "pusher:pong", "data": {}}))
        elif event == "pusher:error" or event == "pusher:subscription_error":
            raise RuntimeError(f"{event}: {message.get('data')}")


class PublishedEvent:
    def __init__(self, publisher, seq, node, sent):
        self.publisher = publisher
        self.seq = seq
        self.node = node
        self.sent = sent
        self.acked = None
        self.ok = False


class Publisher(threading.Thread):
    """Publishes `tick` {p, s, n} to every channel, one event at a time, each through a random node."""

    def __init__(self, index, nodes, channels, rate, stop):
        super().__init__(name=f"publisher-{index}", daemon=True)
        self.index = index
        self.nodes = nodes
        self.channels = channels
        self.interval = 1.0 / rate
        self.stop = stop
        self.events = []
        self.clients = {node.index: api_client(node.port) for node in nodes}

    def run(self):
        seq = 0
        next_at = time.monotonic()
        while not self.stop.is_set():
            node = random.choice(self.nodes)
            event = PublishedEvent(self.index, seq, node.index, time.time())
            try:
                self.clients[node.index].trigger(self.channels, "tick", {"p": self.index, "s": seq, "n": node.index})
                event.ok = True
            except Exception:  # noqa: BLE001 (a dead or partitioned node: the event may or may not be out)
                pass
            event.acked = time.time()
            self.events.append(event)
            seq += 1
            next_at += self.interval
            delay = next_at - time.monotonic()
            if delay > 0:
                self.stop.wait(delay)
            else:
                next_at = time.monotonic()
