#!/usr/bin/env bash
# The HTTP API's publish rate and CPU per request: `pushtop serve` (an app without an API rate limit, and an app with
# `api_requests_per_second`, so high that nothing is refused, in an apps file) against nginx answering a static 200 to
# the same request (the floor of an HTTP round trip here), interleaved in one run with the same load (wrk,
# keep-alive, one pre-signed request: the signature stays valid for 600 s). Prints requests/s and CPU µs per request
# of each server (user+system of all its processes, from /proc), with `perf stat`'s context switches and system
# calls per request when perf is installed, then the ratios serve / nginx at each concurrency (the means of that
# concurrency's rounds) and the worst of them: the highest CPU ratio and the lowest rate ratio. A mean over the
# concurrencies would hide the one where serve falls behind. `batch_events` (10 events a request) is measured per
# event.
#     Benchmarks/http_api_vs_nginx.sh [--bin .build/release] [--connections "16 32 64"] [--seconds 10] [--rounds 2] [--quick]
# Needs wrk and nginx (apt-get install wrk nginx-light); perf optional (apt-get install linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
connections="16 32 64"
seconds=10
rounds=2
quick=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --quick) quick=1; shift ;;  # nginx and `serve events` only
        *) echo "usage: $0 [--bin DIR] [--connections \"16 32 64\"] [--seconds N] [--rounds N] [--quick]" >&2; exit 64 ;;
    esac
done
command -v wrk >/dev/null && command -v nginx >/dev/null || { echo "$0: needs wrk and nginx" >&2; exit 2; }
work="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

free_port() {
    local port
    while port=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do :; done
    echo "$port"
}
wait_port() {
    for _ in $(seq 200); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done
    echo "$0: nothing listens on $1" >&2; exit 1
}

fast=$(free_port); "$bin/pushtop" serve --port "$fast" --log-level error >/dev/null 2>&1 & pids+=($!); fast_pids=$!
cat >"$work/apps.toml" <<APPS
[[apps]]
id = "1"
key = "pushtop-key"
secret = "pushtop-secret"
api_requests_per_second = 1000000000
APPS
limited=$(free_port)
"$bin/pushtop" serve --port "$limited" --log-level error --apps-file "$work/apps.toml" >/dev/null 2>&1 & pids+=($!)
limited_pids=$!
floor=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx.conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx/error.log crit;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx;
    proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx; uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
    server {
        listen 127.0.0.1:$floor;
        location / { client_body_buffer_size 64k; default_type application/json; return 200 '{}'; }
    }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
wait_port "$fast"; wait_port "$limited"; wait_port "$floor"
nginx_pids() { echo "$(cat "$work/nginx.pid") $(pgrep -P "$(cat "$work/nginx.pid")" | tr '\n' ' ')"; }
pids+=($(cat "$work/nginx.pid"))

# A pre-signed request: METHOD PATH?QUERY and its body, written as a wrk script.
sign() {  # sign PATH BODY -> query string
    python3 - "$1" "$2" <<'PY'
import hashlib, hmac, sys, time
path, body = sys.argv[1], sys.argv[2]
params = {"auth_key": "pushtop-key", "auth_timestamp": str(int(time.time())), "auth_version": "1.0",
          "body_md5": hashlib.md5(body.encode()).hexdigest()}
query = "&".join(f"{k}={params[k]}" for k in sorted(params))
signature = hmac.new(b"pushtop-secret", f"POST\n{path}\n{query}".encode(), hashlib.sha256).hexdigest()
print(f"{query}&auth_signature={signature}")
PY
}
events_body='{"name":"bench","channels":["bench"],"data":"{\"price\":101.25,\"sym\":\"ACME\"}"}'
batch_body='{"batch":['$(for i in $(seq 10); do printf '%s{"channel":"bench-%s","name":"bench","data":"{\\"n\\":%s}"}' "$([ "$i" -gt 1 ] && echo ,)" "$i" "$i"; done)']}'
script() {  # script NAME PATH BODY
    local query; query=$(sign "$2" "$3")
    python3 - "$work/$1.lua" "$2?$query" "$3" <<'PY'
import json, sys
out, target, body = sys.argv[1:]
open(out, "w").write(f'wrk.method = "POST"\nwrk.body = {json.dumps(body)}\nwrk.headers["Content-Type"] = "application/json"\n'
                     f'request = function() return wrk.format(nil, {json.dumps(target)}) end\n')
PY
}
script events /apps/1/events "$events_body"
script batch /apps/1/batch_events "$batch_body"

