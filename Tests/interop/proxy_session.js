// A scripted pusher-js session for test_proxy.py, run the same way directly against a server and through
// `pushtop proxy`: two clients (a and b) subscribe to a public and a private channel (authorized through the
// HTTP side of whatever they point at), a sends a client event that b receives, the test publishes events, and
// every message each client receives is printed as a JSON line ({client, event, channel, data}).
// The first argument is the path of pusher-js's Node build (dist/node/pusher.js of its public repository).
const [lib, host, port, key] = process.argv.slice(2);
const Pusher = require(lib);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const make = (name) => {
  const pusher = new Pusher(key, {
    cluster: "local", wsHost: host, wsPort: Number(port), forceTLS: false, enabledTransports: ["ws"],
    disableStats: true, channelAuthorization: { endpoint: `http://${host}:${port}/pusher/auth` },
  });
  pusher.connection.bind("message", (m) => say({ client: name, event: m.event, channel: m.channel, data: m.data }));
  return pusher;
};
const a = make("a");
const b = make("b");
let ready = 0;
const subscribed = () => { if (++ready === 4) say({ client: "a", ready: true }); };
for (const p of [a, b]) {
  p.subscribe("news").bind("pusher:subscription_succeeded", subscribed);
  p.subscribe("private-room").bind("pusher:subscription_succeeded", subscribed);
}
// Done when a has every published event (done comes last) and b has a's client event.
let aDone = false;
let bHello = false;
const finish = () => {
  if (!aDone || !bHello) return;
  say({ client: "b", finished: true });
  a.disconnect();
  b.disconnect();
  setTimeout(() => process.exit(0), 200);
};
a.channel("news").bind("done", () => { aDone = true; finish(); });
b.channel("news").bind("done", () => {
  a.channel("private-room").trigger("client-hello", { text: "h\u00e9llo \u2713", big: "x".repeat(5000) });
});
b.channel("private-room").bind("client-hello", () => { bHello = true; finish(); });
