"""The official pusher-js client (its Node build) against pushtop serve: an app that signs users in, receives
events sent to its user, watches friends' presence, joins a presence channel and exchanges client events,
unchanged from how it runs against Pusher.

pusher-js is not in this repository (and no npm registry is reachable on CI): set PUSHER_JS to the path of
dist/node/pusher.js from its public repository to run these tests; without it they are skipped.
"""
import json
import os
import shutil
import subprocess
import threading

import pusher
import pytest

from conftest import APP_ID, KEY, SECRET, wait_for

PUSHER_JS = os.environ.get("PUSHER_JS")
pytestmark = pytest.mark.skipif(not PUSHER_JS or not shutil.which("node"),
                                reason="set PUSHER_JS to pusher-js's dist/node/pusher.js (and have node)")
APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pusherjs_app.js")


class PusherJSApp:
    def __init__(self, server, user_id, watchlist=""):
        self.lines = []
        self.proc = subprocess.Popen(
            ["node", APP, os.path.abspath(PUSHER_JS), server.host, str(server.port), KEY, user_id, watchlist],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))

    def seen(self, **fields):
        return [l for l in self.lines if all(l.get(k) == v for k, v in fields.items())]

    def wait(self, timeout=10, **fields):
        return wait_for(lambda: self.seen(**fields), timeout=timeout, what=f"pusher-js line {fields}; saw {self.lines}")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(10)


def test_a_pusherjs_app_signs_in_gets_user_events_watchlist_presence_and_client_events(server):
    sdk = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=server.host, port=server.port, ssl=False)
    alice = PusherJSApp(server, "alice", "bob")
    alice.wait(type="signed_in", id="alice")
    alice.wait(type="subscribed", me="alice")
    bob = PusherJSApp(server, "bob")
    bob.wait(type="signed_in", id="bob")
    online = alice.wait(type="watchlist", name="online")
    assert any("bob" in l["user_ids"] for l in online)
    alice.wait(type="member_added", id="bob")

    sdk.send_to_user("alice", "greeting", {"text": "hello alice"})
    event = alice.wait(type="user_event")[0]
    assert event["data"] == {"text": "hello alice"}
    assert not bob.seen(type="user_event"), "events to a user go to that user only"

    sdk.trigger("presence-room", "news", {"n": 1})
    alice.wait(type="event")
    bob.wait(type="event")
    bob.send("wave")
    wave = alice.wait(type="client_event")[0]
    assert wave["data"] == {"from": "bob"} and wave["user_id"] == "bob"

    bob.stop()
    offline = alice.wait(type="watchlist", name="offline")
    assert any("bob" in l["user_ids"] for l in offline)
    alice.stop()
