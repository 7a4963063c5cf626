#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the sampler candidates' drivers into build/bench/sampler/.
set -e
src=$(dirname "$0")
out=${1:-build/bench/sampler}
mkdir -p "$out"
CFLAGS="-O2 -g -Wall -Wextra -Werror -pthread"
for b in none timer perf poll; do
	extra=
	[ "$b" = timer ] || [ "$b" = perf ] && extra="$src/handler.c"
	for d in measure safety; do
		[ -f "$src/$d.c" ] || continue
		cc $CFLAGS -o "$out/$b-$d" "$src/$d.c" "$src/$b.c" $extra -lrt
	done
done
cc $CFLAGS -o "$out/lookcost" "$src/lookcost.c"
