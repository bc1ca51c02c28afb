"""pysher (protocol 6) against pushtop serve: subscriptions, auth, presence, client events, errors."""
import json
import time

from conftest import KEY, subscribe, wait_for


def test_connection_established_gives_a_socket_id(clients):
    client = clients()
    first, second = client.connection.socket_id.split(".")
    assert first.isdigit() and second.isdigit()


def test_public_subscription(clients):
    client = clients()
    assert json.loads(subscribe(client, "public-news")) == {}


def test_private_subscription_signed_by_the_official_sdk(clients, sdk):
    client = clients()
    subscribe(client, "private-orders")
    sdk.trigger("private-orders", "created", {"id": 7})
    assert json.loads(client.recorder.wait("private-orders", "created")[0]) == {"id": 7}


def test_private_subscription_with_a_bad_signature_is_refused(server, clients):
    client = clients(auth_endpoint=None, secret="wrong-secret")
    client.subscribe("private-vault")
    error = client.recorder.wait(None, "pusher:error")[0]
    assert error["code"] is None
    assert error["message"].startswith("Invalid signature")
    refusal = json.loads(client.recorder.wait("private-vault", "pusher:subscription_error")[0])
    assert refusal["status"] == 401
    assert client.recorder.named("private-vault", "pusher_internal:subscription_succeeded") == []


def test_presence_roster_and_member_join_and_leave(clients):
    alice = clients(user="alice", user_info={"name": "Alice", "role": "lead"})
    roster = json.loads(subscribe(alice, "presence-room"))["presence"]
    assert roster == {"ids": ["alice"], "hash": {"alice": {"name": "Alice", "role": "lead"}}, "count": 1}

    bob = clients(user="bob")
    roster = json.loads(subscribe(bob, "presence-room"))["presence"]
    assert roster["count"] == 2 and set(roster["ids"]) == {"alice", "bob"}
    added = json.loads(alice.recorder.wait("presence-room", "pusher_internal:member_added")[0])
    assert added == {"user_id": "bob", "user_info": {"name": "Bob"}}

    bob.disconnect(timeout=2)
    removed = json.loads(alice.recorder.wait("presence-room", "pusher_internal:member_removed")[0])
    assert removed == {"user_id": "bob"}


def test_client_events_between_two_pysher_clients(clients):
    alice, bob = clients(user="alice"), clients(user="bob")
    subscribe(alice, "presence-chat")
    subscribe(bob, "presence-chat")
    alice.channel("presence-chat").trigger("client-typing", {"typing": True})
    data = bob.recorder.wait("presence-chat", "client-typing")[0]
    assert json.loads(data) == {"typing": True}
    # Not echoed to the sender.
    bob.channel("presence-chat").trigger("client-typing", {"typing": False})
    alice.recorder.wait("presence-chat", "client-typing")
    assert [json.loads(d) for d in alice.recorder.named("presence-chat", "client-typing")] == [{"typing": False}]


def test_client_events_on_private_channels(clients):
    a, b = clients(), clients()
    subscribe(a, "private-pair")
    subscribe(b, "private-pair")
    a.channel("private-pair").trigger("client-ping", {"n": 1})
    assert json.loads(b.recorder.wait("private-pair", "client-ping")[0]) == {"n": 1}


def test_client_event_rate_limit_sends_4301(clients):
    a, b = clients(), clients()
    subscribe(a, "private-burst")
    subscribe(b, "private-burst")
    for i in range(15):
        a.channel("private-burst").trigger("client-n", {"i": i})
    error = wait_for(lambda: [e for e in a.recorder.named(None, "pusher:error") if e.get("code") == 4301],
                     what="a 4301 error")[0]
    assert "rate limit" in error["message"]
    b.recorder.wait("private-burst", "client-n", count=10)
    time.sleep(0.2)
    assert len(b.recorder.named("private-burst", "client-n")) <= 11


def test_unknown_app_key_gets_4001(clients):
    client = clients(key="no-such-key", wait=False)
    error = wait_for(lambda: client.recorder.named(None, "pusher:error"), what="pusher:error")[0]
    assert error["code"] == 4001
    wait_for(lambda: client.connection.state in ("disconnected", "failed"), what="the server to close")


def test_the_demo_auth_endpoint_signs_for_pysher(server, clients):
    client = clients(auth_endpoint=f"http://{server.host}:{server.port}/pusher/auth")
    subscribe(client, "private-demo")


def raw_refusal(server, path):
    """Connects with websocket-client directly and returns (frames before the close, close code)."""
    import websocket
    ws = websocket.create_connection(f"ws://{server.host}:{server.port}{path}", timeout=5)
    frames = []
    try:
        while True:
            opcode, data = ws.recv_data()
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                return frames, int.from_bytes(data[:2], "big")
            frames.append(json.loads(data))
    finally:
        ws.close()


def test_refusals_send_pusher_error_then_close_with_the_same_code(server):
    cases = [
        (f"/app/wrong-key?protocol=7", 4001),
        (f"/app/{KEY}?protocol=4", 4007),
        (f"/app/{KEY}?protocol=seven", 4006),
        (f"/app/{KEY}", 4008),
    ]
    for path, code in cases:
        frames, close_code = raw_refusal(server, path)
        assert close_code == code, path
        assert [f["event"] for f in frames] == ["pusher:error"], path
        assert frames[0]["data"]["code"] == code
