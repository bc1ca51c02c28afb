"""TCP proxies for the cluster audit: a round-robin balancer in front of the nodes, and one proxy per node between
it and redis-server that can partition the node (cut its connections and refuse new ones, or silently drop bytes).

All proxies run on one asyncio loop in a background thread; their controls are called from other threads.
"""
import asyncio
import socket
import struct
import threading


class ProxyLoop:
    """One asyncio event loop in a daemon thread, shared by every proxy."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="proxy-loop", daemon=True)
        self.thread.start()

    def run(self, coroutine, timeout=10):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def call(self, function, *args):
        """Runs `function(*args)` on the loop and waits for its result."""
        async def wrapper():
            return function(*args)
        return self.run(wrapper())


def _reset(writer):
    """Closes a connection with a TCP reset (SO_LINGER 0), as a crashed peer or a dropped route would."""
    sock = writer.get_extra_info("socket")
    try:
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    writer.transport.abort()


class _Link:
    def __init__(self, downstream, upstream):
        self.downstream = downstream
        self.upstream = upstream
        self.closed = False

    def close(self, reset=False):
        if self.closed:
            return
        self.closed = True
        for writer in (self.downstream, self.upstream):
            if reset:
                _reset(writer)
            else:
                writer.close()


class Proxy:
    """Listens on 127.0.0.1 (a free port) and forwards each connection to the next backend that accepts it, in
    round-robin order. `origin(client_port)` tells which backend a client's connection went to."""

    def __init__(self, loop, backends, name):
        self.loop = loop
        self.backends = list(backends)
        self.name = name
        self.next = 0
        self.links = set()
        self.origins = {}
        self.refusing = False
        self.dropping = False
        self.accepted = 0
        self.port = loop.run(self._start())

    async def _start(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024)
        return self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader, writer):
        if self.refusing:
            _reset(writer)
            return
        self.accepted += 1
        peer = writer.get_extra_info("peername")
        upstream = None
        for _ in range(len(self.backends)):
            index = self.next
            self.next = (self.next + 1) % len(self.backends)
            try:
                upstream = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.backends[index]), 2)
                break
            except (OSError, asyncio.TimeoutError):
                continue
        if upstream is None or self.refusing:
            if upstream is not None:
                upstream[1].close()
            _reset(writer)
            return
        up_reader, up_writer = upstream
        self.origins[peer[1]] = index
        link = _Link(writer, up_writer)
        self.links.add(link)
        try:
            await asyncio.gather(self._pump(reader, up_writer, link), self._pump(up_reader, writer, link))
        finally:
            self.links.discard(link)

    async def _pump(self, reader, writer, link):
        try:
            while not link.closed:
                data = await reader.read(65536)
                if not data:
                    break
                if self.dropping:
                    continue
                writer.write(data)
                await writer.drain()
        except (OSError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            link.close()

    def origin(self, client_port):
        """The index of the backend the connection from `client_port` was forwarded to (None if unknown)."""
        return self.loop.call(self.origins.get, client_port)

    def cut_all(self):
        def cut():
            for link in list(self.links):
                link.close(reset=True)
        self.loop.call(cut)

    def partition(self, mode="cut"):
        """`cut`: resets every connection and refuses new ones. `drop`: connections stay open but nothing is
        forwarded either way (a silent network), and new connections are accepted and go nowhere."""
        if mode == "cut":
            self.refusing = True
            self.cut_all()
        else:
            self.dropping = True

    def heal(self):
        """Ends a partition. After `drop`, the streams lost bytes: their connections are reset (the peers
        reconnect), as a real route coming back after the peers' timeouts would leave them."""
        if self.dropping:
            self.cut_all()
        self.dropping = False
        self.refusing = False

    def close(self):
        async def stop():
            self.refusing = True
            self.server.close()
            for link in list(self.links):
                link.close(reset=True)
        self.loop.run(stop())
