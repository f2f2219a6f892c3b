#!/usr/bin/env bash
# The README's first command: install what is missing, build in release mode, run the daemon.
# Arguments go to `larder serve` (e.g. --listen 127.0.0.1:8080 --config config/larder.json).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || { echo "larder: Swift 6 is needed (https://swift.org/install)" >&2; exit 1; }
scripts/deps.sh
swift build -c release --product larder
exec .build/release/larder serve "$@"
