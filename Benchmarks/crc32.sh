#!/usr/bin/env bash
# The body checksum's throughput, zlib's crc32 beside libdeflate's (which Larder uses), on the server CPU of run.sh.
#
#   Benchmarks/crc32.sh
#
# Needs gcc, zlib1g-dev and libdeflate-dev; installs the two libraries with apt when run as root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
missing=()
[[ -e /usr/include/zlib.h ]] || missing+=(zlib1g-dev)
[[ -e /usr/include/libdeflate.h ]] || missing+=(libdeflate-dev)
if ((${#missing[@]})); then
    ((EUID == 0)) || { echo "missing ${missing[*]}; run as root to install them" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
gcc -O2 -o "$binary" crc32.c -lz -ldeflate
taskset -c "${BENCH_SERVER_CPU:-0}" "$binary"
