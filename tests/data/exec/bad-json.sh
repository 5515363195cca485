#!/bin/sh
# A fake exec credential plugin whose output is not JSON (see README.md beside it).
echo '{"kind":"ExecCredential",'
