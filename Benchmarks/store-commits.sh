#!/bin/sh
# CPU the store spends per committed 1 KiB miss (the best of several runs: the machine is shared, and the least
# disturbed run is the closest to the cost itself), and pwrite calls per commit (strace).
#   Benchmarks/store-commits.sh [wave] [runs]   (wave: commits in flight at once, default 1; runs default 7)
#   Benchmarks/store-commits.sh cN [runs]       (N clients, each committing again when its last commit completes)
# Needs a release build with tests:
#   swift build -c release --scratch-path .build-store --build-tests -Xswiftc -enable-testing
# (valgrind 3.19 cannot read this toolchain's DWARF 5, and crashes on the stripped test runner.)
set -eu
cd "$(dirname "$0")/.."
wave=${1:-1}
case $wave in
c*) export LARDER_STORE_BENCH_CLIENTS=${wave#c} ;;
esac
runs=${2:-7}
count=${COUNT:-5000}
binary=${BINARY:-.build-store/release/larderPackageTests.xctest}
out=$(mktemp -d)
i=0
while [ "$i" -lt "$runs" ]; do
    LARDER_STORE_BENCH=1 LARDER_STORE_BENCH_COUNT=$count LARDER_STORE_BENCH_WAVE=$wave \
        "$binary" --testing-library swift-testing --filter CommitBenchTests 2>&1 |
        sed -n 's/.*cpu-us-per-commit \([0-9.]*\).*/\1/p' >>"$out/cpu"
    i=$((i + 1))
done
all=$(sort -n "$out/cpu" | tr '\n' ' ')
echo "wave $wave: CPU us per commit, best of $runs: $(sort -n "$out/cpu" | head -1) (all: $all)"
for n in 1000 3000; do
    LARDER_STORE_BENCH=1 LARDER_STORE_BENCH_COUNT=$n LARDER_STORE_BENCH_WAVE=$wave \
        strace -f -c -e trace=pwrite64,fdatasync,fsync -o "$out/strace.$n" "$binary" --testing-library swift-testing \
        --filter CommitBenchTests >/dev/null 2>&1
done
pa=$(awk '$NF == "pwrite64" {print $4}' "$out/strace.1000")
pb=$(awk '$NF == "pwrite64" {print $4}' "$out/strace.3000")
echo "wave $wave: pwrite64 per commit: $(echo "scale=2; ($pb - $pa) / 2000" | bc)"
