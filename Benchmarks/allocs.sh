#!/usr/bin/env bash
# Heap allocations per request: malloc, calloc and realloc calls into mimalloc by Larder's process (libcurl and
# SQLite included), counted exactly with uprobes while wrk runs the workload of run.sh. Unlike CPU time, the count
# does not drift with a shared VM's speed, so one run tells whether a change added or removed allocations.
#
#   Benchmarks/allocs.sh [BINARY ...]        (default: a release build; each binary measured on /miss/ and /1k)
#
# Environment: as run.sh (BENCH_PORT_BASE, BENCH_PIN, BENCH_TMP), plus ALLOCS_SECONDS=3, ALLOCS_CONNECTIONS=50,
# ALLOCS_PATHS="/miss/ /1k". Needs root (uprobes) and perf. The probes slow the process while they count, so
# req/s here mean nothing; the counts do.
set -euo pipefail
# shellcheck source=run.sh
source "$(dirname "${BASH_SOURCE[0]}")/run.sh"

SECONDS_PER_RUN=${ALLOCS_SECONDS:-3}
CONNECTIONS=${ALLOCS_CONNECTIONS:-50}
PATHS=${ALLOCS_PATHS:-/miss/ /1k}
EVENTS=probe_libmimalloc:larder_malloc,probe_libmimalloc:larder_calloc,probe_libmimalloc:larder_realloc

add_probes() {
    local library
    library=$(ldd "$LARDER_BIN" | awk '/libmimalloc/ { print $3 }')
    [[ -n $library ]] || die "$LARDER_BIN does not link mimalloc"
    library=$(readlink -f "$library")
    for function in malloc calloc realloc; do
        perf probe -q -d "probe_libmimalloc:larder_$function" 2>/dev/null || true
        perf probe -q -x "$library" --add "larder_$function=$function" || die "cannot add a uprobe on $function"
    done
}

remove_probes() {
    for function in malloc calloc realloc; do perf probe -q -d "probe_libmimalloc:larder_$function" 2>/dev/null || true; done
}

# count(path): prints "malloc calloc realloc" per request over one wrk run.
count() {
    local path=$1 unique=0 line stat=$WORK/perf-stat
    [[ $path == /miss/ ]] && unique=1
    [[ $unique == 1 ]] || prime larder "$path"
    wrk_run "$LARDER_PORT" absolute "$path" "$CONNECTIONS" 1 "$unique" "warm-" >/dev/null
    perf stat -x, -e "$EVENTS" -p "$LARDER_PID" -o "$stat" &
    local counter=$!
    sleep 0.5
    line=$(wrk_run "$LARDER_PORT" absolute "$path" "$CONNECTIONS" "$SECONDS_PER_RUN" "$unique" "count-")
    sleep 0.2
    kill -INT "$counter"
    wait "$counter" || true
    awk -F, -v r="$(field requests "$line")" '
        /larder_malloc/ { m = $1 } /larder_calloc/ { c = $1 } /larder_realloc/ { re = $1 }
        END { printf "%.1f %.1f %.1f\n", m / r, c / r, re / r }' "$stat"
}

allocs_main() {
    need_tools
    command -v perf >/dev/null || die "perf is missing (apt-get install linux-perf)"
    ((EUID == 0)) || die "uprobes need root"
    local binaries=("$@")
    if ((${#binaries[@]} == 0)); then
        build_larder
        binaries=("$LARDER_BIN")
    fi
    set_up larder-allocs
    trap 'remove_probes; cleanup' EXIT
    echo "| binary | path | malloc / request | calloc / request | realloc / request |"
    echo "|---|---|---:|---:|---:|"
    local binary path
    for binary in "${binaries[@]}"; do
        LARDER_BIN=$binary
        add_probes
        for path in $PATHS; do
            rm -rf "$WORK/larder-cache"
            mkdir -p "$WORK/larder-cache"
            start_larder
            read -r m c re <<<"$(count "$path")"
            stop_larder
            echo "| $binary | $path | $m | $c | $re |"
        done
    done
}

allocs_main "$@"
