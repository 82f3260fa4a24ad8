#!/usr/bin/env python3
"""The bad-input contract of every command, as a table of hostile probes
(the HTTP servers' are in tests/http): each command line must exit 2,
print exactly one line on stderr (holding a given text), nothing on stdout,
write nothing in its fresh working directory and touch no file outside it.

Each probe runs as a real process (argv bytes as a shell would pass them) in
its own temporary directory, with TMPDIR and HOME inside it. "Outside" is
checked where a probe could reach: a sentinel directory that symlink probes
point into, /dev/null, the source tree's reports/ and fixtures/, and the
perflab* entries of the system's temporary directory.

Usage: cli_contract_test.py PERFLAB SOURCE_DIR
"""
import json
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile

PERFLAB, SOURCE = sys.argv[1], sys.argv[2]
BENCH_COMMITS = os.path.join(SOURCE, "tools", "bench-commits")
REFERENCE = os.path.join(SOURCE, "fixtures", "calibration",
                         "reference-xeon-2vcpu-2026-12.json")
# A probe given a missing calibration also exits 2, for the wrong reason.
if not os.path.isfile(REFERENCE):
    sys.exit(f"cli_contract_test: no calibration at {REFERENCE}")
LOOPBACK = "http://127.0.0.1:9/"  # discard port: never reached by a probe
DEPTH = 200_000  # deep enough to have crashed the recursive readers
# A probe's files entry for where its stdout goes: "closed" or a path.
STDOUT = "<stdout>"
# A probe's files entry for a file size limit (ulimit -f) in bytes.
FSIZE = "<fsize>"
# A sweep's progress line, printed once it has run for a second.
SWEEP_PROGRESS = re.compile(r"^sweep: \d+ of \d+ runs done, .*\n", re.M)
# This run's temporary directories, by process: a second run of this test on
# the same machine (another build's suite) has its own, which this run's
# check for leftovers must not count.
TMP_PREFIX = f"perflab-contract-{os.getpid()}-"


def deep_json(depth):
    return "[" * depth + "]" * depth


def snapshot(root):
    """Every path under root with its kind, size and mtime."""
    seen = {}
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(top, name)
            st = os.lstat(path)
            seen[os.path.relpath(path, root)] = (stat.S_IFMT(st.st_mode),
                                                 st.st_size, st.st_mtime_ns)
    return seen


def system_tmp_perflab():
    tmp = tempfile.gettempdir()
    return sorted(n for n in os.listdir(tmp) if n.startswith("perflab"))


