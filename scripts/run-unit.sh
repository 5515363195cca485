#!/usr/bin/env bash
# Run each cmocka binary given. A passing binary prints one line; a failing one prints its whole
# output. Exit non-zero if any failed. UNIT_VERBOSE=1 shows every binary's output; with
# CMOCKA_XML_DIR set, each binary writes a JUnit report there instead.
set -u
failed=()
for t in "$@"; do
	name=$(basename "$t")
	if [ -n "${CMOCKA_XML_DIR:-}" ]; then
		mkdir -p "$CMOCKA_XML_DIR"
		export CMOCKA_MESSAGE_OUTPUT=XML CMOCKA_XML_FILE="$CMOCKA_XML_DIR/$name.xml"
	fi
	start=$(date +%s.%N)
	if out=$("$t" 2>&1); then
		[ -n "${UNIT_VERBOSE:-}" ] && printf '%s\n' "$out"
		n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
		printf '  PASS  %-22s %4s tests  %5.2fs\n' "$name" "${n:-?}" \
			"$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
	else
		printf '%s\n' "$out"
		printf '  FAIL  %s\n' "$name"
		failed+=("$name")
	fi
done
if [ ${#failed[@]} -ne 0 ]; then
	echo "unit: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "unit: $# test binaries passed"
