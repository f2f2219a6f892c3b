#!/usr/bin/env bash
# Profiles Larder's 1 KiB hit path and its miss path, beside nginx, with the origin, configs and wrk
# script of run.sh. Writes Benchmarks/results/profile.md.
#
#   Benchmarks/profile.sh
#
# 1. Cost per request under wrk load (50 connections, pinned as in run.sh): CPU time and context switches
#    of the server's process (`perf stat -e task-clock,context-switches`, software events, which work in a VM).
# 2. System calls per request (`strace -f -c` for a few seconds of wrk load at 10 connections).
# 3. Where the CPU goes: `perf record -e cpu-clock --call-graph dwarf` on Larder, reported as the hottest
#    functions by self time (kernel included) and Larder's own functions by inclusive time.
#
# Hardware counters (`perf stat -e instructions`) are not available in this VM, so perf samples the
# cpu-clock software event. valgrind --tool=callgrind was tried and cannot run Larder here: valgrind 3.19
# cannot read the DWARF 5 that Swift 6 emits, and with debug info stripped it dies with an internal
# SIGSEGV while delivering a signal to the main thread parked in libdispatch's sigsuspend.
#
# Environment: as run.sh (LARDER_BIN, LARDER_SCRATCH_PATH, BENCH_PORT_BASE, BENCH_PIN, BENCH_KEEP), plus
# PROFILE_SECONDS=4 (sampling window), PROFILE_STRACE_SECONDS=3, PROFILE_TOP=30.
set -euo pipefail
# shellcheck source=run.sh
source "$(dirname "${BASH_SOURCE[0]}")/run.sh"

WINDOW=${PROFILE_SECONDS:-4}
STRACE_SECONDS=${PROFILE_STRACE_SECONDS:-3}
TOP=${PROFILE_TOP:-30}

demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }

# load(port, path, unique, tag, seconds): wrk in the background at 50 connections; sets LOAD_PID, LOAD_OUT.
load() {
    LOAD_OUT=$WORK/load-$4.out
    BENCH_ORIGIN="127.0.0.1:$ORIGIN_PORT" BENCH_FORM=absolute BENCH_PATH=$2 BENCH_UNIQUE=$3 BENCH_TAG="$4-" \
        "${ON_CLIENT[@]}" wrk -t"$WRK_THREADS" -c50 -d"$5"s -s "$BENCH/proxy.lua" "http://127.0.0.1:$1/" >"$LOAD_OUT" 2>&1 &
    LOAD_PID=$!
}

# cost(name, port, path, unique, pids...): prints "req/s cpu_us_per_request switches_per_request".
cost() {
    local name=$1 port=$2 path=$3 unique=$4
    shift 4
    local pids
    pids=$(tr ' ' ',' <<<"$*")
    load "$port" "$path" "$unique" "cost-$name" $((WINDOW + 2))
    sleep 1
    perf stat -x, -e task-clock,context-switches -p "$pids" -o "$WORK/stat-$name" -- sleep "$WINDOW" >/dev/null 2>&1
    wait "$LOAD_PID"
    local requests duration
    requests=$(field requests "$(grep '^BENCH' "$LOAD_OUT")")
    duration=$(field duration_us "$(grep '^BENCH' "$LOAD_OUT")")
    awk -F, -v r="$requests" -v d="$duration" -v w="$WINDOW" '
        $3 == "task-clock" { cpu = $1 }          # milliseconds
        $3 == "context-switches" { cs = $1 }
        END { rps = r / (d / 1e6); printf "%.0f %.1f %.2f\n", rps, cpu * 1000 / (rps * w), cs / (rps * w) }' \
        "$WORK/stat-$name"
}

# syscalls(name, port, path, unique, pid): the system calls per request of `pid` (all threads) while wrk
# runs for STRACE_SECONDS at 10 connections under strace (which slows the server; the counts stay valid).
syscalls() {
    local name=$1 port=$2 path=$3 unique=$4 pid=$5 line requests
    strace -f -c -o "$WORK/strace-$name" -p "$pid" 2>/dev/null &
    local tracer=$!
    sleep 1
    line=$(wrk_run "$port" absolute "$path" 10 "$STRACE_SECONDS" "$unique" "strace-$name-")
    requests=$(field requests "$line")
    sleep 0.5
    kill -INT "$tracer"
    wait "$tracer" 2>/dev/null || true
    awk -v n="$requests" '
        $NF == "total" { printf "**%.1f** (%d requests)", $4 / n, n; exit }
        /^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+/ {
            calls = $4; name = $NF
            if (calls / n >= 0.1) printf "%s %.1f, ", name, calls / n
        }' "$WORK/strace-$name"
}

