#!/usr/bin/env bash
# Build Caldera's container images without a container engine daemon (`make image`):
#
#   localhost/caldera/vc-controller-manager:VERSION, :latest   ENTRYPOINT vc-controller-manager
#   localhost/caldera/vc-scheduler:VERSION, :latest            ENTRYPOINT vc-scheduler
#   localhost/caldera/vc-webhook-manager:VERSION, :latest      ENTRYPOINT vc-webhook
#
# Volcano's three image names, so that a chart needs only the image swapped. The three share
# two layers and differ in their configuration; vc-webhook-manager has a third:
#
#   base  the shared libraries the programs link (their closure, from objdump's NEEDED entries),
#         the dynamic loader, the CA bundle, /etc/passwd and /etc/group with the user 65532
#         (nonroot), /tmp, and the copyright files of the Debian packages these files come from.
#         The libraries come from Debian's archive (mmdebstrap --variant=extract of PKGS below,
#         the release of this machine), not from this machine: no shell, no apt, dpkg or perl.
#   app   the stripped vc-controller, vc-webhook and vcctl in /usr/local/bin, with the symlinks
#         vc-controller-manager and vc-scheduler (to vc-controller), and kubectl-vc and Volcano's
#         vsub, vjobs, vqueues, vcancel, vsuspend, vresume (to vcctl; BUILD's links to it).
#   admission (vc-webhook-manager only) what Volcano's admission init Job runs:
#         /gen-admission-secret.sh (scripts/image/), with busybox as /bin/sh and a few tools in
#         /bin, and curl (whose libraries are libcurl's, in the base).
#
# The extracted packages are cached in ~/.cache/caldera/image-base-HASH (HASH of the release,
# architecture, mirrors and package list; IMAGE_REFRESH=1 downloads them again, e.g. for
# security updates). The images are committed with buildah into the local containers-storage
# and written as OCI archives to BUILD/images/NAME.oci.tar (skopeo; layers gzip-compressed).
# User 65532, read-only root filesystem friendly: nothing is written outside /tmp and mounted
# volumes.
#
# Environment: BUILD (default build), IMAGE_REPO (default localhost/caldera), IMAGE_MIRROR and
# IMAGE_SECURITY_MIRROR (Debian's archive), IMAGE_REFRESH=1. Runs as root (root's
# containers-storage; buildah, skopeo and mmdebstrap are installed with apt-get when missing).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OUT=$BUILD/images
REPO=${IMAGE_REPO:-localhost/caldera}
RELEASE=bookworm
MIRROR=${IMAGE_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${IMAGE_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# The runtime packages of the three programs (their -dev counterparts in scripts/deps.sh);
# their dependencies come along. libc6 for the loader; busybox-static and curl for the
# admission layer.
PKGS=(libc6 libmicrohttpd12 libjansson4 libyaml-0-2 libcurl4 libssl3 zlib1g ca-certificates busybox-static curl)
# The busybox applets the admission layer links in /bin: those gen-admission-secret.sh uses and
# those of manifests/base/30-webhook.yaml's init container.
APPLETS=(sh cat cp mkdir mktemp rm base64 ls echo)
PROGS=(vc-controller vc-webhook vcctl)
NONROOT=65532

say() { printf 'image: %s\n' "$*" >&2; }
die() {
	printf 'image: %s\n' "$*" >&2
	exit 1
}

# --- the tools ------------------------------------------------------------------------------------

# podman and runc: `make test-image` runs the images with them.
TOOLS=(buildah skopeo mmdebstrap binutils podman runc)
[ "$(id -u)" -eq 0 ] || die "run as root: buildah's rootless mode needs subordinate IDs this script does not set up"
missing=()
for p in "${TOOLS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || {
		apt-get update -q >&2
		apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
	}
fi
# The programs are linked against this machine's libraries: the base must be the same release.
# shellcheck disable=SC1091 # the machine's
host_release=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ "$host_release" = "$RELEASE" ] ||
	say "warning: this machine is '$host_release', the base is Debian $RELEASE: the programs may not run in it"

for p in "${PROGS[@]}"; do
	[ -x "$BUILD/$p" ] || die "$BUILD/$p is missing (make build)"
