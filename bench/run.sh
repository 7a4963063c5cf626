#!/bin/sh
# make bench: per-call overhead of the hooks over glibc's no-op hooks.
set -e
cd "$(dirname "$0")/.."
mkdir -p build/bench
FLAGS="-O2 -g -finstrument-functions -fno-inline -fno-optimize-sibling-calls -fno-ipa-cp"
for b in fib mixed dispatch; do
	gcc $FLAGS -o build/bench/$b bench/$b.c
done
gcc -O2 -g -Ilib -o build/bench/readcost bench/readcost.c \
	$(ls lib/*.c | grep -v -e interpose.c -e signals.c) -ldw -lelf -ldl -lpthread -lm
exec python3 bench/bench.py "$@"
