#!/usr/bin/env bash
# Cluster benchmarks (issue 17), release build, each run short (the machine is shared):
#   delivery: events through node A's HTTP API at a fixed rate (one event a request), subscribers on node B (across
#             Redis) or on A (same node): latency p50/p99 and CPU per event of A, B and redis-server.
#   scale:    the same rate to S subscribers on one node (no Redis) or spread over three nodes (publishing through
#             the first): p99 and the CPU of every process, for each S.
#     Benchmarks/cluster_bench.sh delivery [--rate 1000] [--seconds 15] [--subscribers 10]
#     Benchmarks/cluster_bench.sh scale [--rate 200] [--seconds 15] [--subscribers "500 1000 2000"]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
mode="${1:-delivery}"; shift || true
rate=1000; seconds=15; subscribers=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --rate) rate="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --subscribers) subscribers="$2"; shift 2 ;;
        *) echo "usage: $0 delivery|scale [--bin DIR] [--rate N] [--seconds S] [--subscribers N|\"N1 N2\"]" >&2; exit 64 ;;
    esac
done
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; }
redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
redis_pid=$!; pids+=("$redis_pid")
wait_port "$redis_port"
# node NAME PORT [serve arguments]: starts a node, sets node_pid.
node() {
    local name="$1" port="$2"; shift 2
    "$bin/pushtop" serve --port "$port" --log-level warning "$@" >/dev/null 2>&1 &
    node_pid=$!; pids+=("$node_pid")
    wait_port "$port"
    sleep 0.5
}
cluster_node() { node "$1" "$2" --redis "redis://127.0.0.1:$redis_port" --node-id "$1" --redis-prefix "bench$3"; }
sustain() { "$bin/pushtop-benchmarks" sustain --rate "$rate" --seconds "$seconds" --connections 1 --batch 1 "$@" 2>/dev/null; }

case "$mode" in
delivery)
    subscribers="${subscribers:-10}"
    pa="$(free_port)"; pb="$(free_port)"
    cluster_node a "$pa" 1; a_pid=$node_pid
    cluster_node b "$pb" 1; b_pid=$node_pid
    echo "== across Redis: publish through A, $subscribers subscribers on B"
    sustain --port "$pa" --subscribe-ports "$pb" --subscribers "$subscribers" --server-pid "$a_pid" \
        --pids "node B=$b_pid,redis-server=$redis_pid"
    echo "== same node: publish through A, $subscribers subscribers on A (B idle in the cluster)"
    sustain --port "$pa" --subscribers "$subscribers" --server-pid "$a_pid" \
        --pids "node B=$b_pid,redis-server=$redis_pid"
    ;;
scale)
    subscribers="${subscribers:-500 1000 2000}"
    round=0
    for s in $subscribers; do
        round=$((round + 1))
        p1="$(free_port)"
        node single "$p1"; single_pid=$node_pid
        echo "== one node (no Redis), $s subscribers, $rate events/s"
        sustain --port "$p1" --subscribers "$s" --server-pid "$single_pid"
        kill "$single_pid"; wait "$single_pid" 2>/dev/null || true
        pa="$(free_port)"; pb="$(free_port)"; pc="$(free_port)"
        cluster_node a "$pa" "s$round"; a_pid=$node_pid
        cluster_node b "$pb" "s$round"; b_pid=$node_pid
        cluster_node c "$pc" "s$round"; c_pid=$node_pid
        echo "== three nodes, $s subscribers spread over them, $rate events/s through A"
        sustain --port "$pa" --subscribe-ports "$pa,$pb,$pc" --subscribers "$s" --server-pid "$a_pid" \
            --pids "node B=$b_pid,node C=$c_pid,redis-server=$redis_pid"
        kill "$a_pid" "$b_pid" "$c_pid"; wait "$a_pid" "$b_pid" "$c_pid" 2>/dev/null || true
    done
    ;;
*) echo "unknown mode $mode (delivery or scale)" >&2; exit 64 ;;
esac
