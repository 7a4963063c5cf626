#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-source.sh PACKAGE: download and unpack a Debian source package into
# the cache (never into the repository) and print the unpacked directory.
# Exits 2, with the reason on stderr, when the source cannot be had.
set -e
pkg=$1
cache=${XDG_CACHE_HOME:-$HOME/.cache}/profviz/src
mkdir -p "$cache"
dir=$(find "$cache" -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
if [ -n "$dir" ] && [ -f "$dir/.unpacked" ]; then
	echo "$dir"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
src=/etc/apt/sources.list.d/debian.sources
if [ ! -f "$src" ]; then
	echo "no $src to derive deb-src entries from" >&2
	exit 2
fi
sed 's/^Types: deb$/Types: deb-src/' "$src" > "$work/src.sources"
apt_src() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work" \
		-o Dir::State::Lists="$work/lists" -o APT::Sandbox::User=root "$@"
}
if ! apt_src update >"$work/log" 2>&1 ||
	! (cd "$work" && apt_src source --download-only "$pkg") >>"$work/log" 2>&1; then
	echo "cannot download the $pkg source package:" >&2
	tail -n 3 "$work/log" >&2
	exit 2
fi
orig=$(ls "$work"/*.orig.tar.* | head -n 1)
tar -xf "$orig" -C "$work"
unpacked=$(find "$work" -mindepth 1 -maxdepth 1 -type d ! -name lists | head -n 1)
dest="$cache/$pkg-$(basename "$unpacked")"
rm -rf "$dest"
mv "$unpacked" "$dest"
touch "$dest/.unpacked"
echo "$dest"
