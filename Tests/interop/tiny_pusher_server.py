"""A minimal Pusher-protocol server that is not pushtop (Python's `websockets`), as an upstream for
`pushtop conform --client`: it greets with `pusher:connection_established`, checks private and presence
signatures with the app's secret, confirms subscriptions, answers `pusher:ping` and `pusher:signin`, and relays
client events to the channel's other members.

    python3 tiny_pusher_server.py KEY SECRET     # prints "listening on PORT", then serves until killed
"""
import asyncio
import hashlib
import hmac
import itertools
import json
import sys

import websockets

KEY, SECRET = sys.argv[1], sys.argv[2]
ids = itertools.count(1)
members = {}  # channel -> set of sockets


def signed(text):
    return f"{KEY}:" + hmac.new(SECRET.encode(), text.encode(), hashlib.sha256).hexdigest()


async def send(ws, event, data, channel=None):
    message = {"event": event, "data": json.dumps(data)}
    if channel:
        message["channel"] = channel
    await ws.send(json.dumps(message))


async def subscribe(ws, socket_id, data):
    channel = data.get("channel", "")
    text = f"{socket_id}:{channel}" + (f":{data['channel_data']}" if channel.startswith("presence-") else "")
    if channel.startswith(("private-", "presence-")) and data.get("auth") != signed(text):
        await send(ws, "pusher:subscription_error", {"type": "AuthError", "status": 401}, channel)
        return
    members.setdefault(channel, set()).add(ws)
    payload = {}
    if channel.startswith("presence-"):
        user = json.loads(data["channel_data"])
        payload = {"presence": {"ids": [user["user_id"]], "hash": {user["user_id"]: user.get("user_info")}, "count": 1}}
    await send(ws, "pusher_internal:subscription_succeeded", payload, channel)


async def handle(ws):
    if ws.request.path.split("?")[0] != f"/app/{KEY}":
        await ws.close(4001, "App key not in use")
        return
    socket_id = f"{next(ids)}.{next(ids)}"
    await send(ws, "pusher:connection_established", {"socket_id": socket_id, "activity_timeout": 120})
    try:
        async for text in ws:
            message = json.loads(text)
            event, data = message.get("event"), message.get("data") or {}
            if event == "pusher:ping":
                await send(ws, "pusher:pong", {})
            elif event == "pusher:subscribe":
                await subscribe(ws, socket_id, data)
            elif event == "pusher:unsubscribe":
                members.get(data.get("channel"), set()).discard(ws)
            elif event == "pusher:signin":
                ok = data.get("auth") == signed(f"{socket_id}::user::{data.get('user_data')}")
                await send(ws, "pusher:signin_success" if ok else "pusher:error", {"user_data": data.get("user_data")})
            elif event.startswith("client-"):
                for other in members.get(message.get("channel"), set()) - {ws}:
                    await other.send(text)
    except websockets.ConnectionClosed:
        pass
    finally:
        for channel in members.values():
            channel.discard(ws)


async def main():
    async with websockets.serve(handle, "127.0.0.1", 0) as server:
        print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
        await asyncio.Future()


asyncio.run(main())
