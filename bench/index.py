"""The sh-index benchmarks of bench.py (issue #13), side by side in one run.

Data (generated with fixed seeds, cached in the work directory): a corpus of N random 64-bit
fingerprints with ids (`dN<TAB>FINGERPRINT`, as sh-compute writes them), 10% of them replaced by
a copy of another record of the same million with 1 to 3 random bits flipped; queries without
ids, half of them copies of corpus records with 1 to 3 bits flipped and half random, shuffled;
the records that `add` appends (ids `aN`, made the same way as the corpus).

For each N (1M and 10M; 100M with --index-100m):

1. build: `sh-index build -k 3` against `sh-pairs -k 3 --stats` on the same file, alternating;
   the index against sh-pairs' read + group time (what sorting the corpus costs it);
2. size: `sh-index stats` (bytes per record in all, and without the names, i.e. the ids);
3. open: the wall time of `sh-index query` answering one query, against `sh-index --version`
   (process start alone), alternating, each spawned directly from Python; and cold, the
   index's files dropped from the page cache first (posix_fadvise, those files alone);
4. single queries: a driver keeps one `sh-index query --end-marker --stats` running, writes one
   query, reads up to the "." line, then writes the next; the round trip it sees, and the
   median and p99 that --stats prints (search, write and flush, in the process), and the same
   answers timed up to their flush;
5. batch: `sh-index query -k 3 < queries > /dev/null`, queries per second, peak RSS; and
   `sh-pairs --against corpus` on the same queries once, for scale (it reads and sorts the
   corpus each time);
6. add and compact: on a hard-linked copy of the index (segments are never changed in place),
   `sh-index add` of the add file, then `sh-index compact`;
7. correctness, while measuring: the answers to the first SINGLE queries, in batch and in the
   streaming run, after the build, after add and after compact, must be those of `sh-pairs
   --against` the same records (the script stops with an error where they are not);
8. the peer, hammingbird's streaming Index in Python (at every N but 100M): build
   (add_batch), batch (query_batch), single query() latency, the index's memory, and its batch
   join without an index (find_pairs_cross) beside sh-pairs --against; its answers to the
   sampled queries checked against sh-pairs as well (bench/peers.py hammingbird-index).

The page cache is warm (the index was just built), as a running service's is, except for the
cold open, measured last.
"""

import array
import io
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import threading
import time
from pathlib import Path

K = 3
# Per size of the suite: corpus sizes, queries of the batch, single queries of the streaming
# run (and the sample whose answers are checked), records of `add`, runs of the open timing.
SIZES = {
    "tiny": dict(records=[20_000, 50_000], huge=None, queries=20_000, single=1_000, add=5_000,
                 open_runs=5, cold_runs=2),
    "full": dict(records=[1_000_000, 10_000_000], huge=100_000_000, queries=1_000_000,
                 single=10_000, add=1_000_000, open_runs=20, cold_runs=5),
}
# Seconds without an answer before the streaming driver gives up on sh-index.
STREAM_TIMEOUT = 120
# Targets of issue #13.
TARGET_BYTES = 24
TARGET_OPEN_MS = 50
TARGET_MEDIAN_US = 20
TARGET_P99_US = 200
TARGET_QPS_100M = 300_000
TARGET_BUILD_RATIO = 2


class CheckFailed(RuntimeError):
    pass


def run(bench, size_name, count, huge=False, peer_python=None):
    """Measures everything; returns what print_results needs. `huge` adds the 100M corpus;
    `peer_python` is a Python with hammingbird (None: the peer is not run)."""
    size = SIZES[size_name]
    sizes = list(size["records"])
    if huge and size["huge"]:
        sizes.append(size["huge"])
    results = []
    for n in sizes:
        peer = peer_python if n != size["huge"] else None
        results.append(measure_size(bench, n, size, count, peer))
    return dict(size=size, results=results, runs=bench.runs)


