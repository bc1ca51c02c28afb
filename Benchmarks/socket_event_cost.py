#!/usr/bin/env python3
"""Server CPU per client message (the hub's inbox path: every client frame is a socket event), two builds of
`pushtop serve` alternately.

Each run starts a fresh `serve`, opens CONNECTIONS raw WebSockets, and for SECONDS has each send `pusher:ping` in
bursts of 10 frames per write while reading the pongs; it prints the server's CPU (user + system from /proc) per
message answered.

    python3 Benchmarks/socket_event_cost.py BEFORE_BIN_DIR AFTER_BIN_DIR [--runs 3] [--connections 20] [--seconds 5]
"""
import argparse, base64, os, select, socket, struct, subprocess, time

PING = b'{"event":"pusher:ping","data":{}}'


def frame(payload):
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one(bin_dir, connections, seconds):
    serve = subprocess.Popen([os.path.join(bin_dir, "pushtop"), "serve", "--port", "0", "--log-level", "warning"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = serve.stdout.readline()
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        socks = []
        for _ in range(connections):
            s = socket.create_connection(("127.0.0.1", port))
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(f"GET /app/pushtop-key?protocol=7 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
            buf = b""
            while b"connection_established" not in buf:
                buf += s.recv(4096)
            s.setblocking(False)
            socks.append(s)
        burst = frame(PING) * 10
        pong = b'"pusher:pong"'
        answered = 0
        outstanding = {s: 0 for s in socks}
        start_cpu, start = cpu_seconds(serve.pid), time.monotonic()
        while time.monotonic() - start < seconds:
            for s in socks:
                if outstanding[s] < 20:
                    s.sendall(burst)
                    outstanding[s] += 10
            readable, _, _ = select.select(socks, [], [], 0.05)
            for s in readable:
                n = s.recv(65536).count(pong)
                answered += n
                outstanding[s] -= n
        used = cpu_seconds(serve.pid) - start_cpu
        for s in socks:
            s.close()
        return used * 1e6 / max(answered, 1), answered / seconds
    finally:
        serve.terminate()
        serve.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()
    for _ in range(args.runs):
        for name, bin_dir in (("before", args.before), ("after", args.after)):
            per, rate = one(bin_dir, args.connections, args.seconds)
            load = open("/proc/loadavg").read().split()[0]
            print(f"{name:6}  load {load:>5}  {rate:9.0f} messages/s  {per:6.2f} µs server CPU per message")


if __name__ == "__main__":
    main()
