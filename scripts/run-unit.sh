#!/usr/bin/env bash
# Run each cmocka binary given; report every failure, exit non-zero if any failed.
# With CMOCKA_XML_DIR set, each binary also writes a JUnit report there.
set -u
failed=()
for t in "$@"; do
	if [ -n "${CMOCKA_XML_DIR:-}" ]; then
		mkdir -p "$CMOCKA_XML_DIR"
		export CMOCKA_MESSAGE_OUTPUT=XML CMOCKA_XML_FILE="$CMOCKA_XML_DIR/$(basename "$t").xml"
	fi
	if ! "$t"; then
		failed+=("$(basename "$t")")
	fi
done
if [ ${#failed[@]} -ne 0 ]; then
	echo "unit: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "unit: $# test binaries passed"
