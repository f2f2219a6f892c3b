#!/usr/bin/env bash
# Compares two Larder binaries on one workload, in alternating pairs, with the origin, config and wrk script of
# run.sh: requests/s and CPU per request of each (Larder's process, all threads, from /proc) beside the origin's,
# latency, Larder's peak RSS, and on the miss workload the index file's bytes per stored entry.
# Pairs taken in turn keep slow drifts of a shared machine out of the comparison, which is why the figures of
# the changes in issue 7's notes came from here rather than from two separate runs of run.sh.
#
#   Benchmarks/ab.sh OLD_BINARY NEW_BINARY [pairs]     (default 3 pairs)
#
# Environment: as run.sh (BENCH_PORT_BASE, BENCH_PIN, BENCH_KEEP, BENCH_TMP), plus AB_PATH=/miss/ (the
# workload: /miss/ is a new URL each request, /1k a hit), AB_SECONDS=8 per measurement, AB_CONNECTIONS=50.
# Each measurement starts its Larder on an empty cache.
set -euo pipefail
# shellcheck source=run.sh
source "$(dirname "${BASH_SOURCE[0]}")/run.sh"

AB_PATH=${AB_PATH:-/miss/}
AB_SECONDS=${AB_SECONDS:-8}
AB_CONNECTIONS=${AB_CONNECTIONS:-50}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# measure_binary(binary, tag): one measurement; prints "req/s larder_us_per_request origin_us_per_request p50_ms
# p99_ms peak_rss_mib index_bytes_per_entry" (the last "-" below 1000 entries, as on a hit workload).
measure_binary() {
    LARDER_BIN=$1
    rm -rf "$WORK/larder-cache"
    mkdir -p "$WORK/larder-cache"
    start_larder
    local unique=0
    [[ $AB_PATH == /miss/ ]] && unique=1
    wrk_run "$LARDER_PORT" absolute "$AB_PATH" "$AB_CONNECTIONS" 1 "$unique" "warm-$2-" >/dev/null
    local origin_pid larder_before origin_before line
    origin_pid=$(children "$ORIGIN_PID" | head -1)
    larder_before=$(cpu_ticks "$LARDER_PID")
    origin_before=$(cpu_ticks "$origin_pid")
    line=$(wrk_run "$LARDER_PORT" absolute "$AB_PATH" "$AB_CONNECTIONS" "$AB_SECONDS" "$unique" "$2-")
    local larder_ticks=$(($(cpu_ticks "$LARDER_PID") - larder_before))
    local origin_ticks=$(($(cpu_ticks "$origin_pid") - origin_before))
    local rss_kib entries index_bytes
    rss_kib=$(peak_kib "$LARDER_PID")
    entries=$(larder_entries)
    stop_larder
    # After a clean stop SQLite has checkpointed the WAL into the file and removed it.
    index_bytes=$(stat -c %s "$WORK/larder-cache/index.sqlite" 2>/dev/null || echo 0)
    local requests duration hz
    requests=$(field requests "$line")
    duration=$(field duration_us "$line")
    hz=$(getconf CLK_TCK)
    awk -v r="$requests" -v d="$duration" -v l="$larder_ticks" -v o="$origin_ticks" -v hz="$hz" \
        -v p50="$(field p50_us "$line")" -v p99="$(field p99_us "$line")" \
        -v rss="$rss_kib" -v n="${entries:-0}" -v ib="$index_bytes" \
        'BEGIN { printf "%.0f %.1f %.1f %.2f %.2f %.0f %s\n", r / (d / 1e6), l * 1e6 / hz / r, o * 1e6 / hz / r,
            p50 / 1e3, p99 / 1e3, rss / 1024, (n >= 1000 ? sprintf("%.0f", ib / n) : "-") }'
}

ab_main() {
    (($# >= 2)) || die "usage: Benchmarks/ab.sh OLD_BINARY NEW_BINARY [pairs]"
    local old=$1 new=$2 pairs=${3:-3}
    [[ -x $old && -x $new ]] || die "both binaries must be executable"
    need_tools
    set_up larder-ab
    echo "| pair | binary | req/s | Larder CPU µs / request | origin CPU µs / request | p50 / p99 ms | peak RSS MiB |" \
        "index bytes / entry |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|"
    local pair binary tag
    for ((pair = 1; pair <= pairs; pair++)); do
        for binary in "$old" "$new"; do
            tag=$([[ $binary == "$old" ]] && echo old || echo new)
            read -r rps larder origin p50 p99 rss per_entry <<<"$(measure_binary "$binary" "$tag$pair")"
            echo "| $pair | $tag | $rps | $larder | $origin | $p50 / $p99 | $rss | $per_entry |"
        done
    done
}

ab_main "$@"
