#!/bin/sh
# Install the Debian packages profviz builds and tests with, if any is missing.
set -e
PKGS="gcc g++ make perl python3 uthash-dev libdw-dev libelf-dev graphviz valgrind libpfm4-dev
      dpkg-dev xz-utils bzip2 tcl clang libclang-rt-14-dev util-linux mount linux-perf"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
