#!/usr/bin/env bash
# The secretbox of encrypted channels: seal and open of a 1 KB event with PusherProtocol's Swift XSalsa20-Poly1305
# beside libsodium's (needs libsodium-dev), ns per operation. Compiles PusherProtocol/SecretBox/*.swift with the
# harness (Benchmarks/Tools/SecretBoxBench/main.swift) in one `swiftc -O` module, so nothing else is built.
#     Benchmarks/secretbox_bench.sh [SIZE=1024] [ITERATIONS=100000] [ROUNDS=7]
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
swiftc -O -swift-version 6 -module-name SecretBoxBench -I Sources/CSodium -lsodium \
    Sources/PusherProtocol/SecretBox/*.swift Benchmarks/Tools/SecretBoxBench/main.swift -o "$out/secretbox-bench"
"$out/secretbox-bench" "$@"
