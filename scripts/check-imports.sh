#!/usr/bin/env bash
# The pure targets must stay pure: no sockets, files, threads or C handles (see ARCHITECTURE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(grep -rnE '^\s*import\s+(Foundation|Glibc|Dispatch|CCurl|Darwin|Musl|GRDB)\s*$' Sources/HTTPWire Sources/CachePolicy || true)
if [ -n "$bad" ]; then
  echo "pure targets import I/O modules:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "pure targets: ok"