# (name, argv, text the one line must hold, files to create first). argv
# items are str; "{outside}" is the sentinel directory. Files map a name in
# the working directory to its text, or to ("symlink", target).
def probes(partials):
    p = PERFLAB
    return [
        # Must 3: durations beyond what the code represents.
        ("serve max-seconds 1e19", [p, "serve", "--max-seconds", "1e19"],
         "--max-seconds: got '1e19'; accepted", {}),
        ("serve handler-ms 1e308", [p, "serve", "--handler-ms", "1e308"],
         "--handler-ms", {}),
        ("load duration 1e308",
         [p, "load", LOOPBACK, "--rate", "1", "--duration-s", "1e308"],
         "--duration-s", {}),
        ("load rate 1e308", [p, "load", LOOPBACK, "--rate", "1e308"],
         "--rate", {}),
        ("capstone round trip 1e308",
         [p, "capstone", "--calibration", REFERENCE, "--db-round-trip-ms",
          "1e308"], "--db-round-trip-ms", {}),
        ("orders-service max-seconds inf",
         [p, "orders-service", "--max-seconds", "inf"], "--max-seconds", {}),
        # CLI11's messages in perflab's form: the option, what was given,
        # what is accepted.
        ("option before its subcommand",
         [p, "--format", "json", "sim", "mmc"],
         "'--format json' given before the subcommand; accepted: perflab sim "
         "mmc --format json", {}),
        ("one positional too many", [p, "compare", "a", "b", "c", "d"],
         "unexpected arguments 'c d'; accepted: BASE CONTENDER", {}),
        ("positional missing", [p, "history", "run"],
         "REV_RANGE: not given; accepted: commits to measure", {}),
        ("value missing", [p, "sweep", "mmc", "--set"],
         "--set: no value given; accepted: key=", {}),
        ("machine -1", [p, "history", "changes", "--machine", "-1"],
         "--machine: got '-1'; accepted: an integer in [1, ", {}),
        ("machine 309 digits",
         [p, "history", "changes", "--machine", "9" * 309],
         "--machine: got '999", {}),
        ("alpha 0 (the detector's range)",
         [p, "history", "changes", "--alpha", "0"],
         "--alpha: got '0'; accepted: a number in (0, 1)", {}),
        ("capstone target-utilisation 0 (the range --help shows)",
         [p, "capstone", "--calibration", REFERENCE, "--target-utilisation",
          "0"], "--target-utilisation: got '0'; accepted: a number in (0, 1]",
         {}),
        ("compare alpha 0", [p, "compare", "a", "b", "--alpha", "0"],
         "accepted: a number in (0, 1)", {}),
        ("orders-service scale 20", [p, "orders-service", "--scale", "20"],
         "--scale: got '20'; accepted: a number in [0.001, 10]", {}),
        # history run: every option checked before git runs or the database
        # is made (a bad one used to leave an empty database and exit 1).
        ("history run filter (",
         [p, "history", "run", "HEAD", "--filter", "(", "--db", "h.sqlite",
          "--repo", SOURCE], "--filter '(': not a regular expression", {}),
        ("history run targets",
         [p, "history", "run", "HEAD", "--filter", ".", "--targets",
          "bench_x;y", "--db", "h.sqlite", "--repo", SOURCE],
         "--targets 'bench_x;y'", {}),
        ("history run reps 0",
         [p, "history", "run", "HEAD", "--filter", ".", "--reps", "0", "--db",
          "h.sqlite", "--repo", SOURCE], "--reps: got '0'", {}),
        ("history run min-time 1e9",
         [p, "history", "run", "HEAD", "--filter", ".", "--min-time", "1e9",
          "--db", "h.sqlite", "--repo", SOURCE], "--min-time: got '1e9'", {}),
        # An output folder name beyond NAME_MAX: one line, not a traceback.
        ("history plot out-dir of 300 bytes",
         [p, "history", "plot", "--db", partials["history_db"], "--machine",
          "1", "--out-dir", "d" * 300], "a folder name of 300 bytes", {}),
        # Seeds outside [0, 2^64).
        ("fixtures seed -1",
         [p, "fixtures", "build", "--seed", "-1", "--out", "x.db"],
         "--seed: got '-1'", {}),
        ("fixtures seed 2^64",
         [p, "fixtures", "build", "--seed", "18446744073709551616", "--out",
          "x.db"], "18446744073709551615", {}),
        ("sim seed -1", [p, "sim", "mmc", "--seed", "-1"], "--seed", {}),
        ("sweep seed +1", [p, "sweep", "mmc", "--seed", "+1"], "--seed", {}),
        # The laws' integer results.
        ("little overflow",
         [p, "models", "little", "--rate-per-s", "1e308", "--w-ms", "1e308"],
         "accepted", {}),
        ("little pool overflow",
         [p, "models", "little", "--rate-per-s", "1e20", "--w-ms", "1000"],
         "pool size", {}),
        # Repeated keys, empty values, flags that do nothing.
        ("sim repeated key",
         [p, "sim", "mmc", "--set", "servers=2", "--set", "servers=3"],
         "'servers' given twice", {}),
        ("sweep repeated key",
         [p, "sweep", "mmc", "--set", "servers=2", "--set", "servers=3"],
         "given twice", {}),
        ("what-if repeated stage",
         [p, "models", "what-if", "--stage", "db=5", "--stage", "db=6"],
         "'db' given twice", {}),
        ("repeated scalar flag",
         [p, "models", "amdahl", "--serial", "0.1", "--serial", "0.2"],
         "--serial given 2 times; accepted: once", {}),
        ("sweep empty shard", [p, "sweep", "mmc", "--shard", ""],
         "--shard: got an empty value", {}),
        ("capstone empty steps",
         [p, "capstone", "--calibration", REFERENCE, "--steps", ""],
         "--steps: got an empty value", {}),
        ("sweep empty out", [p, "sweep", "mmc", "--out", ""], "--out", {}),
        ("capstone quick without real", [p, "capstone", "--quick"],
         "--quick requires --real", {}),
        ("capstone no-wrk without real", [p, "capstone", "--no-wrk"],
         "--no-wrk requires --real", {}),
        ("capstone real with jobs", [p, "capstone", "--real", "--jobs", "2"],
         "--real", {}),
        # URLs with control characters (header injection).
        ("load CR LF in URL",
         [p, "load", "http://127.0.0.1:9/a\r\nX-Injected: 1", "--rate", "1"],
         "byte 0x0d", {}),
        ("load space in URL", [p, "load", "http://127.0.0.1:9/a b", "--rate",
                               "1"], "byte 0x20", {}),
        ("load junk after ]", [p, "load", "http://[::1]x/", "--rate", "1"],
         "after ]", {}),
        # Degenerate fits.
        ("usl-fit identical points",
         [p, "models", "usl-fit", "--point", "1:100", "--point", "1:100",
          "--point", "1:100"], "at least 3 different N", {}),
        ("bench-commits inf",
         [sys.executable, BENCH_COMMITS, "HEAD", "HEAD", "--min-time", "inf",
          "--threshold", "inf"], "--min-time inf", {}),
        ("bench-commits threshold nan",
         [sys.executable, BENCH_COMMITS, "HEAD", "HEAD", "--threshold", "nan"],
         "--threshold nan", {}),
        # Messages: one line, what is accepted, short.
        ("newline in key", [p, "sim", "mmc", "--set", "ser\nvers=2"],
         "ser\\nvers", {}),
        ("newline in path", [p, "models", "percentiles", "--input", "a\nb"],
         "a\\nb", {}),
        ("newline in subcommand", [p, "sim", "mm\nc"], "mm\\nc", {}),
        ("mmc servers NaN",
         [p, "models", "mmc", "--servers", "NaN", "--arrival-rate-per-s", "1",
          "--service-rate-per-s", "2"], "accepted: an integer in [1,", {}),
        ("mmc servers -1",
         [p, "models", "mmc", "--servers", "-1", "--arrival-rate-per-s", "1",
          "--service-rate-per-s", "2"], "[1, 1000000]", {}),
        ("unknown option before required",
         [p, "models", "mmc", "--bogus", "1"], "unknown option '--bogus'", {}),
        ("conversion says where to look",
         [p, "models", "usl", "--sigma", "0.1", "--kappa", "0.01",
          "--workers", "x"], "--workers", {}),
        ("partial of 100000 shards",
         [p, "sweep-merge", "part.json"], "and 99989 more", {
             "part.json": partials["many_shards"]}),
        # Musts 1-2, kept fixed: nothing overwritten that is not ours.
        ("sweep out /dev/stdout",
         [p, "sweep", "mmc", "--set", "customers=2000", "--out",
          "/dev/stdout"], "/dev/stdout: a symbolic link, not written", {}),
        ("sweep out through a symlink",
         [p, "sweep", "mmc", "--set", "customers=2000", "--out", "link.txt"],
         "link.txt", {"link.txt": ("symlink", "{outside}/target.txt")}),
        ("sweep out a directory",
         [p, "sweep", "mmc", "--set", "customers=2000", "--out", "."],
         "a directory, not written", {}),
        ("capstone out-dir empty",
         [p, "capstone", "--calibration", REFERENCE, "--out-dir", ""],
         "--out-dir", {}),
        ("orders-service dataset /dev/null",
         [p, "orders-service", "--dataset", "/dev/null", "--max-seconds",
          "1"], "/dev/null", {}),
        ("orders-service dataset of random bytes",
         [p, "orders-service", "--dataset", "junk.db", "--max-seconds", "1"],
         "junk.db", {"junk.db": "not a database\n" * 100}),
        # "-" is no output file; readers refuse what is not a file at once;
        # numbers that size loops, memory or waits are bounded both ways.
        ("fixtures build out -", [p, "fixtures", "build", "--out", "-"], "'-'",
         {}),
        ("orders-service dataset -",
         [p, "orders-service", "--dataset", "-", "--max-seconds", "1"], "'-'",
         {}),
        ("sweep-merge /dev/zero", [p, "sweep-merge", "/dev/zero"], "a device",
         {}),
        ("compare /dev/urandom", [p, "compare", "/dev/urandom", "/dev/urandom"],
         "a device", {}),
        ("percentiles input a directory",
         [p, "models", "percentiles", "--input", "."], "a directory", {}),
        ("usl-fit input /dev/zero",
         [p, "models", "usl-fit", "--input", "/dev/zero"], "a device", {}),
        ("usl-fit third column",
         [p, "models", "usl-fit", "--point", "1:2:3", "--point", "2:3",
          "--point", "4:5"], "two numbers", {}),
        # A numbers file of more points than a fit takes is refused from a
        # count of its lines, before they are parsed (FitUsl's own refusal
        # says "USL fit: got ...").
        ("usl-fit input of 1000001 points",
         [p, "models", "usl-fit", "--input", "points.txt"],
         "perflab models usl-fit: --input 'points.txt': 1000001 points; "
         "accepted: 3..1000000 (N,THROUGHPUT lines and --point)\n",
         {"points.txt": "n,throughput\n" + "1,2\n" * 1000001}),
        # Work bounds (sim/scenarios/scenario.h WorkBound): each refusal
        # line worked out by hand from its formula and the defaults.
        ("sim cache lookups 1e8",
         [p, "sim", "cache", "--set", "lookups=100000000"],
         # 3 x 4 sizes x (max(1e8, 60 x 1000) + 1e8) = 2.4e9
         "perflab sim cache: keys sizes = '100,500,1000,5000', rate_per_s = "
         "'1000', lookups = '100000000', warmup_s = '60': 2.4e+09 lookups; accepted "
         "3 x count(sizes) x (max(lookups, warmup_s x rate_per_s) + lookups) "
         "<= 50000000\n", {}),
        ("sim http-connections calls 1e8",
         [p, "sim", "http-connections", "--set", "calls=100000000"],
         "perflab sim http-connections: key 'calls' = '100000000': accepted "
         "an integer in [1, 10000000]\n", {}),
        ("sim latency-mixture samples 2e7",
         [p, "sim", "latency-mixture", "--set", "samples=20000000"],
         "perflab sim latency-mixture: key 'samples' = '20000000': accepted "
         "an integer in [100, 5000000]\n", {}),
        ("sim usl one worker count",
         [p, "sim", "usl", "--set", "workers=4096"],
         "perflab sim usl: key 'workers' = '4096': 1 different worker "
         "count(s); accepted at least 3 (the USL fit needs 3 points)\n", {}),
        ("sim usl workers 4096",
         [p, "sim", "usl", "--set", "workers=1,2,4096"],
         # 200 x (1 + 4 + 4096^2) = 3355444200
         "perflab sim usl: keys workers = '1,2,4096', jobs = '200': "
         "3.35544e+09 worker delays; accepted jobs x sum(workers^2) <= "
         "50000000\n", {}),
        ("sim keepalive-race rate 1e6",
         [p, "sim", "keepalive-race", "--set", "rates_per_s=1e6"],
         # 1e6 x 3600 x 6 timeouts = 2.16e10
         "perflab sim keepalive-race: keys rates_per_s = '1e6', "
         "server_keepalive_ms = '1000,2000,2500,3000,4000,5000', duration_s = "
         "'3600': 2.16e+10 requests; accepted sum(rates_per_s) x duration_s x "
         "count(server_keepalive_ms) <= 30000000\n", {}),
        ("sim littles-law rate 1e6",
         [p, "sim", "littles-law", "--set", "rates_per_s=1e6"],
         # 62 s x (3 x 1e6 + 250 + 1000 / 5 x (1 x 3 + 1)) = 186065100
         "perflab sim littles-law: keys rates_per_s = '1e6', service_ms = "
         "'20,60,200', sample_ms = '5', warmup_s = '2', duration_s = '60', "
         "pool_rate_per_s = '250': 1.86065e+08 requests and samples; "
         "accepted (warmup_s + duration_s) x (count(service_ms) x "
         "sum(rates_per_s) + pool_rate_per_s + 1000 / sample_ms x rows) <= "
         "15000000\n", {}),
        ("sim client-pool a day",
         [p, "sim", "client-pool", "--set", "duration_s=86400"],
         # 86400 s x 2500/s = 2.16e8
         "perflab sim client-pool: keys rates_per_s = '250,500,750,1000', "
         "duration_s = '86400', warmup_s = '0': 2.16e+08 requests and "
         "timeline rows; accepted (warmup_s + duration_s) x (sum(rates_per_s) "
         "+ timeline_rows_per_s) <= 10000000\n", {}),
        ("sim gc-heap a day",
         [p, "sim", "gc-heap", "--set", "duration_s=86400"],
         # min(32 / 0.4, 8 / 0.4, 4 / 0.6594) per ms = 6066.12/s (the
         # generator); 3 heaps x 86402 s x 6066.12 = 1572374886
         "perflab sim gc-heap: keys heaps_mib = '256,512,768', warmup_s = '2', "
         "duration_s = '86400': 1.57237e+09 requests (ceiling_per_s = "
         "6066.12); accepted count(heaps_mib) x (warmup_s + duration_s) x "
         "ceiling_per_s <= 8000000\n", {}),
        ("sim order-service a day",
         [p, "sim", "order-service", "--set", "warmup_s=86400"],
         # CPU 339.6 + 60.1 + 44246.4 + 80 x 39.1 us = 47.7741 ms: 8 cores
         # serve 167.455/s; 86415 s x 167.455 x 82 = 1186589378, x (1 +
         # 8 / 512) = 1205129524
         "perflab sim order-service: keys cores = '8', warmup_s = '86400', "
         "duration_s = '15': 1.20513e+09 requests and statements "
         "(arrivals_per_s = 167.455, statements = 81); accepted (warmup_s + "
         "duration_s) x arrivals_per_s x (1 + statements) x (1 + cores / "
         "512) <= 5000000\n", {}),
        ("sim order-service 4096 cores, 10 s",
         [p, "sim", "order-service", "--set", "index=1", "--set",
          "keep_alive=1", "--set", "tcp_nodelay=1", "--set", "threads=virtual",
          "--set", "db_pool=1000", "--set", "cores=4096", "--set",
          "clients=1000", "--set", "duration_s=2", "--set", "warmup_s=8"],
         # The generator's ceiling: floor(4 / 659.4e-6) = 6066/s (4096 cores
         # serve far more); 10 s x 6066 x 82 = 4974120, under 5e6 without
         # the cores' weight (this ran 330 s); x (1 + 4096 / 512) = 44767080
         "perflab sim order-service: keys cores = '4096', warmup_s = '8', "
         "duration_s = '2': 4.47671e+07 requests and statements "
         "(arrivals_per_s = 6066, statements = 81); accepted (warmup_s + "
         "duration_s) x arrivals_per_s x (1 + statements) x (1 + cores / "
         "512) <= 5000000\n", {}),
        ("sim thread-pool a day",
         [p, "sim", "thread-pool", "--set", "duration_s=86400"],
         # min(400 / 50 ms, 200 / 50 ms, 12 / 2 ms) = 4000/s x 86405 s
         "perflab sim thread-pool: keys warmup_s = '5', duration_s = "
         "'86400': 3.4562e+08 requests (arrivals_per_s = 4000); accepted "
         "(warmup_s + duration_s) x arrivals_per_s <= 8000000\n", {}),
        ("sim mmc customers 1e8",
         [p, "sim", "mmc", "--set", "customers=100000000"],
         "perflab sim mmc: keys customers = '100000000', warmup_customers = "
         "'100000': 1.001e+08 customers; accepted customers + "
         "warmup_customers <= 50000000\n", {}),
        ("sim hockey-stick customers 1e9",
         [p, "sim", "hockey-stick", "--set", "customers=1000000000"],
         # every point capped at max_customers 1e7: 1.1 x 2 x 7 x 1e7
         "perflab sim hockey-stick: keys servers = '1,4', utilisations = "
         "'0.1,0.3,0.5,0.7,0.8,0.9,0.95', customers = '1000000000', "
         "max_customers = '10000000': 1.54e+08 customers; accepted 1.1 x "
         "count(servers) x sum over utilisations of min(max_customers, "
         "customers x scale) <= 80000000\n", {}),
        ("sim lock-contention a day",
         [p, "sim", "lock-contention", "--set", "duration_s=86400"],
         # 86420 s x (2 x 100 x 1000 / 1000 + 1000 / 100) + 2 x 100
         # = 18148200 + 200 = 18148400
         "perflab sim lock-contention: keys users = '100', work_ms = '1000', "
         "batch_ms = '100', warmup_s = '20', duration_s = '86400': "
         "1.81484e+07 requests, writer wake-ups and users; accepted "
         "(warmup_s + duration_s) x (2 x users x 1000 / work_ms + 1000 / "
         "batch_ms) + 2 x users <= 15000000\n", {}),
        ("sim coordinated-omission rate 1e5",
         [p, "sim", "coordinated-omission", "--set", "rate_per_s=1e5"],
         # 1e5 x (60 + 20 x 5000 / 1000) = 1e5 x 160 = 1.6e7
         "perflab sim coordinated-omission: keys rate_per_s = '1e5', "
         "duration_s = '60', freeze_ms = '5000': 1.6e+07 requests; accepted "
         "rate_per_s x (duration_s + 20 x freeze_ms / 1000) <= 10000000\n",
         {}),
        # A sweep adds its runs' work up: 100000 x 1.1e6 / 5e7 = 2200.
        ("sweep mmc 100000 replications",
         [p, "sweep", "mmc", "--replications", "100000", "--jobs", "1"],
         "perflab sweep: --replications 100000 over 1 grid point(s): the "
         "runs' work adds up to 2200 times the mmc run at its work bound; "
         "accepted: at most 2, or add --force\n", {}),
        # Every grid point is checked before the first run: the first point
        # runs for seconds (its progress line would come first), the second
        # is refused.
        ("sweep refuses its second point first",
         [p, "sweep", "mmc", "--set", "customers=20000000", "--set",
          "service_cv=1,2", "--replications", "1", "--jobs", "1"],
         "perflab sweep: grid point 1 (customers=20000000 service_cv=2): key "
         "'service_cv' = '2' with service = exp: only service=lognormal "
         "reads it (exp has cv 1, det cv 0); accepted service=lognormal, or "
         "leave service_cv at 1\n", {}),
        ("usl kappa 1e-320",
         [p, "models", "usl", "--sigma", "0.05", "--kappa", "1e-320"], "2^53",
         {}),
        ("amdahl workers 1e-320",
         [p, "models", "amdahl", "--serial", "0.1", "--workers", "1e-320"],
         "--workers", {}),
        ("mva servers 2^31 - 1",
         [p, "models", "mva", "--station",
          "cpu:demand_ms=10,servers=2147483647"], "servers", {}),
        ("load rate 1e-300", [p, "load", LOOPBACK, "--rate", "1e-300"],
         "--rate", {}),
        # Output that cannot be written is no success; a closed stdout is
        # refused before a file of perflab's could take its number.
        ("stdout on a full disk", [p, "models", "tour"],
         "could not be written to stdout", {STDOUT: "/dev/full"}),
        ("stdout on a full disk, help", [p, "sim", "--help"],
         "could not be written to stdout", {STDOUT: "/dev/full"}),
        ("stdout closed", [p, "sweep", "mmc", "--set", "customers=2000",
                           "--out", "s.json"],
         "stdout is closed", {STDOUT: "closed"}),
        # A file past ulimit -f is a write error (SIGXFSZ killed perflab and
        # left the temporary file).
        ("dataset past ulimit -f",
         [p, "fixtures", "build", "--scale", "0.001", "--out", "x.db"],
         "x.db", {FSIZE: 4096}),
        ("sweep output past ulimit -f",
         [p, "sweep", "mmc", "--set", "customers=2000", "--out", "s.json"],
         "s.json", {FSIZE: 100}),
        # Every reader bounded.
        ("sweep-merge deep JSON", [p, "sweep-merge", "deep.json"], "deep.json",
         {"deep.json": deep_json(DEPTH)}),
        ("compare deep JSON", [p, "compare", "deep.json", "deep.json"],
         "deep.json", {"deep.json": deep_json(DEPTH)}),
        ("capstone deep calibration",
         [p, "capstone", "--calibration", "deep.json"], "deep.json",
         {"deep.json": deep_json(DEPTH)}),
        ("calibrate deep map",
         [p, "calibrate", "--schema", "--map", "deep.json"], "",
         {"deep.json": deep_json(DEPTH)}),
        ("huge replications",
         [p, "sweep", "mmc", "--set", "servers=1,2", "--replications",
          "4611686018427387904", "--force"], "--replications", {}),
        ("10^12 replications",
         [p, "sweep", "mmc", "--set", "servers=1,2", "--replications",
          "1000000000000", "--force"], "--replications", {}),
        ("shard overflow",
         [p, "sweep", "mmc", "--shard", "2/9223372036854775807"], "--shard",
         {}),
        ("partial with 1e15 shards", [p, "sweep-merge", "part.json"],
         "part.json", {"part.json": partials["shards_1e15"]}),
        ("partial with NaN", [p, "sweep-merge", "part.json"], "part.json",
         {"part.json": partials["nan"]}),
        ("partial with an unknown metric", [p, "sweep-merge", "part.json"],
         "part.json", {"part.json": partials["unknown_metric"]}),
        ("partial with a metric no run wrote", [p, "sweep-merge", "part.json"],
         "fingerprint does not match", {"part.json": partials["unknown_word"]}),
    ]


