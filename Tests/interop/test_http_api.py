"""The official Pusher server SDK (`pusher` on PyPI) against pushtop serve, with pysher as the receiver."""
import json

import pusher
import pytest
from pusher.errors import PusherBadAuth, PusherBadRequest, PusherBadStatus

from conftest import APP_ID, KEY, SECRET, subscribe, wait_for


def test_trigger_to_one_channel_reaches_a_pysher_subscriber(sdk, clients):
    client = clients()
    subscribe(client, "ticker")
    assert sdk.trigger("ticker", "price-update", {"symbol": "BTC", "price": 64000.5}) == {}
    data = client.recorder.wait("ticker", "price-update")[0]
    assert isinstance(data, str), "Pusher sends data as a JSON-encoded string"
    assert json.loads(data) == {"symbol": "BTC", "price": 64000.5}


def test_trigger_to_several_channels(sdk, clients):
    client = clients()
    subscribe(client, "multi-a")
    subscribe(client, "multi-b")
    sdk.trigger(["multi-a", "multi-b"], "news", "plain text")
    assert client.recorder.wait("multi-a", "news") == ["plain text"]
    assert client.recorder.wait("multi-b", "news") == ["plain text"]


def test_trigger_batch(sdk, clients):
    client = clients()
    subscribe(client, "batch-a")
    subscribe(client, "batch-b")
    sdk.trigger_batch([
        {"channel": "batch-a", "name": "first", "data": {"n": 1}},
        {"channel": "batch-b", "name": "second", "data": {"n": 2}},
    ])
    assert json.loads(client.recorder.wait("batch-a", "first")[0]) == {"n": 1}
    assert json.loads(client.recorder.wait("batch-b", "second")[0]) == {"n": 2}


def test_trigger_batch_over_ten_events_is_refused(sdk):
    batch = [{"channel": "batch-x", "name": f"e{i}", "data": {}} for i in range(11)]
    with pytest.raises(PusherBadRequest, match="limit is 10"):
        sdk.trigger_batch(batch)


def test_trigger_excludes_the_given_socket(sdk, clients):
    sender, other = clients(), clients()
    subscribe(sender, "excl")
    subscribe(other, "excl")
    sdk.trigger("excl", "update", {"v": 1}, socket_id=sender.connection.socket_id)
    other.recorder.wait("excl", "update")
    # A later event reaches the sender, so the first one would have arrived before it.
    sdk.trigger("excl", "sentinel", {})
    sender.recorder.wait("excl", "sentinel")
    assert sender.recorder.named("excl", "update") == []


def test_channels_info_channel_info_and_users(sdk, clients):
    alice = clients(user="alice")
    subscribe(alice, "presence-info")
    subscribe(alice, "info-public")
    listing = sdk.channels_info(prefix_filter="presence-", attributes=["user_count"])
    assert listing["channels"]["presence-info"] == {"user_count": 1}
    everything = sdk.channels_info()
    assert {"presence-info", "info-public"} <= set(everything["channels"])

    info = sdk.channel_info("info-public", ["subscription_count"])
    assert info == {"occupied": True, "subscription_count": 1}
    assert sdk.channel_info("nobody-here") == {"occupied": False}
    assert sdk.users_info("presence-info") == {"users": [{"id": "alice"}]}


def test_user_count_needs_the_presence_prefix(sdk):
    with pytest.raises(PusherBadRequest, match="presence-"):
        sdk.channels_info(attributes=["user_count"])


def test_wrong_secret_is_refused_with_401(server):
    client = pusher.Pusher(app_id=APP_ID, key=KEY, secret="not-the-secret", host=server.host, port=server.port,
                           ssl=False)
    with pytest.raises(PusherBadAuth, match="Invalid signature"):
        client.trigger("c", "e", {})
    with pytest.raises(PusherBadAuth):
        client.channels_info()


def test_wrong_key_is_refused_with_401(server):
    client = pusher.Pusher(app_id=APP_ID, key="other-key", secret=SECRET, host=server.host, port=server.port,
                           ssl=False)
    with pytest.raises(PusherBadAuth, match="auth_key"):
        client.trigger("c", "e", {})


def test_unknown_app_id_is_404(server):
    client = pusher.Pusher(app_id="9999", key=KEY, secret=SECRET, host=server.host, port=server.port, ssl=False)
    with pytest.raises(PusherBadStatus, match="404"):
        client.trigger("c", "e", {})


def test_event_data_over_10kb_is_refused_with_413(sdk):
    with pytest.raises(PusherBadStatus, match="413"):
        sdk.trigger("c", "e", "x" * 20000)
    assert sdk.trigger("c", "e", "x" * 10000) == {}


def test_invalid_channel_name_is_refused_by_the_server(sdk):
    # The SDK refuses to build such a request, so sign one with its own Request class to reach the server's check.
    from pusher.http import Request
    client = sdk._pusher_client
    forged = Request(client, "POST", f"/apps/{APP_ID}/events", {"name": "e", "channels": ["bad channel!"], "data": "{}"})
    with pytest.raises(PusherBadRequest, match="invalid channel"):
        client.http.send_request(forged)
