#!/usr/bin/env bash
# What the image tests (test_image.sh, test_volcano_install.sh) share: how a container is run
# here, the images made when missing, and the containers removed with the test. Source it after
# lib.sh and set CNAME (the prefix of this test's container names) first.

# shellcheck disable=SC2034 # used by the tests that source this file
REPO=${IMAGE_REPO:-localhost/caldera}
IMAGES=(vc-controller-manager vc-scheduler vc-webhook-manager)
# shellcheck disable=SC2034
SA_MOUNT=/var/run/secrets/kubernetes.io/serviceaccount
# What a restricted pod gets; the ulimits and runc because this machine's podman needs them.
# shellcheck disable=SC2034
PODMAN_RUN=(podman run --rm --pull never --runtime runc --network host --read-only
	--cap-drop all --security-opt no-new-privileges
	--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)

command -v podman >/dev/null || fail "podman is missing (apt-get install podman runc)"
[ "$(id -u)" -eq 0 ] || fail "run as root: the images are in root's containers-storage"

# images_ensure: build the three images with scripts/image.sh when one of them is missing.
images_ensure() {
	local i
	for i in "${IMAGES[@]}"; do
		podman image exists "$REPO/$i:latest" || {
			IMAGE_REPO=$REPO "$E2E_ROOT/scripts/image.sh" >&2 || fail "scripts/image.sh failed"
			break
		}
	done
}

# The containers go with the test: after the daemons (their podman run) are stopped, whatever is
# left of them is removed by name. _e2e_exit ends with exit: that exit removes them.
_image_cleanup() {
	local ids
	ids=$(podman ps -aq --filter "name=^$CNAME-" 2>/dev/null) || return 0
	# shellcheck disable=SC2086 # the IDs are words
	[ -z "$ids" ] || podman rm -f --time 2 $ids >/dev/null 2>&1 || true
}
_image_exit() {
	local rc=$?
	set +e # the status is set again below for _e2e_exit
	# shellcheck disable=SC2317 # called by _e2e_exit's exit
	exit() {
		unset -f exit
		_image_cleanup
		builtin exit "$@"
	}
	(builtin exit "$rc")
	_e2e_exit
}
# images_trap: remove this test's containers on exit (after lib.sh's own exit handling).
images_trap() { trap _image_exit EXIT; }