# hotspots(name, port, path, unique): perf record on Larder under load; self and inclusive tables.
hotspots() {
    local name=$1 data=$WORK/perf-$1.data
    set +o pipefail   # `perf report | head` ends perf report early, on purpose
    load "$2" "$3" "$4" "perf-$name" $((WINDOW + 2))
    sleep 1
    perf record -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$LARDER_PID" -o "$data" -- sleep "$WINDOW" >/dev/null 2>&1
    wait "$LOAD_PID"
    echo "Samples: $(perf report -i "$data" --stdio --header-only 2>/dev/null | sed -n 's/^# Samples: \([^ ]*\).*/\1/p' | head -1)" \
        "over ${WINDOW}s; load: $(grep '^BENCH' "$LOAD_OUT" | sed 's/^BENCH //; s/ max_us.*//')."
    echo
    echo "By shared object (self):"
    echo
    echo '```'
    perf report -i "$data" --no-children --sort dso --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
    echo '```'
    echo
    echo "Hottest functions, self time (kernel included):"
    echo
    echo '```'
    perf report -i "$data" --no-children --sort dso,sym --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' |
        head -"$TOP" | demangle | cut -c1-180
    echo '```'
    echo
    echo "Larder's own functions, inclusive time (children included; thunks, partial applies and inlined frames left out):"
    echo
    echo '```'
    perf report -i "$data" --children --sort dso,sym --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' |
        awk '$3 == "larder"' | demangle | grep -v -e 'partial apply' -e 'thunk for' -e '(inlined)' -e 'protocol witness' |
        head -"$TOP" | cut -c1-180
    echo '```'
    set -o pipefail
}

profile_main() {
    need_tools
    command -v perf >/dev/null || die "perf is missing (apt-get install linux-perf)"
    command -v strace >/dev/null || {
        if ((EUID == 0)); then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null; else die "strace missing"; fi
    }
    build_larder
    set_up larder-profile
    start_larder
    start_nginx_proxy
    prime larder /1k
    prime nginx /1k
    wrk_run "$LARDER_PORT" absolute /1k 50 2 0 warm- >/dev/null
    wrk_run "$NGINX_PORT" absolute /1k 50 2 0 warm- >/dev/null

    say "cost per request"
    local l_hit n_hit l_miss n_miss p_miss
    l_hit=$(cost larder-hit "$LARDER_PORT" /1k 0 "$LARDER_PID")
    n_hit=$(cost nginx-hit "$NGINX_PORT" /1k 0 $NGINX_WORKERS)
    l_miss=$(cost larder-miss "$LARDER_PORT" /miss/ 1 "$LARDER_PID")
    n_miss=$(cost nginx-miss "$NGINX_PORT" /miss/ 1 $NGINX_WORKERS)
    p_miss=$(cost nginx-pool-miss "$NGINX_POOL_PORT" /miss/ 1 $NGINX_WORKERS)
    say "system calls per request"
    local worker
    worker=$(head -1 <<<"$NGINX_WORKERS")
    local s_lh s_nh s_lm s_nm s_pm
    s_lh=$(syscalls larder-hit "$LARDER_PORT" /1k 0 "$LARDER_PID")
    s_nh=$(syscalls nginx-hit "$NGINX_PORT" /1k 0 "$worker")
    s_lm=$(syscalls larder-miss "$LARDER_PORT" /miss/ 1 "$LARDER_PID")
    s_nm=$(syscalls nginx-miss "$NGINX_PORT" /miss/ 1 "$worker")
    s_pm=$(syscalls nginx-pool-miss "$NGINX_POOL_PORT" /miss/ 1 "$worker")

    local out=$BENCH/results/profile.md
    mkdir -p "$BENCH/results"
    {
        echo "# Larder profile"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo));" \
            "Larder $(cd "$ROOT" && git describe --always --dirty --exclude '*' 2>/dev/null || echo '?'); $(perf --version)." \
            "Caches under $(df --output=source,fstype "$WORK" | tail -1 | tr -s ' '). Produced by \`Benchmarks/profile.sh\`."
        echo
        echo "## Cost per request (50 connections; CPU time of the server process, all its threads)"
        echo
        echo "| path | server | req/s | CPU µs / request | context switches / request | system calls / request (strace, 10 connections) |"
        echo "|---|---|---:|---:|---:|---|"
        row() { read -r rps cpu cs <<<"$3"; echo "| $1 | $2 | $rps | $cpu | $cs | $4 |"; }
        row "1 KiB hit" larder "$l_hit" "$s_lh"
        row "1 KiB hit" nginx "$n_hit" "$s_nh"
        row "miss" larder "$l_miss" "$s_lm"
        row "miss" nginx "$n_miss" "$s_nm"
        row "miss" "nginx, upstream pool" "$p_miss" "$s_pm"
        echo
        echo "## Larder, 1 KiB hits (perf, cpu-clock, DWARF call graphs)"
        echo
        hotspots hit "$LARDER_PORT" /1k 0
        echo
        echo "## Larder, misses (a new URL each, origin cacheable)"
        echo
        hotspots miss "$LARDER_PORT" /miss/ 1
    } >"$out"
    cat "$out"
    say "written to Benchmarks/results/profile.md"
}

profile_main "$@"
