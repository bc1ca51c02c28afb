"""pysher, a client nobody here wrote, through the real `pushtop proxy` binary in front of `pushtop serve`: it
subscribes, receives, sends client events and sees presence as it does directly; and its reaction to the proxy's
faults, injected through the proxy's signed control endpoint (`POST /apps/{id}/proxy/faults`): a close with 4200
(it reconnects and resubscribes), a refused subscription (it sees the subscription error), a dropped event (it
never arrives, the next one does).

`post_fault` is shared with test_proxy_pusherjs.py.
"""
import hashlib
import hmac
import json
import time
import urllib.parse
import urllib.request

import pusher
import pysher
import pytest

from conftest import APP_ID, KEY, SECRET, ProxyProcess, Recorder, wait_for


def signed_url(host, port, method, path, body=b"", params=None):
    """A URL signed the way Pusher's HTTP API is (auth_key, auth_timestamp, auth_version, body_md5, auth_signature)."""
    query = dict(params or {})
    query.update(auth_key=KEY, auth_timestamp=str(int(time.time())), auth_version="1.0")
    if body:
        query["body_md5"] = hashlib.md5(body).hexdigest()
    to_sign = "&".join(f"{k}={query[k]}" for k in sorted(query))
    query["auth_signature"] = hmac.new(SECRET.encode(), f"{method}\n{path}\n{to_sign}".encode(),
                                       hashlib.sha256).hexdigest()
    return f"http://{host}:{port}{path}?" + urllib.parse.urlencode(query)


def post_fault(proxy, rule):
    """Adds a fault rule through the proxy's control endpoint; returns its JSON answer (id, rule)."""
    body = json.dumps({"rule": rule}).encode()
    path = f"/apps/{APP_ID}/proxy/faults"
    request = urllib.request.Request(signed_url(proxy.host, proxy.port, "POST", path, body), data=body,
                                     method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 201, response.status
        return json.loads(response.read())


@pytest.fixture(scope="module")
def proxy(server):
    process = ProxyProcess(server)
    yield process
    assert process.stop() == 0, "\n".join(process.stderr_lines[-20:])


@pytest.fixture
def proxied(proxy, auth_endpoint):
    """Makes pysher clients connected through the proxy (auto_sub: they resubscribe after a reconnection)."""
    made = []

    def make(user=None):
        headers = {}
        user_data = None
        if user is not None:
            user_data = {"user_id": user, "user_info": {"name": user.title()}}
            auth_endpoint.users[user] = user_data
            headers["X-User"] = user
        client = pysher.Pusher(KEY, custom_host=proxy.host, port=proxy.port, secure=False,
                               auth_endpoint=auth_endpoint.url, auth_endpoint_headers=headers, user_data=user_data,
                               reconnect_interval=1, auto_sub=True)
        client.recorder = Recorder(client)
        client.connect()
        made.append(client)
        wait_for(lambda: client.connection.state == "connected" and client.connection.socket_id,
                 what="pysher to connect through the proxy")
        return client

    yield make
    for client in made:
        client.disconnect(timeout=0.2)


@pytest.fixture
def sdk_via_proxy(proxy):
    """The official server SDK publishing through the proxy (its HTTP API passes through to serve)."""
    return pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=proxy.host, port=proxy.port, ssl=False)


def subscribed(client, channel, count=1, timeout=5):
    return client.recorder.wait(channel, "pusher_internal:subscription_succeeded", count=count, timeout=timeout)


def test_pysher_through_the_proxy_subscribes_receives_sends_client_events_and_sees_presence(
        proxied, sdk_via_proxy, sdk):
    alice = proxied("alice")
    alice.subscribe("presence-proxy-room")
    first = json.loads(subscribed(alice, "presence-proxy-room")[0])
    assert first["presence"]["ids"] == ["alice"]
    bob = proxied("bob")
    bob.subscribe("presence-proxy-room")
    second = json.loads(subscribed(bob, "presence-proxy-room")[0])
    assert sorted(second["presence"]["ids"]) == ["alice", "bob"]
    added = json.loads(alice.recorder.wait("presence-proxy-room", "pusher_internal:member_added")[0])
    assert added["user_id"] == "bob"
    # The server sees the sockets the clients see: the upstream's socket ids pass through unchanged.
    users = sdk.users_info("presence-proxy-room")
    assert sorted(u["id"] for u in users["users"]) == ["alice", "bob"]

    # A publish through the proxy's HTTP API reaches both, with its data unchanged.
    sdk_via_proxy.trigger("presence-proxy-room", "news", {"text": "héllo ✓", "n": 1})
    for client in (alice, bob):
        data = client.recorder.wait("presence-proxy-room", "news")[0]
        assert json.loads(data) == {"text": "héllo ✓", "n": 1}

    # A client event from bob reaches alice (and not bob), with bob's user id.
    bob.channels["presence-proxy-room"].trigger("client-wave", {"from": "bob"})
    wave = alice.recorder.wait("presence-proxy-room", "client-wave")[0]
    assert json.loads(wave) == {"from": "bob"}
    # The sender gets no echo: a publish after the client event reaches bob, and the wave did not before it.
    sdk_via_proxy.trigger("presence-proxy-room", "marker", {})
    bob.recorder.wait("presence-proxy-room", "marker")
    assert not bob.recorder.named("presence-proxy-room", "client-wave")

    bob.disconnect(timeout=0.2)
    removed = json.loads(alice.recorder.wait("presence-proxy-room", "pusher_internal:member_removed")[0])
    assert removed["user_id"] == "bob"


def test_a_close_with_4200_makes_pysher_reconnect_and_resubscribe(proxied, proxy, sdk_via_proxy):
    client = proxied()
    client.subscribe("proxy-4200")
    subscribed(client, "proxy-4200")
    before = client.connection.socket_id
    answer = post_fault(proxy, f"close:4200,socket={before},times=1")
    assert answer["rule"] == f"close:4200,socket={before},times=1"
    # pysher reconnects (a new socket id) and, with auto_sub, subscribes again.
    wait_for(lambda: client.connection.socket_id not in (None, before) and client.connection.state == "connected",
             timeout=10, what="pysher to reconnect after 4200")
    subscribed(client, "proxy-4200", count=2, timeout=10)
    sdk_via_proxy.trigger("proxy-4200", "after", {"back": True})
    assert json.loads(client.recorder.wait("proxy-4200", "after")[0]) == {"back": True}


def test_a_refused_subscription_reaches_pysher_as_a_subscription_error(proxied, proxy):
    post_fault(proxy, "refuse-subscribe:1,channel=private-proxy-refused")
    client = proxied()
    client.subscribe("private-proxy-refused")
    client.recorder.wait("private-proxy-refused", "pusher:subscription_error")
    assert not client.recorder.named("private-proxy-refused", "pusher_internal:subscription_succeeded")
    # Only the next one was refused: another private channel subscribes.
    client.subscribe("private-proxy-other")
    subscribed(client, "private-proxy-other")


def test_a_dropped_event_never_reaches_pysher_and_the_next_one_does(proxied, proxy, sdk_via_proxy):
    post_fault(proxy, "drop,channel=proxy-drops,event=lost")
    client = proxied()
    client.subscribe("proxy-drops")
    subscribed(client, "proxy-drops")
    sdk_via_proxy.trigger("proxy-drops", "lost", {"n": 1})
    sdk_via_proxy.trigger("proxy-drops", "kept", {"n": 2})
    assert json.loads(client.recorder.wait("proxy-drops", "kept")[0]) == {"n": 2}
    assert not client.recorder.named("proxy-drops", "lost")