def measure_size(bench, n, size, count, peer_python):
    work = bench.work / "index"
    work.mkdir(parents=True, exist_ok=True)
    sh_index = str(bench.bin_dir / "sh-index")
    corpus, queries = corpus_and_queries(work, n, size["queries"], seed=13, count=count)
    sample = first_lines(queries, size["single"], work / f"{queries.stem}-first{size['single']}.txt")
    added = records(work, size["add"], seed=14, prefix="a", count=count)
    index = work / f"index-{count(n)}"
    huge = n == size["huge"]
    runs = 1 if huge else bench.runs
    r = dict(n=n, queries=size["queries"], single=size["single"], added=size["add"])

    # 1. Build, alternating with sh-pairs on the same records.
    builds, pairs, pairs_stats = [], [], []
    stats_file = work / "pairs-stats.txt"
    for _ in range(runs):
        shutil.rmtree(index, ignore_errors=True)  # each build from nothing
        builds.append(bench.ours(f"sh-index build -q -o {index} -k {K} < {corpus}", runs=1))
        pairs.append(bench.ours(f"sh-pairs -q -k {K} --stats < {corpus} > /dev/null "
                                f"2> {stats_file}", runs=1))
        pairs_stats.append(parse_pairs_stats(stats_file.read_text()))
    r["build"] = builds
    r["pairs"] = pairs
    r["pairs_stats"] = pairs_stats

    # 2. Size.
    r["stats"] = index_stats(sh_index, index)

    # 7. Correctness of the batch answers to the sample (the reference is kept for the others).
    with open(sample, "rb") as stdin:
        expected = subprocess.run(
            [str(bench.bin_dir / "sh-pairs"), "-q", "-k", str(K), "--against", str(corpus)],
            stdin=stdin, capture_output=True, check=True, env=bench.env).stdout
    check_equal("sh-index query (batch) after build", expected,
                run_query(sh_index, index, sample), sample, corpus)
    r["expected_lines"] = expected.count(b"\n")

    # 3. Open: one query against process start, alternating.
    one = work / "one-query.txt"
    one.write_text(sample.read_text().split("\n", 1)[0] + "\n")
    query_one = [sh_index, "query", "-q", str(index), "-k", str(K)]
    version = [sh_index, "--version"]
    wall(query_one, one)  # a first run, not counted, so that both start alike
    open_times, version_times = [], []
    for _ in range(size["open_runs"]):
        open_times.append(wall(query_one, one))
        version_times.append(wall(version, None))
    r["open"], r["version"] = open_times, version_times

    # 4. Single queries through a pipe; `--stats` also gives each answer's time before its
    # flush (what the pipe's wake-up of the driver does not touch).
    streams = []
    for i in range(runs):
        stream = stream_queries(sh_index, index, sample)
        stream["file"] = stream.pop("unflushed")
        if i == 0:
            check_equal("sh-index query --end-marker (one query at a time) after build", expected,
                        stream.pop("answers"), sample, corpus)
        stream.pop("answers", None)
        streams.append(stream)
    r["stream"] = streams

    # 5. Batch.
    r["batch"] = bench.ours(f"sh-index query -q {index} -k {K} < {queries} > /dev/null", runs=runs)
    r["pairs_against"] = bench.ours(
        f"sh-pairs -q -k {K} --against {corpus} < {queries} > /dev/null", runs=1)

    # 6. Add and compact on hard-linked copies; the answers checked after each on the first.
    adds, compacts = [], []
    copy = work / f"index-{count(n)}-add"
    both = f"<(cat {corpus} {added})"
    for i in range(runs):
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-al", str(index), str(copy)], check=True)
        adds.append(bench.ours(f"sh-index add -q {copy} < {added}", runs=1))
        if i == 0:
            r["stats_added"] = index_stats(sh_index, copy)
            expected_both = subprocess.run(
                ["bash", "-c", f"sh-pairs -q -k {K} --against {both} < {sample}"],
                capture_output=True, check=True, env=bench.env).stdout
            check_equal("sh-index query after add", expected_both, run_query(sh_index, copy, sample),
                        sample, f"{corpus} and {added}")
            r["batch_added"] = bench.ours(f"sh-index query -q {copy} -k {K} < {queries} > /dev/null",
                                          runs=1)
        compacts.append(bench.ours(f"sh-index compact -q {copy}", runs=1))
        if i == 0:
            r["stats_compacted"] = index_stats(sh_index, copy)
            check_equal("sh-index query after compact", expected_both,
                        run_query(sh_index, copy, sample), sample, f"{corpus} and {added}")
    shutil.rmtree(copy, ignore_errors=True)
    r["add"], r["compact"] = adds, compacts

    # 8. The peer.
    if peer_python:
        peer_runs = []
        for i in range(runs):
            out = subprocess.run([peer_python, str(Path(__file__).parent / "peers.py"),
                                  "hammingbird-index", str(corpus), str(queries), str(K),
                                  str(size["single"])], capture_output=True, text=True)
            if out.returncode != 0:
                raise RuntimeError(f"the peer (hammingbird) failed at {count(n)} with "
                                   f"{peer_python} (bench/run makes a venv with hammingbird and "
                                   f"NumPy; pass it with --hammingbird-python):\n{out.stderr}")
            result = json.loads(out.stdout)
            got = b"".join(f"{q}\td{c}\t{d}\n".encode() for q, c, d in sorted(result.pop("sample")))
            if i == 0:
                check_equal("hammingbird Index.query", expected, got, sample, corpus, peer=True)
            peer_runs.append(result)
        r["peer"] = peer_runs

    # 3, cold, last (what follows would find the index evicted): the index's files dropped from
    # the page cache before each run (theirs alone, with posix_fadvise).
    cold = []
    for _ in range(size["cold_runs"]):
        evict(index)
        cold.append(wall(query_one, one))
    r["open_cold"] = cold
    return r