def make_partials(work):
    """Partials derived from real ones: a whole sweep in one shard (so
    only the edit can be wrong) and one shard of 100000."""
    base = os.path.join(work, "base.json")
    subprocess.run([PERFLAB, "sweep", "mmc", "--set", "customers=2000",
                    "--replications", "2", "--shard", "1/1", "--out", base],
                   check=True, capture_output=True)
    with open(base, encoding="utf-8") as f:
        text = f.read()
    many = os.path.join(work, "many.json")
    subprocess.run([PERFLAB, "sweep", "mmc", "--set", "customers=2000",
                    "--replications", "1", "--shard", "1/100000", "--out",
                    many], check=True, capture_output=True)
    with open(many, encoding="utf-8") as f:
        many_text = f.read()
    first_value = json.loads(text)["runs"][0]["values"]
    metric = next(iter(first_value))
    history = os.path.join(work, "history.sqlite")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import interrupt_test  # pylint: disable=import-outside-toplevel
    interrupt_test.history_db(history, ["BM_A"], 12)
    return {
        "history_db": history,
        "many_shards": many_text,
        "shards_1e15": text.replace('"shards":1', '"shards":1e15'),
        "nan": text.replace(f'"{metric}":', f'"{metric}":NaN,"x{metric}":',
                            1),
        # Not a field or table[row].column name: no run wrote it.
        "unknown_metric": text.replace(f'"{metric}":', '"bogus key!":1,'
                                       f'"{metric}":', 1),
        # A well-formed word, but no run wrote it: the fingerprint covers
        # every run's key names.
        "unknown_word": text.replace(f'"{metric}":', '"bogus":1,'
                                     f'"{metric}":', 1),
    }


