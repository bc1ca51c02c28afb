// A small pusher-js app for test_pusherjs.py: it does what a browser app does with pusher-js 8 (sign in through
// the user-authentication endpoint, watch friends' presence, receive events sent to its user, join a presence
// channel, send and receive client events) and prints what it sees as JSON lines on stdout.
// pusher-js is not part of this repository: the first argument is the path of its Node build
// (dist/node/pusher.js of its public repository).
const [lib, host, port, key, userID, watchlist] = process.argv.slice(2);
const Pusher = require(lib);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const base = `http://${host}:${port}`;
const pusher = new Pusher(key, {
  cluster: "local", wsHost: host, wsPort: Number(port), forceTLS: false, enabledTransports: ["ws"],
  disableStats: true,
  userAuthentication: { endpoint: `${base}/pusher/user-auth`, params: { user_id: userID, watchlist } },
  channelAuthorization: { endpoint: `${base}/pusher/auth`, params: { user_id: userID } },
});
pusher.connection.bind("state_change", (s) => say({ type: "state", current: s.current }));
pusher.bind("pusher:signin_success", () => setTimeout(() => say({ type: "signed_in", id: pusher.user.user_data && pusher.user.user_data.id }), 0));
pusher.user.bind("greeting", (data) => say({ type: "user_event", event: "greeting", data }));
pusher.user.watchlist.bind("online", (e) => say({ type: "watchlist", name: "online", user_ids: e.user_ids }));
pusher.user.watchlist.bind("offline", (e) => say({ type: "watchlist", name: "offline", user_ids: e.user_ids }));
pusher.signin();
const room = pusher.subscribe("presence-room");
room.bind("pusher:subscription_succeeded", (members) => say({ type: "subscribed", me: members.me.id, count: members.count }));
room.bind("pusher:subscription_error", (e) => say({ type: "subscription_error", error: e }));
room.bind("pusher:member_added", (m) => say({ type: "member_added", id: m.id }));
room.bind("client-wave", (data, meta) => say({ type: "client_event", data, user_id: meta && meta.user_id }));
room.bind("news", (data) => say({ type: "event", data }));
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  for (const line of chunk.split("\n")) {
    if (line.trim() === "wave") room.trigger("client-wave", { from: userID });
  }
});
process.stdin.on("end", () => { pusher.disconnect(); setTimeout(() => process.exit(0), 200); });
