#!/usr/bin/env bash
# Where the HTTP API's time goes, in instructions (callgrind: repeatable whatever the machine's load): `pushtop serve`
# under valgrind answers N signed `POST /apps/1/events` on one keep-alive connection (the one HTTP API path, on the
# event loop). Prints instructions per request ((total(N) - total(0)) / N) and the functions that cost the most.
#     Benchmarks/http_api_profile.sh [--bin .build/release] [--requests 2000] [--top 25]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
requests=2000
top=25
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --requests) requests="$2"; shift 2 ;;
        --top) top="$2"; shift 2 ;;
        *) echo "usage: $0 [--bin DIR] [--requests N] [--top N]" >&2; exit 64 ;;
    esac
done
command -v valgrind >/dev/null || { echo "$0: needs valgrind" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$bin/pushtop" "$work/pushtop" && strip --strip-debug "$work/pushtop"  # valgrind cannot read its DWARF

# profile NAME N [serve flags...]: total instructions of a serve that answered N requests.
profile() {
    local name="$1" n="$2"; shift 2
    local port
    while port=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do :; done
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.$n.out" "$work/pushtop" serve --port "$port" \
        --log-level error "$@" >/dev/null 2>"$work/$name.$n.err" &
    local pid=$!
    for _ in $(seq 600); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
    python3 - "$port" "$n" <<'PY'
import hashlib, hmac, http.client, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
body = '{"name":"bench","channels":["bench"],"data":"{\\"price\\":101.25,\\"sym\\":\\"ACME\\"}"}'
params = {"auth_key": "pushtop-key", "auth_timestamp": str(int(time.time())), "auth_version": "1.0",
          "body_md5": hashlib.md5(body.encode()).hexdigest()}
query = "&".join(f"{k}={params[k]}" for k in sorted(params))
signature = hmac.new(b"pushtop-secret", f"POST\n/apps/1/events\n{query}".encode(), hashlib.sha256).hexdigest()
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for _ in range(n):
    connection.request("POST", f"/apps/1/events?{query}&auth_signature={signature}", body,
                       {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
PY
    kill -TERM "$pid"; wait "$pid" || true
    callgrind_annotate "$work/$name.$n.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'
}
for path in api; do
    base=$(profile "$path" 0)
    loaded=$(profile "$path" "$requests")
    echo "$path: $(( (loaded - base) / requests )) instructions per request ($requests requests; $base at rest)"
    callgrind_annotate --inclusive=no "$work/$path.$requests.out" 2>/dev/null | sed -n '/^Ir/,$p' | head -n $((top + 2)) | tail -n "$top"
    echo
done