# Phrases of CLI11's own messages, which perflab rewrites into its one line.
CLI11_WORDS = ("The following arguments were not expected", "required but received",
               "not in range", "Could not convert", " required TEXT missing",
               "is required\n")


def help_states_range(argv, err):
    """A check's range ("--x: got 'v'; accepted: RANGE") is the one --help
    shows beside the option: one definition."""
    if argv[0] != PERFLAB or ": got '" not in err or "; accepted: " not in err:
        return []
    option = err.split(": got '")[0].rsplit(": ", 1)[-1]
    accepted = err.rstrip("\n").split("; accepted: ", 1)[1]
    if not option.startswith("--"):
        return []
    command = [a for a in argv[1:3] if not a.startswith("-")]
    shown = subprocess.run([PERFLAB, *command, "--help"], capture_output=True,
                           text=True, check=False).stdout
    line = [x for x in shown.splitlines() if x.strip().startswith(option + " ")]
    after = line[0].strip()[len(option):].lstrip() if line else ""
    if ":" not in after.split(" ")[0]:
        return []  # no range check on the flag: one made after parsing
    if accepted not in line[0]:
        return [f"{option}: --help shows {line[0].strip()!r}, the check accepts {accepted!r}"]
    return []


def help_states_work_bound(argv, err):
    """A sim work bound's refusal ("keys ...; accepted FORMULA <= MAX") is
    what `perflab sim NAME --help` shows beside each key it names."""
    if argv[:2] != [PERFLAB, "sim"] or not re.search(r": keys \w+ = ", err):
        return []
    accepted = "accepted " + err.rstrip("\n").split("; accepted ", 1)[1]
    shown = subprocess.run([PERFLAB, "sim", argv[2], "--help"],
                           capture_output=True, text=True, check=False).stdout
    if f"with the other keys: {accepted}" not in shown:
        return [f"sim {argv[2]} --help does not state {accepted!r}"]
    return []