def records(work, n, seed, prefix, count):
    """n records `{prefix}LINE<TAB>FINGERPRINT`: random, 10% of each million replaced by a copy of
    another record of that million with 1-3 bits flipped (cached)."""
    path = work / f"records-{prefix}-{count(n)}-seed{seed}.tsv"
    if not path.exists():
        rng = random.Random(seed)
        write_records(path, n, rng, prefix, lambda numbers: None)
    return path


def corpus_and_queries(work, n, queries, seed, count):
    """The corpus (as `records`, prefix d) and `queries` queries without ids: half copies of
    random corpus records with 1-3 bits flipped, half random, shuffled (cached)."""
    corpus = work / f"corpus-{count(n)}-seed{seed}.tsv"
    query_path = work / f"queries-{count(queries)}-of-{count(n)}-seed{seed}.txt"
    if corpus.exists() and query_path.exists():
        return corpus, query_path
    rng = random.Random(seed)
    planted = []
    near = queries // 2

    def pick(numbers):
        # Near copies of this chunk's records, in proportion to its share of the corpus.
        share = near * (len(numbers)) // n
        for _ in range(share):
            planted.append(flip(numbers[rng.randrange(len(numbers))], rng))

    write_records(corpus, n, rng, "d", pick)
    while len(planted) < near:  # rounding
        planted.append(rng.getrandbits(64))
    numbers = planted + [rng.getrandbits(64) for _ in range(queries - len(planted))]
    rng.shuffle(numbers)
    partial = query_path.with_suffix(".partial")
    partial.write_text("".join(f"{x}\n" for x in numbers))
    partial.rename(query_path)
    return corpus, query_path


