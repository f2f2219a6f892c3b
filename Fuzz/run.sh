#!/usr/bin/env bash
# Fuzzes HTTPWire's RequestParser, RequestTarget and HTTPDate with libFuzzer and AddressSanitizer.
#
#   Fuzz/run.sh [SECONDS]      (default 30)
#
# Builds Fuzz/.out/wire-fuzz from Sources/HTTPWire and Fuzz/RequestParserFuzz.swift, seeds Fuzz/.out/corpus with a
# few valid requests, and runs for SECONDS. Exits non-zero when an input crashes or breaks an invariant; libFuzzer
# leaves that input in Fuzz/.out/crash-*. Reproduce one with: Fuzz/.out/wire-fuzz Fuzz/.out/crash-<hash>
set -euo pipefail

seconds="${1:-30}"
fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$fuzz_dir")"
out="$fuzz_dir/.out"
binary="$out/wire-fuzz"
arch="$(uname -m)"

swiftc="${SWIFTC:-$(command -v swiftc || true)}"
if [ -z "$swiftc" ] && [ -x /opt/swift/usr/bin/swiftc ]; then swiftc=/opt/swift/usr/bin/swiftc; fi
if [ -z "$swiftc" ]; then
    echo "run.sh: swiftc not found; put a Swift toolchain on PATH or set SWIFTC" >&2
    exit 2
fi

# `-sanitize=fuzzer` links libFuzzer from the toolchain's compiler-rt. swift.org toolchains ship it; where a
# toolchain lacks it, use Debian's compiler-rt (package libclang-rt-dev), installing it when we are root.
toolchain_lib="$(dirname "$(dirname "$swiftc")")/lib/swift/clang/lib/linux"
sanitize=(-sanitize=fuzzer,address)
if [ ! -f "$toolchain_lib/libclang_rt.fuzzer-$arch.a" ] || [ "${FUZZ_SYSTEM_LIBFUZZER:-0}" = 1 ]; then
    find_system_libfuzzer() {
        ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-"$arch".a \
            /usr/lib/llvm-*/lib/clang/*/lib/"$arch"-*/libclang_rt.fuzzer.a 2>/dev/null | sort -V | tail -n 1
    }
    libfuzzer="$(find_system_libfuzzer || true)"
    if [ -z "$libfuzzer" ]; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "run.sh: the toolchain has no libFuzzer; installing libclang-rt-dev" >&2
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-rt-dev >/dev/null
            libfuzzer="$(find_system_libfuzzer || true)"
        fi
    fi
    if [ -z "$libfuzzer" ]; then
        echo "run.sh: no libFuzzer runtime; install libclang-rt-dev (Debian/Ubuntu) or a swift.org toolchain" >&2
        exit 2
    fi
    echo "run.sh: using $libfuzzer" >&2
    # The same instrumentation -sanitize=fuzzer asks for, with the runtime linked by hand; libFuzzer is C++.
    sanitize=(-sanitize=address -sanitize-coverage=edge,trace-cmp,indirect-calls,inline-8bit-counters,pc-table
        -Xlinker --whole-archive -Xlinker "$libfuzzer" -Xlinker --no-whole-archive -lstdc++)
fi

# lld ships with the toolchain and, unlike gold, links the sanitizer runtimes without a page of warnings.
linker=()
if [ -x "$(dirname "$swiftc")/ld.lld" ] || command -v ld.lld >/dev/null; then linker=(-use-ld=lld); fi

mkdir -p "$out/corpus"
echo "run.sh: building $binary" >&2
"$swiftc" "${sanitize[@]}" "${linker[@]}" -parse-as-library -O -swift-version 6 -module-name WireFuzz \
    "$root"/Sources/HTTPWire/*.swift "$fuzz_dir/RequestParserFuzz.swift" -o "$binary"

seed() { printf '%b' "$2" >"$out/corpus/seed-$1"; }
seed get-absolute 'GET http://example.com/a?b=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n'
seed post-length 'POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello'
seed post-chunked 'POST /up HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n'
seed pipelined 'GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n'
seed connect 'CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n'
seed bare-lf '\r\nOPTIONS * HTTP/1.1\nX-A:  a  \nX-A: b\n\n'
seed date-imf 'Sun, 06 Nov 1994 08:49:37 GMT'
seed date-rfc850 'Sunday, 06-Nov-94 08:49:37 GMT'
seed date-asctime 'Sun Nov  6 08:49:37 1994'
seed url 'https://[2001:db8::1]:8443/p?q'

# Swift's own crash backtracer would hold the process open after libFuzzer's report; libFuzzer's is enough.
export SWIFT_BACKTRACE=enable=no
cd "$out"
"$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 "$out/corpus"
