#!/bin/sh
# A fake exec credential plugin that never finishes (see README.md beside it).
exec sleep 600
