#!/usr/bin/env python3
"""Instructions (callgrind) of `pushtop watch` for N events published to a release `pushtop serve` (issue 26).

per-frame: `pushtop bench --subscribers 0` at RATE/s (one event per HTTP request, so one per frame and, at a
modest rate, one per read); batch: trigger_batch of 10 as fast as the API takes it. Instructions per event =
(Ir(N) - Ir(0, same SECONDS)) / N. WATCH_BIN: a copy stripped with `strip --strip-debug` (valgrind 3.19).
usage: watch_callgrind.py WATCH_BIN SERVE_BIN N MODE(per-frame|batch) RATE SECONDS OUTPREFIX"""
import os, re, signal, subprocess, sys, time, json
watch_bin, serve_bin, n, mode, rate, seconds, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
server = subprocess.Popen([serve_bin, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
first = server.stdout.readline()
port = int(first.split("ws://127.0.0.1:")[1].split("/")[0])
channel = "cg-%d" % os.getpid()
cgout = prefix + ".cg"
out = open(prefix + ".lines", "w")
watch = subprocess.Popen(["env", "LD_LIBRARY_PATH=" + os.environ.get("CG_LIBS", ""), "valgrind", "--tool=callgrind", "--dump-instr=no", "--callgrind-out-file=" + cgout,
                          watch_bin, "watch", "--key", "pushtop-key", "--host", "127.0.0.1", "--port", str(port), "--no-tls", channel],
                         stdout=out, stderr=open(prefix + ".err", "w"))
deadline = time.time() + 120
while time.time() < deadline:
    time.sleep(0.5)
    if '"type":"subscribed"' in open(prefix + ".lines").read():
        break
else:
    print("never subscribed"); watch.kill(); server.kill(); sys.exit(1)
time.sleep(1)
t0 = time.time()
if n > 0 and mode == "per-frame":
    r = subprocess.run([serve_bin, "bench", "--key", "pushtop-key", "--secret", "pushtop-secret", "--app-id", "1", "--host",
                        "127.0.0.1", "--port", str(port), "--no-tls", "--rate", str(rate), "--duration", str(n / rate),
                        "--subscribers", "0", "--channel", channel, "--payload-bytes", "40", "--json"],
                       capture_output=True, text=True)
    sent = json.loads(r.stdout.strip().splitlines()[-1])["published"]
elif n > 0:
    import pusher
    sdk = pusher.Pusher(app_id="1", key="pushtop-key", secret="pushtop-secret", host="127.0.0.1", port=port, ssl=False)
    for b in range(0, n, 10):
        sdk.trigger_batch([{"channel": channel, "name": "bench", "data": json.dumps({"seq": b + i, "t": int(time.time() * 1e6)})} for i in range(10)])
    sent = n
else:
    sent = 0
rest = seconds - (time.time() - t0)
if rest > 0: time.sleep(rest)
# wait until all lines are in
for _ in range(120):
    got = open(prefix + ".lines").read().count('"type":"event"')
    if got >= sent: break
    time.sleep(1)
watch.send_signal(signal.SIGTERM)
watch.wait(120)
server.terminate(); server.wait(10)
text = open(cgout).read()
m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
# batches: calls to PusherClient.receive
print(json.dumps({"n": n, "sent": sent, "received": got, "mode": mode, "elapsed": round(time.time() - t0, 1), "Ir": int(m.group(1)) if m else None}))
