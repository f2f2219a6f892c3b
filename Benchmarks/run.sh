#!/usr/bin/env bash
# Side-by-side benchmark (issue 7): direct to an nginx origin, through Larder, and through nginx as a
# caching forward proxy, in one run on this machine. Prints a table and writes Benchmarks/results/latest.md.
#
#   Benchmarks/run.sh                      # builds Larder (release), runs everything (~8 minutes on 2 cores)
#
# Environment (all optional):
#   LARDER_BIN=path             use this larder binary instead of building one
#   LARDER_SCRATCH_PATH=dir     swift build --scratch-path (default: .build-bench in the repository)
#   BENCH_DURATION=5            seconds per measurement        BENCH_REPEAT=5    measurements per cell (median)
#   BENCH_WARMUP=2              seconds of warm-up per cell    BENCH_FILL_SECONDS=60   miss traffic before start-up
#   BENCH_PORT_BASE=18080       first port tried (origin, Larder, nginx, nginx with an upstream pool)
#   BENCH_PIN=1                 servers on CPU $BENCH_SERVER_CPU (0), wrk and curl on $BENCH_CLIENT_CPU (1)
#   BENCH_WRK_THREADS=1         wrk threads (one per client core)
#   BENCH_STORE_TEST=0          1: also run the store's million-entry start-up test (LARDER_STORE_BENCH=1)
#   BENCH_KEEP=0                1: keep the temporary directory (configs, logs, caches)
#   BENCH_MEMORY_MIB=256        Larder's memory tier; 16 keeps it evicting on every miss, 1024 never
#   BENCH_ONLY="1k-c50 miss-c50"  run only these workloads (also "big", "startup"); prints, leaves latest.md alone
#   BENCH_TMP=dir               where that directory goes; both caches live in it. Default /dev/shm (tmpfs) when
#                               it has 4 GiB free, else /tmp. On this machine's ext4, nginx's miss path (a file and
#                               directories per entry) swung from 0.6k to 7k req/s with how many files other work had
#                               just deleted (ext4's inode allocator); tmpfs keeps the run repeatable.
#
# Everything listens on 127.0.0.1 only. Every process the script starts is stopped on exit.
set -euo pipefail
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/Benchmarks
DURATION=${BENCH_DURATION:-5}
REPEAT=${BENCH_REPEAT:-5}
WARMUP=${BENCH_WARMUP:-2}
FILL_SECONDS=${BENCH_FILL_SECONDS:-60}
PORT_BASE=${BENCH_PORT_BASE:-18080}
PIN=${BENCH_PIN:-1}
SERVER_CPU=${BENCH_SERVER_CPU:-0}
CLIENT_CPU=${BENCH_CLIENT_CPU:-1}
WRK_THREADS=${BENCH_WRK_THREADS:-1}
SCRATCH=${LARDER_SCRATCH_PATH:-$ROOT/.build-bench}
MEMORY_TIER_MIB=${BENCH_MEMORY_MIB:-256}
MEMORY_TIER=${MEMORY_TIER_MIB}MiB

say() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------- tools

