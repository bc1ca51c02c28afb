#!/usr/bin/env python3
"""The release binary's hot-code order (issue 40): the functions a wake-up runs, packed together.

A wake-up of `watch` (one event per frame) or of `serve` (one API request, one frame to fan out) finds its code
cold: between two events other processes ran, and the ~300 functions on the path lie scattered over the 34 MB of
`.text`, each on a page and in cache lines of its own. `scripts/release-build` compiles every module with
`-function-sections` and gives the linker this list (`--section-ordering-file`), so those functions sit side by
side in a few pages, ahead of the rest.

This script makes the list from `perf record -g` profiles of the release binary under the workloads that matter:

    python3 Benchmarks/wakeup_costs.py watch --bin BIN --rate 1000 --seconds 20 --perf /tmp/hot-watch.perf
    python3 Benchmarks/wakeup_costs.py watch --bin BIN --rate 5000 --seconds 10 --perf /tmp/hot-watch-full.perf
    python3 Benchmarks/wakeup_costs.py http --bin BIN --connections 32 --seconds 8 --perf /tmp/hot-http.perf
    python3 Benchmarks/hot_text_order.py --bin BIN /tmp/hot-*.perf > scripts/release-hot-text.order

Every function of the binary's own (Swift and C) seen in a sampled call chain is listed: the first profile's
functions first, the most often seen first, so that callers and their callees (seen about as often) land next to
each other; then each next profile's functions not listed yet. So the profile given first (watch's wake-up) gets the
tightest packing. A name the linker does not find (code that changed since) is skipped: a stale list costs speed,
never correctness.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)\s*$")


def chains(perf_file):
    """Each sample's call chain, as (symbol, dso) pairs, leaf first."""
    out = subprocess.run(
        ["perf", "script", "-i", perf_file, "--no-demangle", "-F", "ip,sym,dso"],
        check=True, capture_output=True, text=True).stdout
    chain = []
    for line in out.splitlines():
        frame = FRAME.match(line)
        if frame:
            chain.append((frame.group(1), frame.group(2)))
        elif chain:
            yield chain
            chain = []
    if chain:
        yield chain


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the profiled binary (only its own functions are listed)")
    parser.add_argument("profiles", nargs="+", help="perf.data files recorded with -g")
    args = parser.parse_args()
    binary = os.path.realpath(args.bin)
    listed = set()
    samples = 0
    for profile in args.profiles:
        seen = collections.Counter()
        for chain in chains(profile):
            samples += 1
            names = {sym for sym, dso in chain if os.path.realpath(dso) == binary and sym != "[unknown]"}
            seen.update(names)
        # Ties (and so the file's diffs) in name order; a function already listed for an earlier profile stays there.
        for name, _ in sorted(seen.items(), key=lambda item: (-item[1], item[0])):
            if name not in listed:
                listed.add(name)
                print(f".text.{name}")
    if not listed:
        sys.exit(f"hot_text_order.py: no sample of {binary} in {', '.join(args.profiles)}")
    print(f"hot_text_order.py: {len(listed)} functions from {samples} samples", file=sys.stderr)


if __name__ == "__main__":
    main()
