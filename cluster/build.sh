#!/usr/bin/env bash
# Build kube-apiserver, kube-controller-manager and kube-scheduler v1.20.2 from Debian's
# `kubernetes` source package with Go 1.15 from Debian bullseye, once, into a cache outside
# the repository. Later runs find the binaries and return at once.
#
# Why Go 1.15: bookworm's Go 1.19 compiles the tree, but the resulting kube-apiserver crashes on
# the first custom-resource write (vendored modern-go/reflect2 1.0.1 predates Go 1.18).
#
# Nothing here touches the system's apt configuration: each download uses a private apt state
# folder under the cache. Prints the binary folder on its last line of stdout.
set -euo pipefail

KVER=1.20.2
GOVER=1.15
CACHE=${CALDERA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}
OUT=$CACHE/kubernetes-$KVER
BIN=$OUT/bin
MIRROR=${CALDERA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
WANT="kube-apiserver kube-controller-manager kube-scheduler"

say() { printf 'cluster/build: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

have_all() {
	local b
	for b in $WANT; do
		[ -x "$BIN/$b" ] || return 1
		"$BIN/$b" --version 2>/dev/null | grep -q "v$KVER" || return 1
	done
}

if have_all; then
	echo "$BIN"
	exit 0
fi

for tool in apt-get dpkg-deb tar make rsync; do
	command -v "$tool" >/dev/null || die "'$tool' is missing (make deps installs it)"
done

mkdir -p "$OUT"
# One build at a time per cache: parallel test runs on a fresh machine wait for the first.
exec 9>"$OUT/.lock"
flock 9
if have_all; then
	echo "$BIN"
	exit 0
fi

# apt_private NAME LINE: an apt invocation prefix whose sources are LINE alone and whose state
# lives in $OUT/apt-NAME.
apt_private() {
	local name=$1 line=$2
	local dir=$OUT/apt-$name
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	printf '%s\n' "$line" >"$dir/sources.list"
	APT=(apt-get -q -o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	"${APT[@]}" update >"$dir/update.log" 2>&1 || {
		cat "$dir/update.log" >&2
		die "apt-get update for '$line' failed"
	}
}

# --- Go 1.15 -----------------------------------------------------------------------------------
GOROOT=$OUT/go/usr/lib/go-$GOVER
if ! [ -x "$GOROOT/bin/go" ]; then
	say "fetching Go $GOVER from Debian bullseye"
	apt_private go "deb $MIRROR bullseye main"
	rm -rf "$OUT/go-debs" && mkdir -p "$OUT/go-debs"
	(cd "$OUT/go-debs" && "${APT[@]}" download golang-$GOVER-go golang-$GOVER-src) >&2 ||
		die "cannot download golang-$GOVER-go / golang-$GOVER-src"
	rm -rf "$OUT/go"
	for deb in "$OUT"/go-debs/*.deb; do
		dpkg-deb -x "$deb" "$OUT/go"
	done
	[ -x "$GOROOT/bin/go" ] || die "no go binary in $GOROOT after unpacking"
fi
"$GOROOT/bin/go" version | grep -q "go$GOVER" || die "unexpected Go: $("$GOROOT/bin/go" version)"

# --- Kubernetes source --------------------------------------------------------------------------
SRC=$OUT/src/kubernetes
if ! [ -f "$SRC/.caldera-unpacked" ]; then
	say "fetching the source package 'kubernetes' from Debian bookworm"
	apt_private src "deb-src $MIRROR bookworm main"
	mkdir -p "$OUT/src-pkg"
	(cd "$OUT/src-pkg" && "${APT[@]}" source --download-only kubernetes) >&2 ||
		die "apt-get source --download-only kubernetes failed"
	# A glob, not `ls | head`: under pipefail a failed ls would end the script without a word.
	origs=("$OUT"/src-pkg/kubernetes_*.orig.tar.*)
	orig=${origs[0]}
	[ -f "$orig" ] || die "no orig tarball in $OUT/src-pkg"
	say "unpacking $(basename "$orig")"
	rm -rf "$SRC" && mkdir -p "$SRC"
	tar -xf "$orig" -C "$SRC" --strip-components=1
	[ -d "$SRC/vendor" ] && [ -d "$SRC/cmd/kube-apiserver" ] || die "unexpected source layout in $orig"
	touch "$SRC/.caldera-unpacked"
fi

# --- Build ---------------------------------------------------------------------------------------
say "building $WANT (about 6 minutes on 2 cores the first time)"
cd "$SRC"
export GOROOT PATH="$GOROOT/bin:$PATH" CGO_ENABLED=0 GOFLAGS=-mod=vendor
export GOCACHE=$OUT/gocache GOPATH=$OUT/gopath
export KUBE_GIT_VERSION=v$KVER KUBE_GIT_TREE_STATE=clean KUBE_GIT_COMMIT=faecb196815e248d3ecfb03c680a4507229c2a56
export KUBE_GIT_MAJOR=1 KUBE_GIT_MINOR=20
log=$OUT/build.log
if ! make WHAT="cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "the Kubernetes build failed (full log: $log)"
fi
mkdir -p "$BIN"
for b in $WANT; do
	f=$(find "$SRC/_output" -type f -name "$b" -perm -u+x -print -quit)
	[ -n "$f" ] || die "the build produced no $b"
	install -m 0755 "$f" "$BIN/$b"
done
have_all || die "built binaries do not report v$KVER"
say "done: $BIN"
echo "$BIN"
