// A pusher-js subscriber for compare_clients.py (same protocol as pysher_consumer.py): prints "ready" once
// subscribed, answers "count" on stdin with {"count":N}, and prints a JSON summary when stdin closes.
// pusher-js is not part of this repository: pass the path of its Node build (dist/node/pusher.js of its
// public repository, 8.6 measured) as the first argument.
const [lib, host, port, key, channel] = process.argv.slice(2);
const Pusher = require(lib);
const pusher = new Pusher(key, {
  cluster: "local", wsHost: host, wsPort: Number(port), forceTLS: false, enabledTransports: ["ws"],
  disableStats: true,
});
let count = 0;
const latencies = [];
const ch = pusher.subscribe(channel);
ch.bind("pusher:subscription_succeeded", () => process.stdout.write("ready\n"));
ch.bind("bench", (data) => {
  count += 1;
  if (data && typeof data.t === "number" && latencies.length < 2000000) latencies.push(Date.now() * 1000 - data.t);
});
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let i;
  while ((i = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, i).trim();
    pending = pending.slice(i + 1);
    if (line === "count") process.stdout.write(JSON.stringify({ count }) + "\n");
  }
});
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify({ count, latencies_us: latencies }) + "\n", () => process.exit(0));
});
