import socket, sys, time, subprocess, os
port=int(sys.argv[1]); pid=int(sys.argv[2]); n=int(sys.argv[3]); every=int(sys.argv[4])
def rss():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1])
req=(f"GET /app/pushtop-key?protocol=7 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
close=bytes([0x88,0x82,1,2,3,4,0x03^1,0xE8^2])
t=time.time()
for i in range(n):
    s=socket.create_connection(("127.0.0.1",port))
    s.sendall(req)
    buf=b""
    while b"connection_established" not in buf:
        d=s.recv(4096)
        if not d: break
        buf+=d
    s.sendall(close)
    while True:
        d=s.recv(4096)
        if not d: break
    s.close()
    if (i+1)%every==0: print(i+1, rss(), round(time.time()-t,1), flush=True)