def run_with_stdout(argv, work, env, stdout_to, fsize=None):
    """Runs a probe with stdout captured, or on /dev/full, or closed; under
    a file size limit when fsize is given."""

    def limit():
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if stdout_to == "closed":
            os.close(1)

    if stdout_to is None:
        return subprocess.run(argv, cwd=work, env=env, capture_output=True,
                              preexec_fn=limit, timeout=120, check=False)
    if stdout_to == "closed":
        return subprocess.run(argv, cwd=work, env=env, stderr=subprocess.PIPE,
                              preexec_fn=limit, timeout=120, check=False)
    with open(stdout_to, "wb") as out:
        return subprocess.run(argv, cwd=work, env=env, stdout=out,
                              stderr=subprocess.PIPE, timeout=120, check=False)


def check(name, argv, mentions, files, outside):
    failures = []
    files = dict(files)
    stdout_to = files.pop(STDOUT, None)
    fsize = files.pop(FSIZE, None)
    with tempfile.TemporaryDirectory(prefix=TMP_PREFIX) as work:
        os.mkdir(os.path.join(work, "tmp"))
        os.mkdir(os.path.join(work, "home"))
        for fname, content in files.items():
            path = os.path.join(work, fname)
            if isinstance(content, tuple):
                os.symlink(content[1].replace("{outside}", outside), path)
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(content)
        before = snapshot(work)
        env = dict(os.environ, TMPDIR=os.path.join(work, "tmp"),
                   HOME=os.path.join(work, "home"))
        res = run_with_stdout(argv, work, env, stdout_to, fsize)
        err = res.stderr.decode("utf-8", "replace")
        if stdout_to is not None or fsize is not None:
            # Its output fails only once the work is done, so on a slow
            # (sanitized, busy) machine the work's progress comes first.
            err = SWEEP_PROGRESS.sub("", err)
        if res.returncode != 2:
            failures.append(f"exit {res.returncode}, want 2")
        if res.stdout:
            failures.append(f"stdout not empty: {res.stdout[:200]!r}")
        if err.count("\n") != 1 or not err.endswith("\n"):
            failures.append(f"stderr is not one line: {err[:300]!r}")
        if len(err) > 600:
            failures.append(f"stderr is {len(err)} bytes, want a short line")
        if mentions not in err:
            failures.append(f"stderr lacks {mentions!r}: {err[:300]!r}")
        for raw in CLI11_WORDS:
            if raw in err:
                failures.append(f"CLI11's own words {raw!r} reach the user: {err[:300]!r}")
        failures += help_states_range(argv, err)
        failures += help_states_work_bound(argv, err)
        after = snapshot(work)
        if after != before:
            changed = sorted(set(after.items()) ^ set(before.items()))
            failures.append(f"wrote in its directory: {changed[:5]}")
    return [f"{name}: {f}" for f in failures]


