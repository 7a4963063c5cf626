#!/bin/sh
# SPDX-License-Identifier: MIT
# render.sh FILE.dot: FILE.svg and FILE.png beside it; graphviz's warnings shown.
set -e
for f in "$@"; do
	base=${f%.dot}
	dot -Tsvg "$f" -o "$base.svg"
	dot -Tpng "$f" -o "$base.png"
	echo "wrote $base.svg and $base.png"
done
