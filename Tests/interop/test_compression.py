"""permessage-deflate (RFC 7692) with Python's `websockets`, which offers it by default, against pushtop serve."""
import asyncio
import json

import pusher
from websockets.asyncio.client import connect

from conftest import APP_ID, KEY, SECRET, ServeProcess


async def _receive(ws, event, timeout=5):
    """The next message named `event` (others are skipped)."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["event"] == event:
            return message


async def _subscribe_and_receive(server, sdk_trigger):
    url = f"ws://{server.host}:{server.port}/app/{KEY}?protocol=7&client=python-websockets"
    async with connect(url) as ws:
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
        await _receive(ws, "pusher:connection_established")
        await ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": "deflated"}}))
        await _receive(ws, "pusher_internal:subscription_succeeded")
        body = "all the news that fits " * 60
        await asyncio.get_running_loop().run_in_executor(
            None, lambda: sdk_trigger("deflated", "story", {"body": body}))
        story = await _receive(ws, "story")
        assert json.loads(story["data"]) == {"body": body}
        # A client event is sent compressed by websockets: the server must inflate it (a public channel refuses
        # client events with a pusher:error, which proves the message was read).
        await ws.send(json.dumps({"event": "client-note", "channel": "deflated", "data": {"text": body}}))
        error = await _receive(ws, "pusher:error")
        return extensions, error


def test_websockets_negotiates_permessage_deflate_and_events_arrive(server, sdk):
    extensions, error = asyncio.run(_subscribe_and_receive(server, sdk.trigger))
    assert extensions is not None and extensions.startswith("permessage-deflate")
    assert "server_no_context_takeover" in extensions and "client_no_context_takeover" in extensions
    assert "only supported on private and presence channels" in json.dumps(error)


def test_no_compression_flag_declines_the_offer():
    process = ServeProcess("--no-compression")
    try:
        other = pusher.Pusher(app_id=APP_ID, key=KEY, secret=SECRET, host=process.host, port=process.port, ssl=False)
        extensions, _ = asyncio.run(_subscribe_and_receive(process, other.trigger))
        assert extensions is None
    finally:
        assert process.stop() == 0