def main():
    if not os.access(PERFLAB, os.X_OK):
        print(f"cli_contract_test: no perflab binary at {PERFLAB}")
        return 1
    outside = tempfile.mkdtemp(prefix=TMP_PREFIX + "outside-")
    setup = tempfile.mkdtemp(prefix=TMP_PREFIX + "setup-")
    try:
        with open(os.path.join(outside, "target.txt"), "w",
                  encoding="utf-8") as f:
            f.write("not ours\n")
        partials = make_partials(setup)
        watched = {d: snapshot(os.path.join(SOURCE, d))
                   for d in ("reports", "fixtures")}
        outside_before = snapshot(outside)
        tmp_before = system_tmp_perflab()
        failures = []
        table = probes(partials)
        for name, argv, mentions, files in table:
            failures += check(name, argv, mentions, files, outside)
            if snapshot(outside) != outside_before:
                failures.append(f"{name}: touched the outside directory")
            if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
                failures.append(f"{name}: /dev/null is no longer a device")
        for d, snap in watched.items():
            if snapshot(os.path.join(SOURCE, d)) != snap:
                failures.append(f"the source tree's {d}/ changed")
        left = set(system_tmp_perflab()) - set(tmp_before)
        # Other tests running in parallel may own perflab* entries: only
        # this run's prefix counts.
        left = {n for n in left if n.startswith(TMP_PREFIX)} - {
            os.path.basename(outside), os.path.basename(setup)}
        if left:
            failures.append(f"left in {tempfile.gettempdir()}: {sorted(left)}")
        for f in failures:
            print(f"FAIL {f}")
        print(f"cli_contract_test: {len(table)} probes, {len(failures)} "
              "failures")
        return 1 if failures else 0
    finally:
        shutil.rmtree(outside, ignore_errors=True)
        shutil.rmtree(setup, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
