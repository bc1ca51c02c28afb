"""A small Pusher client for `pushtop conform --client`'s tests: well-behaved by default, and broken in exactly one
way with --break NAME, so that each client case is shown to fail the client that breaks its rule.

    python3 scripted_client.py HOST PORT KEY SECRET [--break NAME] [--pong-timeout S]

It subscribes to news, private-room and presence-room (signing locally with the secret), signs in as user
alice, sends three client events on private-room, answers pings, pings after activity_timeout of silence, gives up
a connection whose pong never comes, and reconnects as Pusher's protocol asks: at once after 4200, after 1 s after
4100, never after 4000-4099, with back-off after a drop. It prints a JSON line for each connection it opens.
"""
import argparse
import hashlib
import hmac
import json
import sys
import threading
import time

import websocket

BREAKS = {
    "no-pong": "never answers pusher:ping",
    "no-activity-ping": "pings only 4 s after activity_timeout of silence has passed",
    "ignores-stall": "pings, but never gives up a connection whose pong does not come",
    "slow-reconnect-4200": "waits 8 s before reconnecting after 4200",
    "forgets-channels": "does not subscribe again after reconnecting",
    "stale-auth": "reuses the first connection's auth signatures after reconnecting",
    "no-signin-again": "does not sign in again after reconnecting",
    "closes-on-refusal": "closes its connection when a subscription is refused",
    "no-backoff-4100": "reconnects at once after 4100",
    "no-reconnect-after-drop": "stays away after a connection dropped under it (not one it gave up itself)",
    "storm": "retries every 50 ms while the server is unreachable",
    "reconnects-after-4009": "reconnects at once, unchanged, after 4009",
    "malformed": "sends a message that is not JSON",
    "public-client-event": "sends a client event on a public channel",
    "client-event-flood": "sends 30 client events at once",
}
CHANNELS = ["news", "private-room", "presence-room"]
USER = {"id": "alice", "user_info": {"name": "Alice"}}


class Client:
    def __init__(self, url, key, secret, broken, pong_timeout, suffix=""):
        self.url, self.key, self.secret, self.broken, self.pong_timeout = url, key, secret, broken, pong_timeout
        self.channels = [channel + suffix for channel in CHANNELS]
        self.auths = {}
        self.connections = 0
        self.stop = False

    def sign(self, text):
        return f"{self.key}:" + hmac.new(self.secret.encode(), text.encode(), hashlib.sha256).hexdigest()

    def run(self):
        delay = 1.0
        while not self.stop:
            code = self.session()
            if code == "gave-up":  # it gave a stalled connection up itself: back at once
                continue
            if code is None or code == 1006 or code < 4000:
                if self.broken == "no-reconnect-after-drop":
                    return
                time.sleep(0.05 if self.broken == "storm" else delay)
                delay = min(delay * 2, 10.0)
                continue
            delay = 1.0
            if 4000 <= code < 4100:
                if self.broken != "reconnects-after-4009":
                    return
            elif 4100 <= code < 4200:
                time.sleep(0 if self.broken == "no-backoff-4100" else 1.2)
            elif 4200 <= code < 4300:
                time.sleep(8 if self.broken == "slow-reconnect-4200" else 0)

    def session(self):
        """One connection: returns its close code (None: it could not connect or was dropped; "gave-up": it gave up a
        connection whose pong never came)."""
        try:
            ws = websocket.create_connection(self.url, timeout=10)
        except Exception:
            return None
        self.connections += 1
        print(json.dumps({"connection": self.connections}), flush=True)
        ws.settimeout(0.2)
        state = {"last": time.monotonic(), "ping_sent": None, "activity": 120}
        try:
            while True:
                try:
                    opcode, frame = ws.recv_data_frame(True)
                except websocket.WebSocketTimeoutException:
                    if not self.idle(ws, state):
                        ws.close()
                        return "gave-up"
                    continue
                payload = frame.data
                if opcode == websocket.ABNF.OPCODE_CLOSE:
                    return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                if opcode != websocket.ABNF.OPCODE_TEXT:
                    continue
                state["last"], state["ping_sent"] = time.monotonic(), None
                if self.handle(ws, json.loads(payload), state) == "close":
                    ws.close()
                    return 1000
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError):
            return None

    def idle(self, ws, state):
        """Pings after activity_timeout of silence; False: the pong never came (give the connection up)."""
        now = time.monotonic()
        if state["ping_sent"] is not None:
            return self.broken == "ignores-stall" or now - state["ping_sent"] < self.pong_timeout
        late = 4 if self.broken == "no-activity-ping" else 0
        if now - state["last"] >= state["activity"] + late:
            ws.send(json.dumps({"event": "pusher:ping", "data": {}}))
            state["ping_sent"] = now
        return True

    def handle(self, ws, message, state):
        event, data = message.get("event"), message.get("data")
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                pass
        if event == "pusher:connection_established":
            state["activity"] = data.get("activity_timeout", 120)
            self.established(ws, data["socket_id"])
        elif event == "pusher:ping" and self.broken != "no-pong":
            ws.send(json.dumps({"event": "pusher:pong", "data": {}}))
        elif event == "pusher:subscription_error" and self.broken == "closes-on-refusal":
            return "close"
        elif event == "pusher_internal:subscription_succeeded" and message.get("channel") == self.channels[1]:
            self.client_events(ws)
        return None

    def established(self, ws, socket_id):
        first = self.connections == 1
        if first or self.broken != "no-signin-again":
            user_data = json.dumps(USER)
            auth = self.sign(f"{socket_id}::user::{user_data}")
            ws.send(json.dumps({"event": "pusher:signin", "data": {"auth": auth, "user_data": user_data}}))
        if not first and self.broken == "forgets-channels":
            return
        for channel in self.channels:
            data = {"channel": channel}
            if channel.startswith("presence-"):
                data["channel_data"] = json.dumps({"user_id": "alice", "user_info": {"name": "Alice"}})
            if channel.startswith(("private-", "presence-")):
                text = f"{socket_id}:{channel}" + (f":{data['channel_data']}" if "channel_data" in data else "")
                if not (self.broken == "stale-auth" and channel in self.auths):
                    self.auths[channel] = self.sign(text)
                data["auth"] = self.auths[channel]
            ws.send(json.dumps({"event": "pusher:subscribe", "data": data}))
        if first and self.broken == "malformed":
            ws.send("hello, not json")
        if first and self.broken == "public-client-event":
            ws.send(json.dumps({"event": "client-note", "channel": self.channels[0], "data": {}}))

    def client_events(self, ws):
        if self.connections != 1:
            return
        count = 30 if self.broken == "client-event-flood" else 3
        for n in range(count):
            ws.send(json.dumps({"event": "client-note", "channel": self.channels[1], "data": {"n": n}}))
            if self.broken != "client-event-flood":
                time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("key")
    parser.add_argument("secret")
    parser.add_argument("--break", dest="broken", choices=sorted(BREAKS))
    parser.add_argument("--pong-timeout", type=float, default=3.0)
    parser.add_argument("--suffix", default="", help="appended to each channel name (clients that run side by side)")
    args = parser.parse_args()
    url = f"ws://{args.host}:{args.port}/app/{args.key}?protocol=7&client=scripted&version=1"
    client = Client(url, args.key, args.secret, args.broken, args.pong_timeout, args.suffix)
    threading.Thread(target=lambda: (sys.stdin.read(), setattr(client, "stop", True)), daemon=True).start()
    client.run()


if __name__ == "__main__":
    main()
