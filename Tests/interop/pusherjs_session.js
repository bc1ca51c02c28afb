// A scripted pusher-js session for test_proxy_pusherjs.py: the same steps against `pushtop serve` directly and
// through `pushtop proxy`, printing every frame pusher-js sends and receives (hooked at its
// socket's send and onmessage) as JSON lines {type: "sent"|"recd", frame}, and {type: "done", step} after each step, so the test
// can compare the two sessions frame by frame: each frame's text as the socket carried it.
// Arguments: the path of pusher-js's Node build (dist/node/pusher.js), host, port, app key, user id.
// Steps come on stdin, one a line: subscribe CHANNEL (waits for its subscription_succeeded or _error),
// trigger CHANNEL EVENT JSON (a client event), unsubscribe CHANNEL, wait EVENT (an event of that name to arrive).
const [lib, host, port, key, userID] = process.argv.slice(2);
const Pusher = require(lib);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const base = `http://${host}:${port}`;
// Every frame as it crosses the socket, text unchanged: pusher-js's Node runtime makes its sockets here.
const createWebSocket = Pusher.Runtime.createWebSocket.bind(Pusher.Runtime);
Pusher.Runtime.createWebSocket = (url) => {
  const socket = createWebSocket(url);
  const send = socket.send.bind(socket);
  socket.send = (text) => { say({ type: "sent", frame: String(text) }); return send(text); };
  let handler = null;
  Object.defineProperty(socket, "onmessage", {
    configurable: true,
    get: () => handler && ((event) => { say({ type: "recd", frame: String(event.data) }); return handler(event); }),
    set: (fn) => { handler = fn; },
  });
  return socket;
};
const pusher = new Pusher(key, {
  cluster: "local", wsHost: host, wsPort: Number(port), forceTLS: false, enabledTransports: ["ws"],
  disableStats: true, activityTimeout: 60000,
  channelAuthorization: { endpoint: `${base}/pusher/auth`, params: { user_id: userID } },
});
const seen = [];
pusher.bind_global((event, data) => seen.push(event));
const waitFor = (test, then) => {
  const poll = setInterval(() => { if (test()) { clearInterval(poll); then(); } }, 5);
};
pusher.connection.bind("connected", () => say({ type: "done", step: "connect", socket_id: pusher.connection.socket_id }));
const steps = [];
let busy = false;
const next = () => {
  if (busy || steps.length === 0) return;
  busy = true;
  const line = steps.shift();
  const [verb, a, b, ...rest] = line.split(" ");
  const done = () => { say({ type: "done", step: line }); busy = false; next(); };
  if (verb === "subscribe") {
    const channel = pusher.subscribe(a);
    let answered = false;
    channel.bind("pusher:subscription_succeeded", () => { answered = true; });
    channel.bind("pusher:subscription_error", () => { answered = true; });
    waitFor(() => answered, done);
  } else if (verb === "trigger") {
    pusher.channel(a).trigger(b, JSON.parse(rest.join(" ")));
    done();
  } else if (verb === "unsubscribe") {
    pusher.unsubscribe(a);
    done();
  } else if (verb === "wait") {
    const before = seen.filter((e) => e === a).length;
    waitFor(() => seen.filter((e) => e === a).length > before || seen.includes(a), done);
  } else {
    done();
  }
};
process.stdin.setEncoding("utf8");
let pending = "";
process.stdin.on("data", (chunk) => {
  pending += chunk;
  const lines = pending.split("\n");
  pending = lines.pop();
  for (const line of lines) if (line.trim()) steps.push(line.trim());
  next();
});
process.stdin.on("end", () => { pusher.disconnect(); setTimeout(() => process.exit(0), 300); });
