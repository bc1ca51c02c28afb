"""`pushtop serve --simulate`'s encrypted channel, opened by PyNaCl (libsodium's secretbox, not ours).

The release binary once published every event of `private-encrypted-vault` with an empty ciphertext (a
miscompile of SecretBox.seal, swiftlang/swift#90477); CI runs this suite on the release binary (PUSHTOP_BIN).
"""
import base64
import hashlib
import hmac
import json
import os

import nacl.exceptions
import nacl.secret
import pytest
import websocket

from conftest import KEY, SECRET, ServeProcess

CHANNEL = "private-encrypted-vault"
MASTER_KEY = os.urandom(32)


@pytest.fixture(scope="module")
def simulating():
    process = ServeProcess("--simulate", "--encryption-master-key-base64", base64.b64encode(MASTER_KEY).decode())
    yield process
    assert process.stop() == 0


def subscribe_to_the_vault(server):
    ws = websocket.create_connection(f"ws://{server.host}:{server.port}/app/{KEY}?protocol=7", timeout=10)
    established = json.loads(ws.recv())
    assert established["event"] == "pusher:connection_established"
    socket_id = json.loads(established["data"])["socket_id"]
    signature = hmac.new(SECRET.encode(), f"{socket_id}:{CHANNEL}".encode(), hashlib.sha256).hexdigest()
    ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": CHANNEL, "auth": f"{KEY}:{signature}"}}))
    return ws


def next_event(ws, name):
    while True:
        frame = json.loads(ws.recv())
        if frame.get("event") == name and frame.get("channel") == CHANNEL:
            return frame


def test_every_simulated_secret_opens_with_pynacl(simulating):
    shared = hashlib.sha256(CHANNEL.encode() + MASTER_KEY).digest()
    box = nacl.secret.SecretBox(shared)
    ws = subscribe_to_the_vault(simulating)
    try:
        next_event(ws, "pusher_internal:subscription_succeeded")
        for _ in range(3):  # one every 4 s
            frame = next_event(ws, "secret")
            data = json.loads(frame["data"])
            nonce = base64.b64decode(data["nonce"])
            ciphertext = base64.b64decode(data["ciphertext"])
            assert len(nonce) == 24
            assert len(ciphertext) > 16, f"a box without a message: {data}"
            message = json.loads(box.decrypt(ciphertext, nonce))
            assert message["message"].startswith("vault code "), message
            assert message["from"]
    finally:
        ws.close()


def test_a_wrong_master_key_does_not_open_them(simulating):
    ws = subscribe_to_the_vault(simulating)
    try:
        next_event(ws, "pusher_internal:subscription_succeeded")
        data = json.loads(next_event(ws, "secret")["data"])
        wrong = nacl.secret.SecretBox(hashlib.sha256(CHANNEL.encode() + bytes(32)).digest())
        with pytest.raises(nacl.exceptions.CryptoError):
            wrong.decrypt(base64.b64decode(data["ciphertext"]), base64.b64decode(data["nonce"]))
    finally:
        ws.close()
