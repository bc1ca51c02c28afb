#!/usr/bin/env bash
# One event to N subscribers: `pushtop serve` against the floor (Benchmarks/fanout_floor.c, a C server that only
# writes the same frame to every subscriber socket), interleaved in one run, with the same reader and publisher
# (`pushtop-benchmarks fanout`). Prints each run's figures (CPU per delivery, and its user and system parts), then the
# ratios serve / floor of p99 and CPU per delivery.
#     Benchmarks/fanout_vs_floor.sh [--bin .build/release] [--subscribers 1000] [--events 200] [--rounds 2] \
#         [-- extra serve arguments, e.g. --redis redis://127.0.0.1:6379]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
subscribers=1000
events=200
rounds=2
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --subscribers) subscribers="$2"; shift 2 ;;
        --events) events="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--bin DIR] [--subscribers N] [--events N] [--rounds N] [-- serve arguments]" >&2; exit 64 ;;
    esac
done
floor_bin="$(mktemp -d)/fanout_floor"
cc -O2 -o "$floor_bin" Benchmarks/fanout_floor.c
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT

# run NAME COMMAND...: starts the server on a free port, runs fanout against it, prints and keeps the figures.
run() {
    local name="$1"; shift
    local port
    # A free port below the ephemeral range (32768 and up on Linux, where the subscribers' own ends live): a taken
    # one would make the server exit.
    while port=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do :; done
    "$@" "$port" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    local out
    if ! out="$("$bin/pushtop-benchmarks" fanout --port "$port" --server-pid "$pid" --subscribers "$subscribers" \
        --events "$events" 2>"$errors")"; then
        echo "$name: the run failed (port $port; $(grep -m1 -i error "$errors")); not counted" >&2
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=""
        return 0
    fi
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
    local p99 cpu user system
    p99="$(sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p' <<<"$out")"
    cpu="$(sed -n 's/.*= \([0-9.]*\) µs per delivery.*/\1/p' <<<"$out")"
    user="$(sed -n 's/.*(user \([0-9.]*\), system.*/\1/p' <<<"$out")"
    system="$(sed -n 's/.*, system \([0-9.]*\)).*/\1/p' <<<"$out")"
    printf '%-6s p99 %6s ms  CPU %6s µs per delivery (user %5s, system %5s)   (%s)\n' "$name" "$p99" "$cpu" \
        "$user" "$system" "$(head -1 <<<"$out" | sed 's/^fanout: //')"
    echo "$name $p99 $cpu" >>"$results"
}
# serve [serve arguments] PORT (run appends the port).
serve() { local port="${*: -1}"; exec "$bin/pushtop" serve --log-level warning "${@:1:$#-1}" --port "$port"; }
results="$(mktemp)"
errors="$(mktemp)"
for _ in $(seq "$rounds"); do
    run serve serve "$@"
    run floor "$floor_bin"
done
awk '{ p[$1] += $2; c[$1] += $3; n[$1]++ }
     END { if (n["floor"] && p["floor"] > 0 && c["floor"] > 0)
             printf "serve / floor (means of %d rounds): p99 %.2fx, CPU per delivery %.2fx\n", n["floor"],
                    (p["serve"] / n["serve"]) / (p["floor"] / n["floor"]), (c["serve"] / n["serve"]) / (c["floor"] / n["floor"]) }' \
    "$results"
