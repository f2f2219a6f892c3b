#!/usr/bin/env python3
"""What the store's key index costs a miss, with SQLite alone: inserts rows shaped like Larder's `entry` rows (a
1 KiB inline body, a 300-byte head, the route and last-access indexes) in transactions of 140, as a store drain
under the miss workload takes them, and prints the CPU per row every quarter of the run, for one index layout:

    key   the unique index on (key, variant), as StoreIndex has it; keys are the miss workload's URLs
    hash  an index on a random 64-bit hash of the URL instead (what a hash-keyed directory would cost)
    none  no key index at all

    Benchmarks/key-index.py key|hash|none [rows]     (default 300000; the database goes under $TMPDIR)

Run the layouts in turn, more than once: the machine's speed drifts. The CPU includes Python's own per-row cost,
which is the same for every layout, so compare differences, not absolute figures.
"""
import os
import random
import sqlite3
import sys
import tempfile
import time

layout = sys.argv[1] if len(sys.argv) > 1 else "key"
total = int(sys.argv[2]) if len(sys.argv) > 2 else 300_000
batch = 140
assert layout in ("key", "hash", "none"), __doc__

directory = tempfile.mkdtemp(prefix="larder-key-index-")
db = sqlite3.connect(os.path.join(directory, "index.sqlite"), isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("""CREATE TABLE entry (id INTEGER PRIMARY KEY, key TEXT NOT NULL, variant TEXT NOT NULL, url TEXT NOT NULL,
    route TEXT NOT NULL, head BLOB NOT NULL, vary BLOB NOT NULL, request_time INTEGER, response_time INTEGER,
    body_size INTEGER, body_id INTEGER, body_crc INTEGER, body BLOB, charge INTEGER, last_access INTEGER,
    created INTEGER, hash INTEGER)""")
if layout == "key":
    db.execute("CREATE UNIQUE INDEX entry_by_key ON entry(key, variant)")
if layout == "hash":
    db.execute("CREATE INDEX entry_by_hash ON entry(hash)")
db.execute("CREATE INDEX entry_by_route ON entry(route)")
db.execute("CREATE INDEX entry_by_last_access ON entry(last_access)")

head, body = os.urandom(300), os.urandom(1024)


def rows(start, count):
    for i in range(start, start + count):
        # As Benchmarks/proxy.lua names the miss workload's URLs.
        url = f"http://127.0.0.1:18080/miss/miss-c50-larder-1--t1-{i}"
        yield ("GET " + url, "", url, "default", head, b"", i, i, 1024, 0, 0, body, 2000, i, i,
               random.getrandbits(63))


insert = ("INSERT INTO entry (key, variant, url, route, head, vary, request_time, response_time, body_size, "
          "body_id, body_crc, body, charge, last_access, created, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
quarter = total // 4 // batch * batch
done, started = 0, time.process_time()
while done < total:
    db.execute("BEGIN")
    db.executemany(insert, rows(done, batch))
    db.execute("COMMIT")
    done += batch
    if done % quarter == 0:
        now = time.process_time()
        print(f"{layout}: {done} rows, {(now - started) / quarter * 1e6:.1f} us CPU per row")
        started = now
db.close()
for name in os.listdir(directory):
    os.remove(os.path.join(directory, name))
os.rmdir(directory)
