#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: per-call overhead of the hooks over glibc's no-op hooks, then
# how long large profiles take to write and to open (bench/scale.py).
set -e
cd "$(dirname "$0")/.."
make -s profviz.so profviz bench-progs
python3 bench/bench.py "$@"
exec python3 bench/scale.py
