#!/bin/sh
# A fake exec credential plugin that fails (see README.md beside it).
echo "fail.sh: no credentials for you" >&2
exit 3
