"""The cluster under audit: a redis-server, and N `pushtop serve --redis` nodes, each reaching Redis through its
own partitionable proxy, all behind one round-robin balancer."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

from proxy import Proxy


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


class RedisServer:
    def __init__(self, workdir):
        self.port = free_port()
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for(self._answers, 10):
            raise RuntimeError(f"redis-server did not start on port {self.port}")

    def _answers(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self):
        self.process.kill()
        self.process.wait()


class Node:
    """One `pushtop serve --redis` process (the real binary), on a fixed port across restarts."""

    def __init__(self, index, binary, redis_proxy, prefix, node_timeout, workdir, extra_args=()):
        self.index = index
        self.binary = binary
        self.redis_proxy = redis_proxy
        self.prefix = prefix
        self.node_timeout = node_timeout
        self.port = free_port()
        self.node_id = f"audit-{index}"
        self.log_path = os.path.join(workdir, f"node-{index}.log")
        self.extra_args = list(extra_args)
        self.process = None
        self.starts = 0

    def start(self):
        self.starts += 1
        log = open(self.log_path, "a")
        log.write(f"--- start {self.starts} at {time.time():.3f}\n")
        log.flush()
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--redis", f"redis://127.0.0.1:{self.redis_proxy.port}",
             "--node-id", self.node_id, "--redis-prefix", self.prefix, "--node-timeout", str(self.node_timeout),
             "--log-level", "info", *self.extra_args],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def health(self):
        """The /health body (a dict), or None when the node does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as response:
                return json.loads(response.read())
        except Exception as error:  # noqa: BLE001 (any failure: not healthy)
            body = getattr(error, "read", None)
            if body:
                try:
                    return json.loads(body())
                except Exception:  # noqa: BLE001
                    return None
            return None

    def wait_ready(self, timeout=30):
        """Waits until /health says the node serves with Redis up; returns the time it did."""
        if not wait_for(lambda: (self.health() or {}).get("redis") == "up", timeout):
            raise RuntimeError(f"node {self.node_id} not ready within {timeout} s (log: {self.log_path})")
        return time.time()

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Cluster:
    def __init__(self, loop, binary, nodes, node_timeout, workdir, extra_args=()):
        self.redis = RedisServer(workdir)
        self.prefix = f"audit{os.getpid()}"
        self.redis_proxies = [Proxy(loop, [self.redis.port], f"redis-{i}") for i in range(nodes)]
        self.nodes = [Node(i, binary, self.redis_proxies[i], self.prefix, node_timeout, workdir, extra_args)
                      for i in range(nodes)]
        for node in self.nodes:
            node.start()
        for node in self.nodes:
            node.wait_ready()
        self.balancer = Proxy(loop, [node.port for node in self.nodes], "balancer")

    def stop(self):
        """Stops everything, each part even when another fails (nothing is left running)."""
        for part in [self.balancer.close, *[n.stop for n in self.nodes], *[p.close for p in self.redis_proxies],
                     self.redis.stop]:
            try:
                part()
            except Exception:  # noqa: BLE001
                pass
