#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages profviz builds and tests with, if any is missing.
set -e
PKGS="gcc g++ make perl python3 uthash-dev libdw-dev libelf-dev graphviz valgrind libpfm4-dev
      dpkg-dev xz-utils bzip2 tcl clang libclang-rt-14-dev util-linux mount linux-perf
      libjansson-dev zlib1g-dev golang-go chromium python3-jsonschema help2man man-db groff-base"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# npm may come with a nodejs from elsewhere; Debian's otherwise.
command -v npm >/dev/null || missing="$missing npm"
if [ -n "$missing" ]; then
	echo "installing:$missing"
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The JavaScript readers the tests drive, at the versions of
# tests/js/package-lock.json (npm ci installs exactly those, and fails if
# the lock no longer matches package.json): when a package is missing, or
# the lock is newer than what npm last installed (node_modules/.package-lock.json).
# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: the tests use Debian's chromium.
js="$(dirname "$0")/../tests/js"
if [ ! -d "$js/node_modules/speedscope" ] || [ ! -d "$js/node_modules/playwright-core" ] ||
	[ ! -f "$js/node_modules/.package-lock.json" ] ||
	[ "$js/package-lock.json" -nt "$js/node_modules/.package-lock.json" ]; then
	echo "installing: npm packages of tests/js (npm ci)"
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$js" --no-audit --no-fund \
		--loglevel=error >/dev/null
fi