done
VERSION=$("$BUILD/vc-controller" --version | awk '{ print $2 }')
[ -n "$VERSION" ] || die "cannot read the version from vc-controller --version"
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

# --- the base: Debian's packages, extracted, cached -------------------------------------------------

KEY=$(printf '%s\n' "$RELEASE" "$ARCH" "$MIRROR" "$SECURITY_MIRROR" "${PKGS[@]}" | sha256sum | cut -c1-16)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/caldera/image-base-$KEY
if [ "${IMAGE_REFRESH:-0}" = 1 ] || ! [ -f "$CACHE/done" ]; then
	say "extracting ${PKGS[*]} and their dependencies from Debian $RELEASE into $CACHE"
	mkdir -p "$(dirname "$CACHE")"
	tmp=$(mktemp -d "$CACHE.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# The hook runs while the downloaded packages are still there: it records which package each file
	# comes from (the extract variant keeps no dpkg database).
	# shellcheck disable=SC2016 # $1 is mmdebstrap's, expanded by the hook's shell
	mmdebstrap --quiet --variant=extract --mode=root --include="$(
		IFS=,
		echo "${PKGS[*]}"
	)" \
		--extract-hook='mkdir -p "$1/../manifest"; for d in "$1"/var/cache/apt/archives/*.deb; do p=$(dpkg-deb -f "$d" Package); dpkg-deb -W --showformat="\${Package} \${Version}\n" "$d" >>"$1/../manifest/packages"; dpkg-deb -c "$d" | awk "{ print \$6 }" | sed "s|^\./|/|" >"$1/../manifest/$p.list"; done' \
		"$RELEASE" "$tmp/root" \
		"deb $MIRROR $RELEASE main" "deb $MIRROR $RELEASE-updates main" \
		"deb $SECURITY_MIRROR $RELEASE-security main" >&2 || die "mmdebstrap failed"
	sort -o "$tmp/manifest/packages" "$tmp/manifest/packages"
	touch "$tmp/done"
	rm -rf "$CACHE"
	mv "$tmp" "$CACHE"
	trap - EXIT
fi
BASE=$CACHE/root

# --- the root filesystem -----------------------------------------------------------------------------

ROOTFS=$OUT/rootfs
ADM=$OUT/admission
rm -rf "$ROOTFS" "$OUT/app" "$ADM"
mkdir -p "$ROOTFS" "$OUT/app/usr/local/bin" "$ADM/bin"

# keep PATH [DIR]: copy the file at PATH in BASE into DIR (default ROOTFS), following symbolic
# links (each link and its target are copied, relative or absolute).
keep() {
	local p=$1 dst=${2:-$ROOTFS} t n=0
	while :; do
		[ -e "$dst$p" ] || [ -L "$dst$p" ] || {
			[ -e "$BASE$p" ] || [ -L "$BASE$p" ] || die "$p is not in the base"
			mkdir -p "$dst$(dirname "$p")"
			cp -a "$BASE$p" "$dst$p"
		}
		[ -L "$BASE$p" ] || return 0
		t=$(readlink "$BASE$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		p=$(realpath -m -s "$p")
		[ $((++n)) -lt 20 ] || die "too many symbolic links at $1"
	done
}
LIBDIRS=("/lib/$MULTIARCH" "/usr/lib/$MULTIARCH" /lib /usr/lib)
# closure FILE: keep the libraries FILE needs, and theirs.
declare -A SEEN=()
closure() {
	local lib d found
	for lib in $(objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }'); do
		[ -z "${SEEN[$lib]:-}" ] || continue
		SEEN[$lib]=1
		found=
		for d in "${LIBDIRS[@]}"; do
			if [ -e "$BASE$d/$lib" ]; then
				found=$d/$lib
				break
			fi
		done
		[ -n "$found" ] || die "$lib (needed by ${1#"$BASE"}) is in none of the base's ${LIBDIRS[*]}"
		keep "$found"
		closure "$(realpath "$ROOTFS$found")"
	done
}

for p in "${PROGS[@]}"; do
	strip -o "$OUT/app/usr/local/bin/$p" "$BUILD/$p"
	chmod 0755 "$OUT/app/usr/local/bin/$p"
	closure "$OUT/app/usr/local/bin/$p"
done
# The loader the programs name (PT_INTERP), through the base's /lib64 link.
interp=$(readelf -l "$BUILD/vc-controller" | sed -n 's/.*program interpreter: \(.*\)\]$/\1/p')
[ -n "$interp" ] || die "no program interpreter in $BUILD/vc-controller"
keep "$interp"
# The admission layer: curl's libraries go to the base (they are libcurl's), busybox is static.
keep /usr/bin/curl "$ADM"
closure "$ADM/usr/bin/curl"
keep /bin/busybox "$ADM"
[ -z "$(objdump -p "$ADM/bin/busybox" | awk '$1 == "NEEDED"')" ] || die "busybox is not static"
for a in "${APPLETS[@]}"; do
	ln -s busybox "$ADM/bin/$a"
done
install -m 0755 "$ROOT/scripts/image/gen-admission-secret.sh" "$ADM/gen-admission-secret.sh"
ln -s vc-controller "$OUT/app/usr/local/bin/vc-controller-manager"
ln -s vc-controller "$OUT/app/usr/local/bin/vc-scheduler"
# vcctl's other names (kubectl-vc, Volcano's vsub, vjobs, ...): the links `make image-programs`
# made beside it (the Makefile's VCCTL_LINKS is the one list of them).
links=0
for l in "$BUILD"/*; do
	[ -L "$l" ] && [ "$(readlink "$l")" = vcctl ] || continue
	ln -s vcctl "$OUT/app/usr/local/bin/${l##*/}"
	links=$((links + 1))