need_tools() {
    local missing=() tool package
    for pair in nginx:nginx-light wrk:wrk curl:curl taskset:util-linux ss:iproute2 awk:gawk; do
        tool=${pair%%:*} package=${pair#*:}
        command -v "$tool" >/dev/null 2>&1 || missing+=("$package")
    done
    if [[ -z ${LARDER_BIN:-} ]]; then
        for header in /usr/include/x86_64-linux-gnu/curl/curl.h:libcurl4-openssl-dev /usr/include/sqlite3.h:libsqlite3-dev \
            /usr/include/libdeflate.h:libdeflate-dev /usr/include/mimalloc.h:libmimalloc-dev; do
            local file=${header%%:*} package=${header#*:}
            if [[ ! -e $file ]] && ! dpkg -s "$package" >/dev/null 2>&1; then missing+=("$package"); fi
        done
    fi
    ((${#missing[@]} == 0)) && return
    if ((EUID == 0)) && command -v apt-get >/dev/null; then
        say "installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        die "missing ${missing[*]}; run as root to install them with apt-get"
    fi
}

# The commit the report names, taken before anything (latest.md itself) changes the tree: otherwise every full run
# reported itself "-dirty". With LARDER_BIN, the binary's own build may differ, so the report says it was given.
REVISION=""
build_larder() {
    REVISION=$(cd "$ROOT" && git describe --always --dirty --exclude '*' 2>/dev/null || echo '?')
    if [[ -n ${LARDER_BIN:-} ]]; then
        [[ -x $LARDER_BIN ]] || die "LARDER_BIN=$LARDER_BIN is not executable"
        REVISION+=" (LARDER_BIN=$LARDER_BIN)"
        return
    fi
    say "building larder (release) in $SCRATCH"
    (cd "$ROOT" && swift build -c release --product larder --scratch-path "$SCRATCH" >&2)
    LARDER_BIN=$(cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/larder
}

# ---------------------------------------------------------------------------------------------- processes

STARTED=()     # pids to stop on exit
WORK=""

cleanup() {
    local pid
    for pid in "${STARTED[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${STARTED[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ -n $WORK && ${BENCH_KEEP:-0} != 1 ]]; then rm -rf "$WORK"; elif [[ -n $WORK ]]; then say "kept $WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

forget() {  # forget($pid): it was stopped on purpose
    local keep=() pid
    for pid in "${STARTED[@]}"; do [[ $pid == "$1" ]] || keep+=("$pid"); done
    STARTED=("${keep[@]}")
}

# Command prefixes, not functions: a backgrounded function would run in a subshell and `$!` would not be the server.
ON_SERVER=()
ON_CLIENT=()
LARDER_PREFIX=()   # profile.sh runs Larder under valgrind

port_free() { ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
next_port() {
    local port=$1
    while ! port_free "$port"; do port=$((port + 1)); done
    echo "$port"
}

wait_port() {  # wait_port(port): until something listens on it, up to 10 s
    for _ in $(seq 1000); do
        port_free "$1" || return 0
        sleep 0.01
    done
    die "nothing listens on port $1"
}

wait_http() {  # wait_http(url[, seconds[, pid]]): until it answers at all, up to 10 s, while pid lives
    for _ in $(seq $((${2:-10} * 100))); do
        curl -s -o /dev/null --max-time 1 "$1" && return 0
        [[ -z ${3:-} ]] || kill -0 "$3" 2>/dev/null || die "the server for $1 exited (logs in $WORK)"
        sleep 0.01
    done
    die "nothing answers at $1"
}

now_ns() { date +%s%N; }

work_parent() {
    if [[ -n ${BENCH_TMP:-} ]]; then
        echo "$BENCH_TMP"
    elif [[ -d /dev/shm && -w /dev/shm ]] && (($(df --output=avail -k /dev/shm | tail -1) > 4 * 1024 * 1024)); then
        echo /dev/shm
    else
        echo /tmp
    fi
}

# How busy the machine is while our servers are idle, in percent of all CPUs over one second: other
# work on a shared machine skews every number, so the report shows it.
busy_percent() {
    local a b
    a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0f", 100 * (y[1] - x[1]) / (y[2] - x[2]) }'
}

# Waits (up to BENCH_WAIT_IDLE seconds, default 60) for the machine to be nearly idle before measuring.
wait_quiet() {
    local limit=${BENCH_WAIT_IDLE:-60} waited=0 busy
    busy=$(busy_percent)
    while ((busy > 10 && waited < limit)); do
        ((waited == 0)) && say "machine is ${busy}% busy; waiting up to ${limit}s for it to calm down"
        sleep 4
        waited=$((waited + 5))
        busy=$(busy_percent)
    done
    LAST_BUSY=$busy
}
BUSY=""        # "workload busy%" per workload

# The worker processes of an nginx master (not its cache manager and loader).
children() {
    local pid
    for pid in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'worker process'; then echo "$pid"; fi
    done
}

reset_peak() { local pid; for pid in "$@"; do echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true; done; }
peak_kib() {  # the sum of VmHWM over the given pids
    local total=0 pid value
    for pid in "$@"; do
        value=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
        total=$((total + ${value:-0}))
    done
    echo "$total"
}

# ---------------------------------------------------------------------------------------------- servers

write_files() {
    mkdir -p "$WORK/www"
    local name size
    for pair in 1k:1024 16k:16384 1m:1048576 64m:67108864; do
        name=${pair%%:*} size=${pair#*:}
        yes 'larder benchmark body 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ' | head -c "$size" >"$WORK/www/$name" || true  # yes: SIGPIPE
    done
}

nginx_common() {  # nginx_common(dir): the main-context lines both nginx instances share
    ((EUID == 0)) && echo "user root;"
    cat <<EOF
worker_processes 1;
worker_rlimit_nofile 65536;
pid $1/nginx.pid;
error_log $1/error.log warn;
events { worker_connections 16384; }
EOF
}

nginx_http_common() {
    cat <<EOF
    access_log off;
    client_body_temp_path $1/client_body;
    proxy_temp_path $1/proxy_temp;
    fastcgi_temp_path $1/fastcgi;
    uwsgi_temp_path $1/uwsgi;
    scgi_temp_path $1/scgi;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 120s;
    keepalive_requests 10000000;
    open_file_cache max=10000 inactive=120s;
    open_file_cache_valid 120s;
EOF
}

start_origin() {
    local dir=$WORK/origin
    mkdir -p "$dir"
    {
        nginx_common "$dir"
        echo "http {"
        nginx_http_common "$dir"
        cat <<EOF
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$ORIGIN_PORT backlog=1024;
        root $WORK/www;
        location / {
            add_header Cache-Control "public, max-age=3600";
        }
        # The miss workload: any path, always the 1 KiB file, always cacheable.
        location /miss/ {
            try_files /1k =404;
            add_header Cache-Control "public, max-age=3600";
        }
    }
}
EOF
    } >"$dir/nginx.conf"
    "${ON_SERVER[@]}" nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' &
    ORIGIN_PID=$!
    STARTED+=("$ORIGIN_PID")
    wait_http "http://127.0.0.1:$ORIGIN_PORT/1k" 10 "$ORIGIN_PID"
}

# nginx as a caching forward proxy, as issue 7 describes it: proxy_pass http://$http_host$request_uri.
# With a variable in proxy_pass, nginx cannot keep upstream connections alive (no upstream block),
# so a second port maps the benchmark origin to an upstream block with a keep-alive pool: the best
# nginx can do for a known origin. Hits never reach the origin; the miss workload is run on both.
start_nginx_proxy() {
    local dir=$WORK/nginx-proxy
    mkdir -p "$dir/cache"
    local location_common
    location_common=$(
        cat <<EOF
            proxy_cache larder_bench;
            proxy_cache_lock on;
            proxy_cache_valid 200 1h;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            add_header X-Cache \$upstream_cache_status;
EOF
    )
    {
        nginx_common "$dir"
        echo "http {"
        nginx_http_common "$dir"
        cat <<EOF
    proxy_cache_path $dir/cache levels=1:2 keys_zone=larder_bench:64m max_size=8g inactive=1d use_temp_path=off;
    proxy_max_temp_file_size 0;
    map \$http_host \$pooled_origin {
        "127.0.0.1:$ORIGIN_PORT" benchmark_origin;
        default \$http_host;
    }
    upstream benchmark_origin {
        server 127.0.0.1:$ORIGIN_PORT;
        keepalive 128;
        keepalive_requests 10000000;
    }
    server {
        listen 127.0.0.1:$NGINX_PORT backlog=1024;
        location / {
            proxy_pass http://\$http_host\$request_uri;
$location_common
        }
    }
    server {
        listen 127.0.0.1:$NGINX_POOL_PORT backlog=1024;
        location / {
            proxy_pass http://\$pooled_origin\$request_uri;
$location_common
        }
    }
}
EOF
    } >"$dir/nginx.conf"
    "${ON_SERVER[@]}" nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' &
    NGINX_PID=$!
    STARTED+=("$NGINX_PID")
    wait_port "$NGINX_PORT"
    wait_port "$NGINX_POOL_PORT"
    NGINX_WORKERS=$(children "$NGINX_PID")
}

write_larder_config() {
    mkdir -p "$WORK/larder-cache"
    cat >"$WORK/larder.json" <<EOF
{
  "listen": "127.0.0.1:$LARDER_PORT",
  "log": { "level": "warning", "access": false },
  "limits": { "maxConnections": 16384 },
  "cache": {
    "directory": "$WORK/larder-cache",
    "memory": { "maxBytes": "$MEMORY_TIER" },
    "disk": { "maxBytes": "16GiB" },
    "maxObjectSize": "256MiB"
  }
}
EOF
}

start_larder() {  # sets LARDER_PID, and LARDER_READY_MS: the milliseconds until /_larder/health answered
    local started ready
    started=$(now_ns)
    "${ON_SERVER[@]}" "${LARDER_PREFIX[@]}" "$LARDER_BIN" serve --config "$WORK/larder.json" 2>>"$WORK/larder.log" &
    LARDER_PID=$!
    STARTED+=("$LARDER_PID")
    wait_http "http://127.0.0.1:$LARDER_PORT/_larder/health" $((${#LARDER_PREFIX[@]} ? 120 : 10)) "$LARDER_PID"
    ready=$(now_ns)
    LARDER_READY_MS=$(((ready - started) / 1000000))
}

stop_larder() {
    kill -TERM "$LARDER_PID"
    wait "$LARDER_PID" || die "larder exited with status $? on SIGTERM (log: $WORK/larder.log)"
    forget "$LARDER_PID"
}

larder_entries() {
    curl -s "http://127.0.0.1:$LARDER_PORT/_larder/stats" | sed -n 's/^{"entries":\([0-9]*\).*/\1/p'
}

# ---------------------------------------------------------------------------------------------- measuring

RESULTS=""     # one line per measurement: workload server rep requests rps p50_us p99_us mbps errors

# wrk_run(port, form, path, connections, seconds, unique, tag): prints the BENCH line.
wrk_run() {
    local output
    output=$(BENCH_ORIGIN="127.0.0.1:$ORIGIN_PORT" BENCH_FORM=$2 BENCH_PATH=$3 BENCH_UNIQUE=$6 BENCH_TAG=$7 \
        "${ON_CLIENT[@]}" wrk -t"$WRK_THREADS" -c"$4" -d"$5"s --timeout 5s -s "$BENCH/proxy.lua" "http://127.0.0.1:$1/" 2>&1) \
        || { say "wrk failed: $output"; return 1; }
    grep '^BENCH ' <<<"$output" || { say "no BENCH line: $output"; return 1; }
}

field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<" $2"; }

# The port, request form and pids whose memory is watched, for each server.
server_port() { case $1 in direct) echo "$ORIGIN_PORT" ;; larder) echo "$LARDER_PORT" ;; nginx) echo "$NGINX_PORT" ;; nginx-pool) echo "$NGINX_POOL_PORT" ;; esac; }
server_form() { [[ $1 == direct ]] && echo origin || echo absolute; }

# prime(server, path): fetch once so the next requests are hits; warns when the second is not a hit.
prime() {
    [[ $1 == direct ]] && return
    local port status
    port=$(server_port "$1")
    curl -s -o /dev/null -x "http://127.0.0.1:$port" "http://127.0.0.1:$ORIGIN_PORT$2"
    sleep 0.2   # the store commits after the response; a hit needs the commit
    status=$(curl -s -o /dev/null -D - -x "http://127.0.0.1:$port" "http://127.0.0.1:$ORIGIN_PORT$2" |
        tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" { print $2 }')
    [[ $status == HIT* ]] || say "warning: $1 answered $2 with X-Cache: ${status:-none} after priming"
}

# measure(workload, path, connections, unique, servers...): warm-up, then REPEAT rounds over the servers.
measure() {
    local workload=$1 path=$2 connections=$3 unique=$4
    shift 4
    local servers=("$@") server rep line requests duration bytes rps mbps errors
    wait_quiet
    BUSY+="$workload ${LAST_BUSY}%, "
    say "$workload: ${servers[*]} (machine ${LAST_BUSY}% busy before)"
    for server in "${servers[@]}"; do
        [[ $unique == 1 ]] || prime "$server" "$path"
        wrk_run "$(server_port "$server")" "$(server_form "$server")" "$path" "$connections" "$WARMUP" "$unique" \
            "$workload-$server-warm-" >/dev/null
    done
    reset_peak "$LARDER_PID" $NGINX_WORKERS
    for rep in $(seq "$REPEAT"); do
        for server in "${servers[@]}"; do
            line=$(wrk_run "$(server_port "$server")" "$(server_form "$server")" "$path" "$connections" "$DURATION" \
                "$unique" "$workload-$server-$rep-")
            requests=$(field requests "$line") duration=$(field duration_us "$line") bytes=$(field bytes "$line")
            errors=$(($(field err_connect "$line") + $(field err_read "$line") + $(field err_write "$line") +
                $(field err_timeout "$line") + $(field err_status "$line")))
            rps=$(awk -v r="$requests" -v d="$duration" 'BEGIN { printf "%.0f", r / (d / 1e6) }')
            mbps=$(awk -v b="$bytes" -v d="$duration" 'BEGIN { printf "%.1f", b / (d / 1e6) / 1e6 }')
            RESULTS+="$workload $server $rep $requests $rps $(field p50_us "$line") $(field p99_us "$line") $mbps $errors"$'\n'
            say "  $server #$rep: $rps req/s, p50 $(field p50_us "$line") us, p99 $(field p99_us "$line") us, $mbps MB/s, $errors errors"
        done
    done
    RSS+="$workload larder $(peak_kib "$LARDER_PID")"$'\n'
    RSS+="$workload nginx $(peak_kib $NGINX_WORKERS)"$'\n'
}
RSS=""

# The 64 MiB object: first fetch (cold, each proxy fetches it from the origin) and a second (warm).
BIG=""
measure_big() {
    say "64 MiB object, cold and warm"
    local server rep port seconds status
    reset_peak "$LARDER_PID" $NGINX_WORKERS
    for rep in $(seq "$REPEAT"); do
        seconds=$("${ON_CLIENT[@]}" curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$ORIGIN_PORT/64m?r=$rep")
        BIG+="direct cold $rep $seconds -"$'\n'
        BIG+="direct warm $rep $seconds -"$'\n'
        for server in larder nginx; do
            port=$(server_port "$server")
            for temperature in cold warm; do
                read -r seconds status < <("${ON_CLIENT[@]}" curl -s -o /dev/null -D "$WORK/big-head" -w '%{time_total} %{size_download}\n' \
                    -x "http://127.0.0.1:$port" "http://127.0.0.1:$ORIGIN_PORT/64m?r=$rep")
                [[ $status == 67108864 ]] || say "warning: $server $temperature 64 MiB fetch got $status bytes"
                status=$(tr -d '\r' <"$WORK/big-head" | awk -F': ' 'tolower($1) == "x-cache" { print $2 }')
                BIG+="$server $temperature $rep $seconds ${status:--}"$'\n'
                if [[ $temperature == cold ]]; then sleep 1; fi   # the store commits the body before the warm fetch
            done
        done
    done
    RSS+="64MiB larder $(peak_kib "$LARDER_PID")"$'\n'
    RSS+="64MiB nginx $(peak_kib $NGINX_WORKERS)"$'\n'
}

# Start-up with many stored entries: stop Larder, start it again on the same cache, and time until
# /_larder/health answers and until a stored entry comes back as a HIT. Done at two fill levels (after
# the miss workload, and after FILL_SECONDS more of misses) so the per-entry cost can be extrapolated.
STARTUP=""
settle_entries() {  # waits until the entry count stops moving (commits are batched), prints it
    local entries previous=-1
    for _ in $(seq 30); do
        entries=$(larder_entries)
        [[ $entries == "$previous" ]] && break
        previous=$entries
        sleep 1
    done
    echo "$entries"
}

restart_timed() {  # restart_timed(path of a stored entry): sets RESTART_TIMES to "health_ms hit_ms"
    stop_larder
    local started health_ms status=""
    started=$(now_ns)
    start_larder
    health_ms=$LARDER_READY_MS
    for _ in $(seq 2000); do
        status=$(curl -s -o /dev/null -D - -x "http://127.0.0.1:$LARDER_PORT" "http://127.0.0.1:$ORIGIN_PORT$1" |
            tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" { print $2 }')
        [[ $status == HIT* ]] && break
        sleep 0.005
    done
    [[ $status == HIT* ]] || say "warning: $1 was not a hit after restart (${status:-no answer})"
    RESTART_TIMES="$health_ms $((($(now_ns) - started) / 1000000))"
}

measure_startup() {
    local level entries health hit rep times path
    for level in 1 2; do
        if ((level == 2)); then
            say "filling Larder's cache with misses for ${FILL_SECONDS}s"
            wrk_run "$LARDER_PORT" absolute /miss/ 50 "$FILL_SECONDS" 1 fill- >/dev/null
        fi
        entries=$(settle_entries)
        times=""
        # The first URL of the first measured miss run, or of the fill.
        path=/miss/fill--t1-1
        ((level == 2)) || path=/miss/miss-c50-larder-1--t1-1
        for rep in $(seq "$REPEAT"); do
            restart_timed "$path"
            times+="$RESTART_TIMES"$'\n'
        done
        health=$(awk 'NF { print $1 }' <<<"$times" | median)
        hit=$(awk 'NF { print $2 }' <<<"$times" | median)
        say "  $entries entries: health after $health ms, first hit after $hit ms"
        STARTUP+="$entries $health $hit $(peak_kib "$LARDER_PID") $(larder_entries)"$'\n'
    done
}

# ---------------------------------------------------------------------------------------------- report

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cell() {  # cell(workload, server, column): the median of a column over the repeats
    awk -v w="$1" -v s="$2" -v c="$3" '$1 == w && $2 == s { print $c }' <<<"$RESULTS" | median
}
errors_total() { awk -v w="$1" -v s="$2" '$1 == w && $2 == s { t += $9; n++ } END { print n ? t : "-" }' <<<"$RESULTS"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
ms() { awk -v u="$1" 'BEGIN { if (u == "-") print "-"; else printf "%.2f", u / 1000 }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "" || k == "-") print "-"; else printf "%.0f", k / 1024 }'; }
rss_of() { awk -v w="$1" -v s="$2" '$1 == w && $2 == s { print $3 }' <<<"$RSS"; }
span() {  # span(workload, server, column): lowest–highest of a microsecond column over the repeats, in ms
    awk -v w="$1" -v s="$2" -v c="$3" '$1 == w && $2 == s { v = $c / 1000; n++; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
        END { if (n) printf "%.2f–%.2f", lo, hi; else print "-" }' <<<"$RESULTS"
}

report() {
    local workload label d l n lp50 lp99 np50 np99 mb spans=""
    echo "| workload | direct req/s | larder req/s | nginx req/s | larder p50/p99 ms | nginx p50/p99 ms | MB/s direct/larder/nginx | larder RSS MiB | nginx RSS MiB | larder/nginx | larder/direct | errors larder/nginx |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    while read -r workload label; do
        [[ -z $workload ]] && continue
        d=$(cell "$workload" direct 5) l=$(cell "$workload" larder 5) n=$(cell "$workload" nginx 5)
        # A partial run (BENCH_ONLY) shows only the workloads it measured.
        [[ $d == "-" && $l == "-" && $n == "-" ]] && continue
        lp50=$(ms "$(cell "$workload" larder 6)") lp99=$(ms "$(cell "$workload" larder 7)")
        np50=$(ms "$(cell "$workload" nginx 6)") np99=$(ms "$(cell "$workload" nginx 7)")
        mb="-"
        [[ $workload == 1m-c10 || $workload == 16k-c50 ]] &&
            mb="$(cell "$workload" direct 8) / $(cell "$workload" larder 8) / $(cell "$workload" nginx 8)"
        # The p99 column is a median of five p99s; their spread shows how far apart two servers' p99s must be to differ.
        spans+="$label $(span "$workload" larder 7) / $(span "$workload" nginx 7); "
        echo "| $label | $d | $l | $n | $lp50 / $lp99 | $np50 / $np99 | $mb | $(mib "$(rss_of "$workload" larder)") | $(mib "$(rss_of "$workload" nginx)") | $(ratio "$l" "$n") | $(ratio "$l" "$d") | $(errors_total "$workload" larder) / $(errors_total "$workload" nginx) |"
    done <<<"$WORKLOAD_LABELS"
    echo
    echo "CPU busy with other work in the second before each workload (servers idle): ${BUSY%, }."
    echo
    echo "p99 of each cell's single measurements, lowest–highest ms, larder / nginx: ${spans%; }."
    local pool
    pool=$(cell miss-c50 nginx-pool 5)
    if [[ $pool != "-" ]]; then
        echo
        echo "Miss path against nginx with an upstream keep-alive pool (map to an \`upstream\` block, second port):" \
            "$pool req/s, p50/p99 $(ms "$(cell miss-c50 nginx-pool 6)") / $(ms "$(cell miss-c50 nginx-pool 7)") ms;" \
            "larder/nginx-pool $(ratio "$(cell miss-c50 larder 5)" "$pool"), errors $(errors_total miss-c50 nginx-pool)."
    fi
    [[ -n $BIG ]] && report_big
    [[ -n $STARTUP ]] && report_startup
    [[ -n ${STORE_TEST:-} ]] && { echo; echo "Store test (LARDER_STORE_BENCH=1, CacheStore only, 1,000,000 entries): $STORE_TEST"; }
    return 0
}

report_big() {
    echo
    echo "| 64 MiB object | direct s (MB/s) | larder s (MB/s) | nginx s (MB/s) | larder X-Cache | nginx X-Cache | larder/nginx time |"
    echo "|---|---:|---:|---:|---|---|---:|"
    local temperature t_d t_l t_n
    for temperature in cold warm; do
        t_d=$(awk -v t=$temperature '$1 == "direct" && $2 == t { print $4 }' <<<"$BIG" | median)
        t_l=$(awk -v t=$temperature '$1 == "larder" && $2 == t { print $4 }' <<<"$BIG" | median)
        t_n=$(awk -v t=$temperature '$1 == "nginx" && $2 == t { print $4 }' <<<"$BIG" | median)
        printf '| %s | %s (%s) | %s (%s) | %s (%s) | %s | %s | %s |\n' "$temperature" \
            "$(printf '%.3f' "$t_d")" "$(mbps64 "$t_d")" "$(printf '%.3f' "$t_l")" "$(mbps64 "$t_l")" \
            "$(printf '%.3f' "$t_n")" "$(mbps64 "$t_n")" \
            "$(awk -v t=$temperature '$1 == "larder" && $2 == t { print $5 }' <<<"$BIG" | sort | uniq -c | awk '{ printf "%s%s×%s", (NR > 1 ? ", " : ""), $1, $2 }')" \
            "$(awk -v t=$temperature '$1 == "nginx" && $2 == t { print $5 }' <<<"$BIG" | sort | uniq -c | awk '{ printf "%s%s×%s", (NR > 1 ? ", " : ""), $1, $2 }')" \
            "$(ratio "$t_l" "$t_n")"
    done
    echo
    echo "Peak RSS of Larder during the 64 MiB fetches: $(mib "$(rss_of 64MiB larder)") MiB (nginx worker: $(mib "$(rss_of 64MiB nginx)") MiB)." \
        "Budget: 64 MiB + the ${MEMORY_TIER_MIB} MiB memory tier = $((64 + MEMORY_TIER_MIB)) MiB."
}

report_startup() {
    local n1 h1 t1 n2 h2 t2 rss after
    read -r n1 h1 t1 _ _ <<<"$(sed -n 1p <<<"$STARTUP")"
    read -r n2 h2 t2 rss after <<<"$(sed -n 2p <<<"$STARTUP")"
    echo
    echo "| start-up (restart on a warm page cache) | stored entries | health answers ms | first hit ms | RSS MiB |"
    echo "|---|---:|---:|---:|---:|"
    echo "| empty cache (first start) | 0 | $EMPTY_START_MS | - | - |"
    echo "| after the miss workload | $n1 | $h1 | $t1 | - |"
    echo "| after ${FILL_SECONDS}s more misses | $n2 | $h2 | $t2 | $(mib "$rss") |"
    echo "| 1,000,000 (linear extrapolation from the two rows above; an estimate) | 1000000 | - |" \
        "$(awk -v n1="$n1" -v t1="$t1" -v n2="$n2" -v t2="$t2" 'BEGIN {
            if (n2 <= n1) { print "-"; exit }
            s = (t2 - t1) / (n2 - n1); if (s < 0) s = 0
            printf "%.0f", t2 + s * (1e6 - n2) }') | - |"
}
mbps64() { awk -v s="$1" 'BEGIN { if (s == "" || s == "-" || s == 0) print "-"; else printf "%.0f", 67108864 / s / 1e6 }'; }

WORKLOAD_LABELS="1k-c50 1 KiB hit, 50 conns
16k-c50 16 KiB hit, 50 conns
1m-c10 1 MiB hit, 10 conns
1k-c10 1 KiB hit, 10 conns
1k-c100 1 KiB hit, 100 conns
1k-c1000 1 KiB hit, 1000 conns
miss-c50 miss (new URL each), 50 conns"

# ---------------------------------------------------------------------------------------------- main

# set_up(name): what every script here starts with: the descriptor limit, pinning, a work directory named after
# `name`, free ports for the origin, Larder and both nginx proxies, the origin's files, the origin itself and
# Larder's config.
set_up() {
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
    if ((PIN)) && (($(nproc) < 2)); then PIN=0; say "one CPU: not pinning"; fi
    if ((PIN)); then ON_SERVER=(taskset -c "$SERVER_CPU") ON_CLIENT=(taskset -c "$CLIENT_CPU"); fi
    WORK=$(mktemp -d "$(work_parent)/$1.XXXXXX")
    chmod 755 "$WORK"
    ORIGIN_PORT=$(next_port "$PORT_BASE")
    LARDER_PORT=$(next_port $((ORIGIN_PORT + 1)))
    NGINX_PORT=$(next_port $((LARDER_PORT + 1)))
    NGINX_POOL_PORT=$(next_port $((NGINX_PORT + 1)))
    write_files
    start_origin
    write_larder_config
}

# wanted(workload): whether BENCH_ONLY (space-separated workloads, plus "big" and "startup") selects it; all when unset.
wanted() { [[ -z ${BENCH_ONLY:-} || " $BENCH_ONLY " == *" $1 "* ]]; }

main() {
    need_tools
    build_larder
    set_up larder-bench
    say "origin :$ORIGIN_PORT, larder :$LARDER_PORT, nginx :$NGINX_PORT (pooled :$NGINX_POOL_PORT), work $WORK"
    start_larder
    EMPTY_START_MS=$LARDER_READY_MS
    start_nginx_proxy

    local all=(direct larder nginx)
    wanted 1k-c50 && measure 1k-c50 /1k 50 0 "${all[@]}"
    wanted 16k-c50 && measure 16k-c50 /16k 50 0 "${all[@]}"
    wanted 1m-c10 && measure 1m-c10 /1m 10 0 "${all[@]}"
    wanted 1k-c10 && measure 1k-c10 /1k 10 0 "${all[@]}"
    wanted 1k-c100 && measure 1k-c100 /1k 100 0 "${all[@]}"
    wanted 1k-c1000 && measure 1k-c1000 /1k 1000 0 "${all[@]}"
    wanted miss-c50 && measure miss-c50 /miss/ 50 1 direct larder nginx nginx-pool
    wanted big && measure_big
    wanted startup && measure_startup
    if [[ -n ${BENCH_ONLY:-} ]]; then
        echo
        report
        say "BENCH_ONLY=$BENCH_ONLY: a partial run, Benchmarks/results/latest.md left as it was"
        return
    fi

    if [[ ${BENCH_STORE_TEST:-0} == 1 ]]; then
        say "store test: 1,000,000 entries (swift test, release)"
        STORE_TEST=$(cd "$ROOT" && LARDER_STORE_BENCH=1 swift test -c release --scratch-path "$SCRATCH-tests" \
            --filter millionEntryStartup 2>&1 | grep -o '1M entries:.*' || echo "did not run")
    fi

    local table cpu
    table=$(report)
    cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    mkdir -p "$BENCH/results"
    {
        echo "# Larder benchmark"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs ($cpu); $(uname -r);" \
            "Larder $REVISION;" \
            "$(nginx -v 2>&1 | sed 's/.*: //'); wrk $(wrk -v 2>&1 | head -1 | awk '{ print $2 }')."
        echo
        echo "Each cell: median of $REPEAT runs of ${DURATION}s after ${WARMUP}s of warm-up; wrk $WRK_THREADS thread(s)," \
            "$( ((PIN)) && echo "pinned to CPU $CLIENT_CPU; origin, Larder and nginx pinned to CPU $SERVER_CPU" || echo "unpinned")." \
            "nginx: 1 worker process, access_log off; Larder: memory tier $MEMORY_TIER, log level warning, access log off." \
            "Caches under $(df --output=source,fstype "$WORK" | tail -1 | tr -s ' ')." \
            "Latencies from wrk (p50/p99); RSS = peak (VmHWM) during the workload (nginx: its worker)."
        echo
        echo "$table"
    } >"$BENCH/results/latest.md"
    echo
    echo "$table"
    say "written to Benchmarks/results/latest.md"
}

# Benchmarks/profile.sh sources this file for its functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