ticks() { local total=0; for p in $*; do [ -r "/proc/$p/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$total"; }
hz=$(getconf CLK_TCK)
declare -A rate cpu
perf_ok=$(command -v perf >/dev/null && perf stat -e context-switches -- true >/dev/null 2>&1 && echo 1 || true)
measure() {  # measure NAME PORT PIDS SCRIPT CONNECTIONS PER_REQUEST
    local before after out requests stat=""
    before=$(ticks $3)
    if [ -n "$perf_ok" ]; then
        # Every thread of the server's processes, for the whole window of the load.
        perf stat -x, -e context-switches,raw_syscalls:sys_enter -p "$(echo $3 | tr ' ' ',')" -o "$work/perf.txt" \
            -- sleep "$seconds" 2>/dev/null & stat=$!
    fi
    out=$(wrk -t"$(( $5 < 2 ? $5 : 2 ))" -c"$5" -d"${seconds}s" -s "$work/$4.lua" "http://127.0.0.1:$2" 2>&1)
    after=$(ticks $3)
    [ -n "$stat" ] && wait "$stat"
    requests=$(echo "$out" | awk '/requests in/ {print $1}')
    local non2xx; non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
    [ -n "$non2xx" ] && { echo "$0: $1 answered $non2xx non-2xx responses" >&2; echo "$out" >&2; exit 1; }
    local per=$6
    local r; r=$(awk -v n="$requests" -v s="$seconds" 'BEGIN {printf "%.0f", n / s}')
    local c; c=$(awk -v t="$((after - before))" -v hz="$hz" -v n="$requests" -v k="$per" 'BEGIN {printf "%.2f", t / hz * 1e6 / (n * k)}')
    # Sums per server and concurrency; divided by the rounds in the summary.
    rate[$1|$5]=$(( ${rate[$1|$5]:-0} + r )); cpu[$1|$5]=$(awk -v a="${cpu[$1|$5]:-0}" -v b="$c" 'BEGIN {print a + b}')
    local switches="" syscalls=""
    if [ -n "$stat" ]; then
        switches=$(awk -F, -v n="$requests" '$3 == "context-switches" {printf "%.2f", $1 / n}' "$work/perf.txt")
        syscalls=$(awk -F, -v n="$requests" '$3 == "raw_syscalls:sys_enter" {printf "%.2f", $1 / n}' "$work/perf.txt")
    fi
    printf '%-26s %3s conns  %8s req/s  %7s µs CPU per %s%s\n' "$1" "$5" "$r" "$c" \
        "$([ "$per" -gt 1 ] && echo event || echo request)" \
        "$([ -n "$switches" ] && echo "  $switches cs, $syscalls syscalls per request")"
}
for round in $(seq "$rounds"); do
    for c in $connections; do
        measure "nginx static 200" "$floor" "$(nginx_pids)" events "$c" 1
        measure "serve events" "$fast" "$fast_pids" events "$c" 1
        [ -n "$quick" ] && continue
        measure "serve events (rate limit)" "$limited" "$limited_pids" events "$c" 1
        measure "serve batch_events" "$fast" "$fast_pids" batch "$c" 10
    done
done
echo
names=("serve events")
[ -z "$quick" ] && names+=("serve events (rate limit)" "serve batch_events")
# Per concurrency: the means of its rounds, serve / nginx. Then the worst concurrency: the goal must hold at each.
for name in "${names[@]}"; do
    line="" worst_cpu=0 worst_rate=1000
    for c in $connections; do
        read -r cr rr < <(awk -v sc="${cpu["$name|$c"]}" -v nc="${cpu["nginx static 200|$c"]}" \
            -v sr="${rate["$name|$c"]}" -v nr="${rate["nginx static 200|$c"]}" 'BEGIN {printf "%.2f %.2f\n", sc / nc, sr / nr}')
        line+=$(printf '  %s conns: CPU %sx, rate %sx;' "$c" "$cr" "$rr")
        worst_cpu=$(awk -v a="$worst_cpu" -v b="$cr" 'BEGIN {print (b > a ? b : a)}')
        worst_rate=$(awk -v a="$worst_rate" -v b="$rr" 'BEGIN {print (b < a ? b : a)}')
    done
    if [[ "$name" == *batch* ]]; then
        printf '%-26s CPU per event vs nginx per request:%s worst CPU %sx\n' "$name" "$line" "$worst_cpu"
    else
        printf '%-26s vs nginx, means of %s round(s):%s worst: CPU %sx, rate %sx\n' "$name" "$rounds" "$line" \
            "$worst_cpu" "$worst_rate"
    fi
done
