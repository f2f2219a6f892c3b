#!/usr/bin/env bash
# The README's second command: install what is missing and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || { echo "larder: Swift 6 is needed (https://swift.org/install)" >&2; exit 1; }
scripts/deps.sh
swift build --build-tests
swift test --skip-build "$@"
