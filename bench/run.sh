#!/bin/sh
# make bench: per-call overhead of the hooks over glibc's no-op hooks.
set -e
cd "$(dirname "$0")/.."
make -s profviz.so bench-progs
exec python3 bench/bench.py "$@"