def write_records(path, n, rng, prefix, each_chunk):
    partial = path.with_suffix(".partial")
    with open(partial, "w") as f:
        done = 0
        while done < n:
            chunk = min(n - done, 1_000_000)
            numbers = array.array("Q", rng.randbytes(8 * chunk))
            for at in rng.sample(range(chunk), chunk // 10):
                numbers[at] = flip(numbers[rng.randrange(chunk)], rng)
            each_chunk(numbers)
            f.write("".join(f"{prefix}{done + i + 1}\t{x}\n" for i, x in enumerate(numbers)))
            done += chunk
    partial.rename(path)


def flip(x, rng):
    for bit in rng.sample(range(64), rng.randint(1, 3)):
        x ^= 1 << bit
    return x


def first_lines(path, n, out):
    if not out.exists():
        with open(path) as f:
            lines = [line for _, line in zip(range(n), f)]
        out.write_text("".join(lines))
    return out


def wall(argv, stdin_path):
    """Wall seconds of one process, spawned directly (no shell), its output thrown away."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start
    finally:
        if stdin_path:
            stdin.close()


def run_query(sh_index, index, queries):
    with open(queries, "rb") as stdin:
        return subprocess.run([sh_index, "query", "-q", str(index), "-k", str(K)], stdin=stdin,
                              capture_output=True, check=True).stdout


def evict(index):
    """Drops the index's files from the page cache (clean pages only, these files only)."""
    for path in Path(index).iterdir():
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def parse_latency(stderr):
    match = re.search(r"(\d+) queries in \d+ answers .*?median ([\d.]+) µs, p99 ([\d.]+) µs, "
                      r"largest ([\d.]+) µs \(before the flush: median ([\d.]+) µs, p99 "
                      r"([\d.]+) µs\)", stderr, re.S)
    if not match:
        raise RuntimeError(f"sh-index query --stats printed no latency line; standard error:\n"
                           f"{stderr}")
    return dict(queries=int(match.group(1)), median=float(match.group(2)),
                p99=float(match.group(3)), largest=float(match.group(4)),
                unflushed=dict(median=float(match.group(5)), p99=float(match.group(6))))


def stream_queries(sh_index, index, queries):
    """One sh-index query process; each line of `queries` written alone, its answers read up to
    the "." line before the next is written. Returns the round trips (ns), what --stats
    printed, and the answers (without the markers)."""
    lines = Path(queries).read_bytes().splitlines(keepends=True)
    err_path = Path(queries).with_suffix(".stream-stderr")
    with open(err_path, "w+b") as err:
        proc = subprocess.Popen([sh_index, "query", "-q", str(index), "-k", str(K),
                                 "--end-marker", "--stats"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                bufsize=0)
        # A watchdog: a query left unanswered ends the process, and the read below sees it.
        stuck = threading.Event()

        def kill():
            stuck.set()
            proc.kill()

        watchdog = threading.Timer(STREAM_TIMEOUT, kill)
        watchdog.start()
        out = io.BufferedReader(proc.stdout, 1 << 16)
        write, readline = proc.stdin.write, out.readline
        times, answers = [], []
        try:
            for number, line in enumerate(lines, 1):
                start = time.perf_counter_ns()
                write(line)
                while True:
                    got = readline()
                    if got == b".\n":
                        break
                    if not got:
                        why = (f"no answer within {STREAM_TIMEOUT} s" if stuck.is_set()
                               else "it closed its output")
                        raise RuntimeError(f"sh-index query --end-marker stopped at query {number} "
                                           f"({why}):\n{err_path.read_text() if err_path.exists() else ''}")
                    answers.append(got)
                times.append(time.perf_counter_ns() - start)
            proc.stdin.close()
            if proc.wait() != 0:
                raise RuntimeError(f"sh-index query --end-marker failed (exit {proc.returncode})")
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    stats = parse_latency(stderr)
    if stats["queries"] != len(lines):
        raise RuntimeError(f"sh-index query --stats counted {stats['queries']} queries, "
                           f"the driver wrote {len(lines)}")
    tenth = max(1, len(times) // 10)
    first, last = sorted(times[:tenth]), sorted(times[-tenth:])
    times.sort()
    at = lambda q: times[round((len(times) - 1) * q)] / 1000  # noqa: E731
    return dict(trip_median=at(0.5), trip_p99=at(0.99), trip_first=first[len(first) // 2] / 1000,
                trip_last=last[len(last) // 2] / 1000, median=stats["median"], p99=stats["p99"],
                largest=stats["largest"], unflushed=stats["unflushed"],
                answers=b"".join(answers))


def check_equal(what, expected, got, queries, corpus, peer=False):
    """Stops the suite where `got` is not `expected` (sh-pairs --against)."""
    if got == expected:
        return
    expected_lines, got_lines = expected.splitlines(), got.splitlines()
    missing = sorted(set(expected_lines) - set(got_lines))
    extra = sorted(set(got_lines) - set(expected_lines))
    sample = lambda lines: ", ".join(l.decode(errors="replace").replace("\t", " ") for l in lines[:5])  # noqa: E731,E741
    order = "" if missing or extra else " (the same lines in another order)"
    raise CheckFailed(
        f"{what} differs from sh-pairs -k {K} --against {corpus} < {queries}{order}: "
        f"{len(expected_lines)} lines expected, {len(got_lines)} written; "
        f"{len(missing)} missing (first: {sample(missing)}), {len(extra)} extra "
        f"(first: {sample(extra)})" + (" [the peer's answers]" if peer else ""))


def index_stats(sh_index, index):
    out = subprocess.run([sh_index, "stats", str(index)], capture_output=True, text=True,
                         check=True).stdout
    stats, segments = {}, []
    for line in out.splitlines():
        key, _, value = line.partition("\t")
        if key == "segment":
            segments.append(value)
        else:
            stats[key] = value
    for key in ("records", "bytes", "bytes per record", "bytes per record without names"):
        if key not in stats:
            raise RuntimeError(f"sh-index stats printed no '{key}' line:\n{out}")
    stats["segments"] = segments
    stats["du"] = sum(p.stat().st_size for p in Path(index).iterdir())
    return stats


def parse_pairs_stats(text):
    match = re.search(r"([\d.]+) s \(read ([\d.]+), group ([\d.]+), search ([\d.]+), "
                      r"write ([\d.]+)\)", text)
    if not match:
        raise RuntimeError(f"sh-pairs --stats printed no timing line; standard error:\n{text}")
    total, read, group, search, write = map(float, match.groups())
    return dict(total=total, read=read, group=group, search=search, write=write)


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def spread(values, unit="s", scale=1, digits=2):
    values = [v * scale for v in values]
    return (f"{statistics.median(values):.{digits}f} {unit} "
            f"({min(values):.{digits}f}–{max(values):.{digits}f})")


def print_results(results, count, measure):
    size, rows = results["size"], results["results"]
    print("\n## sh-index: a persistent index (issue #13)\n")
    print(f"Random 64-bit fingerprints with ids, 10% of them near copies (1–3 bits) of another; "
          f"{count(size['queries'])} queries without ids, half near copies of corpus records and "
          f"half random; K={K} throughout. Medians of {results['runs']} runs (min–max; 100M: one "
          f"run); the page cache is warm but where the index is said to be cold.\n")

    def section(title):
        print(f"\n### {title}\n")

    def m(runs):
        return measure([x.seconds[0] for x in runs], max(x.rss_kib for x in runs))

    section("Size on disk")
    print(f"| records | bytes per record | without names (target ≤ {TARGET_BYTES}) | of names (ids) "
          "| after add (segments) | after compact | layout |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        s, a, c = r["stats"], r["stats_added"], r["stats_compacted"]
        layout = "; ".join(seg.split("\t", 3)[3].replace("\t", ", ") for seg in s["segments"])
        print(f"| {count(r['n'])} | {float(s['bytes per record']):.2f} | "
              f"{float(s['bytes per record without names']):.2f} | "
              f"{float(s['bytes per record of names']):.2f} | "
              f"{float(a['bytes per record without names']):.2f} ({len(a['segments'])} segments) | "
              f"{float(c['bytes per record without names']):.2f} | {layout} |")

    section("Open: one query, whole process")
    print("Each process spawned from Python, its wall time; cold: the index's files dropped from "
          "the page cache before each run (posix_fadvise DONTNEED).\n")
    print("| records | `sh-index query` of one query | `sh-index --version` | difference (open, one "
          f"query, close; target < {TARGET_OPEN_MS} ms and flat) | cold: one query | cold "
          "difference |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        version = statistics.median(r["version"])
        diff = statistics.median(r["open"]) - version
        cold = statistics.median(r["open_cold"]) - version
        print(f"| {count(r['n'])} | {spread(r['open'], 'ms', 1000, 1)} | "
              f"{spread(r['version'], 'ms', 1000, 1)} | {diff * 1000:.1f} ms | "
              f"{spread(r['open_cold'], 'ms', 1000, 1)} | {cold * 1000:.1f} ms |")

    section("Single queries, one at a time through a pipe")
    print(f"A Python driver writes one query, reads the answers up to the `.` line of "
          f"--end-marker, then writes the next; {count(size['single'])} queries per run. "
          "In the process: what `--stats` prints (parse, search, write and flush; the flush wakes "
          "the driver, whose turn can fall inside it when both share a core). Before the flush: "
          "the same answers timed up to the flush, also by `--stats`. The first and last tenth "
          "of the round trips show the warm-up of a fresh process (each 1 KiB block's checksum "
          "is checked on first use).\n")
    print(f"| records | in process: median (target < {TARGET_MEDIAN_US} µs) | p99 (target < "
          f"{TARGET_P99_US} µs) | largest | before the flush: median / p99 | round trip seen by the "
          "driver: median | p99 | first / last tenth: median |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        st = r["stream"]
        f = lambda key: spread([x[key] for x in st], "µs", 1, 1)  # noqa: E731
        g = lambda key: statistics.median(x[key] for x in st)  # noqa: E731
        file_median = statistics.median(x["file"]["median"] for x in st)
        file_p99 = statistics.median(x["file"]["p99"] for x in st)
        print(f"| {count(r['n'])} | {f('median')} | {f('p99')} | {f('largest')} | "
              f"{file_median:.1f} / {file_p99:.1f} µs | {f('trip_median')} | {f('trip_p99')} | "
              f"{g('trip_first'):.1f} / {g('trip_last'):.1f} µs |")

    section("Batch queries")
    print(f"| records | `sh-index query < {count(size['queries'])} queries` | queries/s | peak RSS "
          "| with the added segment (one run) | `sh-pairs --against corpus` (one run) | answers |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        b = r["batch"]
        target = f" (target ≥ {TARGET_QPS_100M:,} at 100M)" if r["n"] >= 100_000_000 else ""
        print(f"| {count(r['n'])} | {b.spread()} | {r['queries'] / b.median:,.0f}{target} | "
              f"{b.rss()} | {r['queries'] / r['batch_added'].median:,.0f}/s | "
              f"{r['pairs_against'].spread()}, {r['queries'] / r['pairs_against'].median:,.0f}/s | "
              f"{r['expected_lines']} lines for the first {count(r['single'])} |")

    section("Build, add, compact")
    print(f"| records | `sh-index build -k {K}` | sh-pairs read + group | build ÷ (read + group) "
          f"(target ≤ {TARGET_BUILD_RATIO}) | sh-pairs whole run | build peak RSS | add "
          "(records added) | compact (records) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        build = m(r["build"])
        sort = [p["read"] + p["group"] for p in r["pairs_stats"]]
        ratio = build.median / statistics.median(sort)
        print(f"| {count(r['n'])} | {build.spread()} | {spread(sort)} | {ratio:.2f} | "
              f"{m(r['pairs']).spread()} | {build.rss()} | {m(r['add']).spread()} "
              f"({count(r['added'])}) | {m(r['compact']).spread()} ({count(r['n'] + r['added'])}) |")

    peers = [r for r in rows if r.get("peer")]
    if peers:
        p0 = peers[0]["peer"][0]
        section(f"Against hammingbird {p0['version']} (Python, its streaming Index)")
        print("hammingbird's `Index(8, K)`: `add_batch` of the corpus as the build, `query_batch` of "
              "every query as the batch, `query()` of one row timed in Python (the call "
              "included) as the single query; its memory is the process's RSS grown by the "
              "build; `find_pairs_cross` is its batch join without an index, beside sh-pairs "
              "--against. It keeps nothing on disk: a new process must read and add the corpus "
              "again (no open, no size on disk), and it has no ids (rows are numbered).\n")
        print("| records | what | sh-index | hammingbird | sh-index better by |")
        print("|---|---|---|---|---|")
        for r in peers:
            p = r["peer"]
            med = lambda key: statistics.median(x[key] for x in p)  # noqa: E731
            n = count(r["n"])
            build = m(r["build"]).median
            print(f"| {n} | build (s) | {build:.2f} (process, reading text) | "
                  f"{med('build_seconds'):.2f} (add_batch alone) | {med('build_seconds') / build:.1f}× |")
            ours_qps = r["queries"] / r["batch"].median
            peer_qps = r["queries"] / med("batch_seconds")
            cpu = med("batch_cpu_seconds") / med("batch_seconds")
            print(f"| {n} | batch queries/s | {ours_qps:,.0f} (process, reading and writing text) | "
                  f"{peer_qps:,.0f} (query_batch alone; CPU ÷ wall {cpu:.1f}) | "
                  f"{ours_qps / peer_qps:.2f}× |")
            print(f"| {n} | batch, no index: find_pairs_cross(corpus, queries, K) | "
                  f"{r['queries'] / r['pairs_against'].median:,.0f} queries/s (sh-pairs --against, "
                  f"process, one run, peak RSS {r['pairs_against'].rss()}) | {r['queries'] / med('cross_seconds'):,.0f} queries/s "
                  f"(the call alone; CPU ÷ wall {med('cross_cpu_seconds') / med('cross_seconds'):.1f}), "
                  f"process peak RSS {med('cross_peak_rss_kib') / 1024:.0f} MB | "
                  f"{med('cross_seconds') / r['pairs_against'].median:.2f}× |")
            stream_median = statistics.median(x["median"] for x in r["stream"])
            file_median = statistics.median(x["file"]["median"] for x in r["stream"])
            print(f"| {n} | single query, median in process | {file_median:.1f} µs (before the "
                  f"flush; {stream_median:.1f} µs with write and flush, through a pipe) | "
                  f"{med('single_median_us'):.1f} µs (p99 {med('single_p99_us'):.1f}) | "
                  f"{med('single_median_us') / file_median:.2f}× |")
            peer_rss = med("index_bytes") / 2**20
            print(f"| {n} | memory | {r['batch'].rss()} (batch process peak RSS, mapped index "
                  f"pages included); {r['stats']['du'] / 2**20:.0f} MB on disk | "
                  f"{peer_rss:.0f} MB (index), {med('peak_rss_kib') / 1024:.0f} MB process peak "
                  f"(before find_pairs_cross) | "
                  f"{peer_rss * 1024 / r['batch'].rss_kib:.2f}× |")
    checked = ", ".join(count(r["n"]) for r in rows)
    print(f"\nChecked at {checked}: the answers to the first {count(size['single'])} queries "
          f"(batch, one at a time, after add, after compact{', hammingbird' if peers else ''}) "
          f"equal `sh-pairs -k {K} --against` the same records.")
