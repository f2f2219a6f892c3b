-- wrk script for Benchmarks/run.sh: requests as an `http_proxy` client sends them.
--
-- Environment (read once per wrk thread):
--   BENCH_ORIGIN  origin authority, e.g. 127.0.0.1:18080 (the Host field, and the URL's authority)
--   BENCH_PATH    path to request, e.g. /1k
--   BENCH_FORM    "absolute" (GET http://origin/path HTTP/1.1, through a proxy) or "origin" (GET /path, direct)
--   BENCH_UNIQUE  "1": every request gets a new path, BENCH_PATH .. TAG-tTHREAD-N (the miss workload)
--   BENCH_TAG     makes unique paths unique across runs and servers
--
-- A fixed request is set on `wrk.path`/`wrk.headers` and no request() is defined, so wrk sends one
-- pre-built buffer and the client costs as little as possible. Only the miss workload defines request().
-- At the end, done() prints one machine-readable BENCH line that run.sh parses.

local origin = os.getenv("BENCH_ORIGIN") or "127.0.0.1:18080"
local path = os.getenv("BENCH_PATH") or "/1k"
local form = os.getenv("BENCH_FORM") or "absolute"
local unique = os.getenv("BENCH_UNIQUE") == "1"
local tag = os.getenv("BENCH_TAG") or "run"

local prefix = ""
if form == "absolute" then prefix = "http://" .. origin end

wrk.method = "GET"
wrk.headers["Host"] = origin
wrk.path = prefix .. path

-- setup() runs in the main Lua state, once per thread; it numbers the threads so their paths differ.
local threads = {}
local next_id = 0
function setup(thread)
   next_id = next_id + 1
   thread:set("id", next_id)
   table.insert(threads, thread)
end

if unique then
   -- Each thread has its own Lua state, so `counter` is per thread; `id` keeps threads apart.
   local counter = 0
   local headers = { Host = origin }
   function request()
      counter = counter + 1
      return wrk.format("GET", string.format("%s%s%s-t%d-%d", prefix, path, tag, id or 0, counter), headers)
   end
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d duration_us=%d bytes=%d p50_us=%d p99_us=%d max_us=%d " ..
      "err_connect=%d err_read=%d err_write=%d err_timeout=%d err_status=%d\n",
      summary.requests, summary.duration, summary.bytes,
      latency:percentile(50), latency:percentile(99), latency.max,
      e.connect, e.read, e.write, e.timeout, e.status))
end