done
[ -L "$OUT/app/usr/local/bin/kubectl-vc" ] || die "$BUILD/kubectl-vc is missing (make image-programs)"
say "vcctl under $links other names"

# The CA bundle update-ca-certificates would make (every Mozilla certificate ca-certificates ships).
mkdir -p "$ROOTFS/etc/ssl/certs"
cat "$BASE"/usr/share/ca-certificates/mozilla/*.crt >"$ROOTFS/etc/ssl/certs/ca-certificates.crt"
cat >"$ROOTFS/etc/passwd" <<EOF
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:$NONROOT:$NONROOT:nonroot:/home/nonroot:/sbin/nologin
EOF
cat >"$ROOTFS/etc/group" <<EOF
root:x:0:
nogroup:x:65534:
nonroot:x:$NONROOT:
EOF
printf 'hosts: files dns\n' >"$ROOTFS/etc/nsswitch.conf"
mkdir -p "$ROOTFS/tmp" "$ROOTFS/home/nonroot" "$ROOTFS/root"
chmod 1777 "$ROOTFS/tmp"
chmod 0700 "$ROOTFS/root" "$ROOTFS/home/nonroot"

# licenses DIR LIST: the packages files in DIR come from: their copyright files into DIR and a
# list with their versions in DIR/usr/share/caldera/LIST.
licenses() {
	local dir=$1 pkg ver f pkgs=()
	while read -r pkg ver; do
		while IFS= read -r f; do
			if [ -e "$dir$f" ] && ! [ -d "$dir$f" ]; then
				pkgs+=("$pkg")
				printf '%s %s\n' "$pkg" "$ver" >>"$dir.packages"
				break
			fi
		done <"$CACHE/manifest/$pkg.list"
	done <"$CACHE/manifest/packages"
	for pkg in "${pkgs[@]}"; do
		keep "/usr/share/doc/$pkg/copyright" "$dir"
	done
	mkdir -p "$dir/usr/share/caldera"
	mv "$dir.packages" "$dir/usr/share/caldera/$2"
}
licenses "$ROOTFS" packages
licenses "$ADM" packages-admission

# --- the images ----------------------------------------------------------------------------------

# Each layer is added as a tar archive with fixed times and owners (root, but /home/nonroot),
# so the same files make the same layer. The base is committed once per content: its tag is
# the hash of its archive and configuration.
chown "$NONROOT:$NONROOT" "$ROOTFS/home/nonroot"
# layer_tar DIR TAR
layer_tar() {
	tar -C "$1" --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 --format=posix \
		--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		--exclude=./home/nonroot -cf "$2" .
	[ ! -d "$1/home/nonroot" ] ||
		tar -C "$1" --mtime=@0 --numeric-owner --format=posix \
			--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
			-rf "$2" ./home/nonroot
}
layer_tar "$ROOTFS" "$OUT/base.tar"
layer_tar "$OUT/app" "$OUT/app.tar"
layer_tar "$ADM" "$OUT/admission.tar"
BASE_CONFIG=(--os linux --arch "$ARCH" --user "$NONROOT:$NONROOT" --workingdir /
	--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	--label org.opencontainers.image.description="Caldera's runtime base: the libraries of vc-controller, vc-webhook and vcctl from Debian $RELEASE")
BASE_SUM=$({
	sha256sum <"$OUT/base.tar"
	printf '%s\n' "${BASE_CONFIG[@]}"
} | sha256sum | cut -c1-16)
BASE_IMG=$REPO/base:$BASE_SUM
if ! buildah inspect --type image "$BASE_IMG" >/dev/null 2>&1; then
	say "committing $BASE_IMG"
	c=$(buildah from --quiet scratch)
	buildah add --quiet "$c" "$OUT/base.tar" / >/dev/null
	buildah config "${BASE_CONFIG[@]}" "$c"
	buildah commit --quiet --rm --timestamp 0 "$c" "$BASE_IMG" >/dev/null
fi

c=$(buildah from --quiet "$BASE_IMG")
trap 'buildah rm "$c" >/dev/null 2>&1 || true' EXIT
buildah add --quiet "$c" "$OUT/app.tar" / >/dev/null
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
# The images' creation time is the commit's (SOURCE_DATE_EPOCH when set): the same programs
# and labels make the same image ID, and a rebuild leaves no untagged image behind.
EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)}
buildah config --cmd '' \
	--label org.opencontainers.image.title=caldera \
	--label org.opencontainers.image.description="Volcano-compatible batch controller, scheduler and admission webhook in C" \
	--label org.opencontainers.image.version="$VERSION" \
	--label org.opencontainers.image.revision="$REV" \
	--label org.opencontainers.image.base.name="$BASE_IMG" \
	"$c"
mkdir -p "$OUT"
for name in vc-controller-manager vc-scheduler vc-webhook-manager; do
	case $name in
	vc-webhook-manager)
		ep=/usr/local/bin/vc-webhook
		# A container's changes are committed as one layer: the admission layer is a new
		# container's, on top of the image just committed.
		buildah rm "$c" >/dev/null
		c=$(buildah from --quiet "$REPO/vc-scheduler:$VERSION")
		buildah add --quiet "$c" "$OUT/admission.tar" / >/dev/null
		;;
	*) ep=/usr/local/bin/$name ;;
	esac
	buildah config --entrypoint "[\"$ep\"]" "$c" 2>/dev/null
	old=$(buildah inspect --type image --format '{{.FromImageID}}' "$REPO/$name:$VERSION" 2>/dev/null || true)
	new=$(buildah commit --quiet --timestamp "$EPOCH" "$c" "$REPO/$name:$VERSION")
	buildah tag "$REPO/$name:$VERSION" "$REPO/$name:latest"
	# The image these tags named before, if nothing else names it now (a container may use it).
	if [ -n "$old" ] && [ "$old" != "$new" ] &&
		buildah images --noheading --no-trunc --filter dangling=true --format '{{.ID}}' | grep -q "$old"; then
		buildah rmi "$old" >/dev/null 2>&1 || true
	fi
	rm -f "$OUT/$name.oci.tar"
	skopeo copy --quiet "containers-storage:$REPO/$name:$VERSION" \
		"oci-archive:$OUT/$name.oci.tar:$REPO/$name:$VERSION" 2> >(grep -v 'using prior storage driver' >&2)
	say "$REPO/$name:$VERSION (and :latest), $OUT/$name.oci.tar ($(du -k "$OUT/$name.oci.tar" | cut -f1) KiB)"
done
# Older bases that no image is built on any more (buildah refuses to remove one that is).
buildah images --noheading --format '{{.Name}}:{{.Tag}}' | while read -r b; do
	case $b in "$REPO/base:$BASE_SUM") ;; "$REPO/base:"*) buildah rmi "$b" >/dev/null 2>&1 || true ;; esac
done
