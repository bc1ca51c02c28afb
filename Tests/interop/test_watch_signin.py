"""`pushtop watch --sign-in` against `pushtop serve`: the lines a script reads for sign-in, events sent to the
user and watchlist changes. The app's user-auth endpoint signs with the official SDK's `authenticate_user`."""
import json
import queue
import subprocess
import threading
from urllib.parse import parse_qs

import pytest

from conftest import BIN, KEY, SECRET, LoopbackHTTPServer, QuietHandler
from test_users import RawClient


class UserAuthEndpoint(LoopbackHTTPServer):
    """An app's /pusher/user-auth: signs the user named by the form's user_id, watching `watchlist`."""

    def __init__(self, sdk, watchlist=(), status=200):
        class Handler(QuietHandler):
            def do_POST(self):
                form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
                body = b"go away"
                if status == 200:
                    user = {"id": form["user_id"][0], "watchlist": list(watchlist)}
                    body = json.dumps(sdk.authenticate_user(form["socket_id"][0], user)).encode()
                self.reply(status, body)

        self.serve(Handler, "/pusher/user-auth")


class Watch:
    """`pushtop watch` as a process; its stdout lines parsed as they come."""

    def __init__(self, server, *args):
        self.proc = subprocess.Popen(
            [BIN, "watch", "--host", server.host, "--port", str(server.port), "--no-tls", "--key", KEY, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def next(self, type_, timeout=10):
        """The next line of this type (lines of other types are skipped)."""
        while True:
            line = self.lines.get(timeout=timeout)
            assert list(line)[0] == "type", "type comes first"
            if line["type"] == type_:
                return line

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(10) == 0


def test_watch_signs_in_through_the_apps_endpoint_and_prints_user_events_and_watchlist(server, sdk):
    endpoint = UserAuthEndpoint(sdk, watchlist=["xavier"])
    watch = Watch(server, "--user-auth-endpoint", endpoint.url, "--sign-in", "--user-id", "wanda")
    try:
        signin = watch.next("signin")
        assert signin == {"type": "signin", "user_id": "wanda", "user_data": {"id": "wanda", "watchlist": ["xavier"]}}
        # send_to_user can only reach wanda once her user channel is subscribed: retry until it does.
        for attempt in range(50):
            sdk.send_to_user("wanda", "reminder", {"n": attempt})
            try:
                event = watch.next("user_event", timeout=0.2)
                break
            except queue.Empty:
                continue
        else:
            pytest.fail("no user_event line")
        assert event["user_id"] == "wanda" and event["event"] == "reminder" and "n" in event["data"]
        xavier = RawClient(server)
        xavier.sign_in(sdk, {"id": "xavier"})
        assert watch.next("watchlist") == {"type": "watchlist", "status": "online", "user_ids": ["xavier"]}
        xavier.close()
        assert watch.next("watchlist") == {"type": "watchlist", "status": "offline", "user_ids": ["xavier"]}
    finally:
        watch.stop()
        endpoint.close()


def test_watch_signs_in_locally_with_the_secret(server):
    watch = Watch(server, "--secret", SECRET, "--sign-in", "--user-id", "zoe", "--user-info", '{"name":"Zoe"}')
    try:
        assert watch.next("signin")["user_data"] == {"id": "zoe", "user_info": {"name": "Zoe"}}
    finally:
        watch.stop()


def test_watch_prints_a_refused_sign_in_and_stays_connected(server, sdk):
    endpoint = UserAuthEndpoint(sdk, status=403)
    watch = Watch(server, "--user-auth-endpoint", endpoint.url, "--sign-in", "--user-id", "yuri", "news")
    try:
        error = watch.next("signin_error")
        assert error["status"] == 403 and "go away" in error["message"]
        assert watch.next("subscribed")["channel"] == "news"
    finally:
        watch.stop()
        endpoint.close()
