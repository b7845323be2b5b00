#!/usr/bin/env python3
"""The benchmark suite: sh-tools against its ancestors, side by side in one run.

Run through bench/run, which builds the release binaries, makes the venv with the peers and
then calls this script with that venv's Python. Prints a Markdown table; nothing is asserted.

Peers: simhash-pybind 0.0.3 (the C++ core of seomoz's simhash-py: `find_all`, `compute`) and
simhash 2.1.2 (pure Python, `Simhash(text)`); rensa 0.5.0 and hammingbird 0.5.0 in the wide and
index sections; in the peers section (text_pairs.py, pair_search.py, pipepart.py) gaoya 0.2.2,
rensa, datasketch 2.0.0 and hammingbird, each run as a whole process. A peer's `find_all` is timed around the call only,
after its input is loaded; sh-tools commands are timed as whole processes, reading and writing
text. Peak RSS comes from /usr/bin/time -v (for sh-pairs against hammingbird, timed started
without a shell or /usr/bin/time, from one more run under it: `Bench.process`).
"""

import argparse
import array
import hashlib
import json
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import corpus_stats
import index
import fingerprint
import pair_search
import pipepart
import text_pairs
import wide

ROOT = Path(__file__).resolve().parent.parent
SIZES = {
    # name: (random fingerprints small, large, huge, planted bases, text bytes for peers, runs)
    "tiny": dict(small=20_000, large=50_000, huge=0, planted=5_000, peer_text=200_000, runs=2,
                 cluster_pairs=100_000, df_distinct=200_000, df_capacity=1_000,
                 zipf_bytes=2_000_000),
    "full": dict(small=1_000_000, large=10_000_000, huge=100_000_000, planted=1_000_000,
                 peer_text=8_000_000, runs=3, cluster_pairs=10_000_000, df_distinct=20_000_000,
                 df_capacity=100_000, zipf_bytes=200_000_000),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", choices=SIZES, default="full")
    parser.add_argument("--work", type=Path, default=ROOT / "bench" / "work")
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release")
    parser.add_argument("--corpus", type=Path, help="ID<TAB>TEXT file (default: linux-doc)")
    parser.add_argument("--pybind-python", default=sys.executable,
                        help="a Python with simhash-pybind 0.0.3")
    parser.add_argument("--simhash-python", default=sys.executable,
                        help="a Python with simhash 2.1.2")
    parser.add_argument("--skip-peer-10m", action="store_true",
                        help="do not run the peer on the large random set (minutes per run), nor, "
                             "in the peers section, hammingbird's Index on it (5 minutes)")
    parser.add_argument("--rensa-python", default=sys.executable, help="a Python with rensa 0.5.0")
    parser.add_argument("--hammingbird-python", default=sys.executable,
                        help="a Python with hammingbird 0.5.0 (and NumPy)")
    parser.add_argument("--gaoya-python", help="a Python with gaoya 0.2.2 (peers section; "
                        "without it gaoya is reported as not installed)")
    parser.add_argument("--datasketch-python", help="a Python with datasketch 2.0.0 (peers "
                        "section; without it datasketch is reported as not installed)")
    parser.add_argument("--index-100m", action="store_true",
                        help="index section: also the 100M corpus (about 3 GB of text, 13 GB of "
                             "disk at most, minutes per step)")
    parser.add_argument("--only", choices=["corpus-stats", "wide", "index", "fingerprint", "peers"],
                        help="run one section alone: corpus-stats (sh-df, sh-weight, the recommended "
                             "pipeline), wide (wide fingerprints: the search and text to pairs "
                             "against rensa), index (sh-index: size, open, single and batch "
                             "queries, build, add, compact, against hammingbird) or fingerprint "
                             "(sh-fingerprint on one and two threads against the four-stage "
                             "pipeline) or peers (text to pairs against gaoya, rensa and "
                             "datasketch on a zipf corpus with planted copies; sh-pairs against "
                             "hammingbird; parallel --pipepart against sh-fingerprint)")
    args = parser.parse_args()
    size = SIZES[args.size]
    args.work.mkdir(parents=True, exist_ok=True)
    bench = Bench(args.bin, args.work, size["runs"], args.pybind_python, args.simhash_python)

    print(f"# sh-tools benchmarks ({args.size}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"\nMachine: {machine()}\n")

    demo = ROOT / "examples" / "demo" / "docs.txt"
    if args.only == "corpus-stats":
        corpus = args.corpus or (demo if args.size == "tiny" else linux_doc(args.work))
        stats = corpus_stats.run(bench, corpus, size)
        corpus_stats.print_results(stats, count, Measure)
        return
    if args.only == "wide":
        corpus = args.corpus or (demo if args.size == "tiny" else linux_doc(args.work))
        wide_rows = wide.search(bench, [size["small"], size["large"]], [size["small"]])
        wide_text = wide.text_to_pairs(bench, corpus, args.rensa_python)
        wide.print_results(wide_rows, wide_text, count, Measure)
        return
    if args.only == "index":
        results = index.run(bench, args.size, count, args.index_100m, args.hammingbird_python)
        index.print_results(results, count, Measure)
        return
    if args.only == "fingerprint":
        corpus = args.corpus or (demo if args.size == "tiny" else linux_doc(args.work))
        fused = fingerprint.run(bench, [corpus, fingerprint.zipf_corpus(args.work, size["zipf_bytes"])])
        fingerprint.print_results(fused, Measure)
        return

    if args.only == "peers":
        peers_section(bench, args, size)
        return

    small = random_fingerprints(args.work, size["small"], seed=1)
    large = random_fingerprints(args.work, size["large"], seed=2)
    planted = planted_fingerprints(args.work, size["planted"], seed=3)

    rows = []
    # sh-pairs against find_all at B=6, K=3.
    for label, path, peer_runs in [("random " + count(size["small"]), small, bench.runs),
                                   ("random " + count(size["large"]), large,
                                    0 if args.skip_peer_10m else 2)]:
        ours = bench.ours(f"sh-pairs -q -b 6 -k 3 < {path}")
        peer = bench.peer_find_all(path, 6, 3, peer_runs) if peer_runs else None
        rows.append(Row(f"sh-pairs B=6 K=3, {label}", ours, peer))

    # Default B against the peer's best B, and against our own best fixed B.
    peer_best = None
    if not args.skip_peer_10m:
        for b in (4, 5):
            result = bench.peer_find_all(large, b, 3, 1)
            rows.append(Row(f"(peer alone) find_all B={b} K=3, random {count(size['large'])}", None, result))
        candidates = [r.peer for r in rows if r.peer and f"random {count(size['large'])}" in r.name]
        peer_best = min(candidates, key=lambda m: m.median)
    default_rows = []
    for label, path in [("random " + count(size["small"]), small),
                        ("random " + count(size["large"]), large),
                        ("planted " + count(lines(planted)), planted)]:
        default = bench.ours(f"sh-pairs -q -k 3 < {path}")
        fixed = {b: bench.ours(f"sh-pairs -q -b {b} -k 3 < {path}") for b in range(4, 9)}
        best_b, best = min(fixed.items(), key=lambda item: item[1].median)
        chosen = chosen_blocks(args.bin, path)
        default_rows.append((label, default, chosen, best_b, best, fixed))
        if "random" in label and path == large:
            rows.append(Row(f"sh-pairs default B (={chosen}) K=3, {label}, vs the peer's best B",
                            default, peer_best))

    # Text to fingerprints.
    # The tiny run (CI) uses the demo corpus shipped in the repository, fetching nothing.
    corpus = args.corpus or (demo if args.size == "tiny" else linux_doc(args.work))
    text_rows = text_benchmarks(bench, corpus, size["peer_text"])
    stats = corpus_stats.run(bench, corpus, size)
    wide_rows = wide.search(bench, [size["small"], size["large"]], [size["small"]])
    wide_text = wide.text_to_pairs(bench, corpus, args.rensa_python)
    index_results = index.run(bench, args.size, count, args.index_100m, args.hammingbird_python)
    fused = fingerprint.run(bench, [corpus, fingerprint.zipf_corpus(args.work, size["zipf_bytes"])])

    # sh-cluster.
    pairs = cluster_pairs(args.work, size["cluster_pairs"])
    cluster = bench.ours(f"sh-cluster -q < {pairs} > /dev/null")

    huge = None
    if size["huge"]:
        huge_path = random_fingerprints(args.work, size["huge"], seed=4)
        huge = bench.ours(f"sh-pairs -q -k 3 < {huge_path}", runs=1)

    print_results(rows, default_rows, text_rows, cluster, size, huge)
    corpus_stats.print_results(stats, count, Measure)
    wide.print_results(wide_rows, wide_text, count, Measure)
    index.print_results(index_results, count, Measure)
    fingerprint.print_results(fused, Measure)
    peers_section(bench, args, size)


def peers_section(bench, args, size):
    """Text to pairs against gaoya, rensa and datasketch; sh-pairs against hammingbird;
    parallel --pipepart against sh-fingerprint (issue #15, items 2 and 3)."""
    corpus, labels, copies = fingerprint.zipf_corpus_with_gold(args.work, size["zipf_bytes"])
    pythons = {"gaoya": args.gaoya_python, "rensa": args.rensa_python,
               "datasketch": args.datasketch_python}
    texts = text_pairs.run(bench, corpus, labels, copies, pythons)
    small = random_fingerprints(args.work, size["small"], seed=1)
    large = random_fingerprints(args.work, size["large"], seed=2)
    searches = pair_search.run(bench, [(count(size["small"]), small, bench.runs),
                                       (count(size["large"]), large, 1)],
                               args.hammingbird_python, args.skip_peer_10m)
    split = pipepart.run(bench, corpus)
    text_pairs.print_results(texts, Measure)
    pair_search.print_results(searches, Measure)
    pipepart.print_results(split, Measure)


class Measure:
    """Seconds of several runs, and the largest peak RSS seen (KiB); `cpu`, where measured, the
    CPU seconds (user and system, of every process and thread) of each run."""

    def __init__(self, seconds, rss_kib, cpu=None):
        self.seconds = seconds
        self.rss_kib = rss_kib
        self.cpu = cpu or []

    @property
    def median(self):
        return statistics.median(self.seconds)

    def spread(self):
        return f"{self.median:.2f} s ({min(self.seconds):.2f}–{max(self.seconds):.2f})"

    def rss(self):
        return f"{self.rss_kib / 1024:.0f} MB" if self.rss_kib else "–"


class Row:
    def __init__(self, name, ours, peer):
        self.name, self.ours, self.peer = name, ours, peer


class Bench:
    def __init__(self, bin_dir, work, runs, pybind_python, simhash_python):
        self.bin_dir, self.work, self.runs = bin_dir, work, runs
        self.python = {"pybind": pybind_python, "simhash": simhash_python}
        self.env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", LC_ALL="C")

    def timed(self, command, runs):
        """Runs a shell command under /usr/bin/time -v; wall seconds, CPU seconds and peak RSS
        of the largest process it started."""
        seconds, rss, cpu = [], 0, []
        for _ in range(runs):
            report = self.work / "time.txt"
            start = time.perf_counter()
            subprocess.run(["/usr/bin/time", "-v", "-o", str(report), "bash", "-o", "pipefail", "-c",
                            command], env=self.env, check=True, stdout=subprocess.DEVNULL)
            seconds.append(time.perf_counter() - start)
            text = report.read_text()
            match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
            rss = max(rss, int(match.group(1)))
            cpu.append(sum(float(re.search(rf"{kind} time \(seconds\): ([0-9.]+)", text).group(1))
                           for kind in ("User", "System")))
        return Measure(seconds, rss, cpu)

    def attempt(self, command):
        """One run of a shell command under /usr/bin/time -v that may fail (a peer stopped by
        a memory limit): (Measure of that run, None) when it succeeds, else (Measure, what
        stopped it: GNU time's "Command terminated by signal N" or "exited with N", and the
        last line of its standard error)."""
        report = self.work / "time.txt"
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v", "-o", str(report), "bash", "-o", "pipefail",
                               "-c", command], env=self.env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, errors="replace")
        seconds = time.perf_counter() - start
        text = report.read_text()
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
        cpu = sum(float(re.search(rf"{kind} time \(seconds\): ([0-9.]+)", text).group(1))
                  for kind in ("User", "System"))
        measure = Measure([seconds], rss, [cpu])
        if done.returncode == 0:
            return measure, None
        signal = re.search(r"Command terminated by signal (\d+)", text)
        why = f"signal {signal.group(1)}" if signal else f"exit status {done.returncode}"
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        tail = next((line for line in lines if "memory allocation" in line),
                    lines[-1] if lines else "")
        return measure, f"{why}: {tail.strip()}" if tail else why

    def ours(self, command, runs=None):
        return self.timed(command, runs or self.runs)

    def process(self, argv, stdin, runs=None):
        """Runs one of our binaries, `argv` (its name looked up in the binaries' directory),
        reading the file `stdin`, its output thrown away: timed from its start to its end with
        no shell and no /usr/bin/time around it (which add about 2.4 ms a run on the
        development machine, a twentieth of a whole sh-pairs run at 1M), its CPU seconds from the
        system's account of the process (wait4). Its peak RSS comes from one more run under
        /usr/bin/time -v: the account of a process started from Python counts Python's own
        pages as its peak (the child shares them until it starts the binary)."""
        seconds, cpu = [], []
        program = str(self.bin_dir / argv[0])
        for _ in range(runs or self.runs):
            with open(stdin, "rb") as source:
                start = time.perf_counter()
                child = subprocess.Popen([program, *argv[1:]], stdin=source,
                                         stdout=subprocess.DEVNULL, env=self.env)
                _, status, usage = os.wait4(child.pid, 0)
                seconds.append(time.perf_counter() - start)
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0:
                raise subprocess.CalledProcessError(child.returncode, argv)
            cpu.append(usage.ru_utime + usage.ru_stime)
        command = f"{shlex.join([program, *argv[1:]])} < {shlex.quote(str(stdin))}"
        rss = self.timed(command, 1).rss_kib
        return Measure(seconds, rss, cpu)

    def alternating(self, commands, out):
        """Each of `commands` ({name: shell command writing `out`}) once a round, in turn, for
        the suite's runs, so that all see the same machine: ({name: [Measure of each run]},
        whether every run wrote the same bytes to `out`)."""
        runs = {name: [] for name in commands}
        digests = set()
        for _ in range(self.runs):
            for name, command in commands.items():
                runs[name].append(self.ours(command, runs=1))
                with open(out, "rb") as f:
                    digests.add(hashlib.sha256(f.read()).hexdigest())
        return runs, len(digests) == 1

    def peer_find_all(self, path, blocks, distance, runs):
        """Times find_all(hashes, B, K) alone, in a fresh Python per run."""
        seconds, rss = [], 0
        for _ in range(runs):
            report = self.work / "time.txt"
            out = subprocess.run(["/usr/bin/time", "-v", "-o", str(report), self.python["pybind"],
                                  str(Path(__file__).parent / "peers.py"), "find_all", str(path),
                                  str(blocks), str(distance)],
                                 check=True, capture_output=True, text=True)
            seconds.append(json.loads(out.stdout)["seconds"])
            match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report.read_text())
            rss = max(rss, int(match.group(1)))
        return Measure(seconds, rss)


def text_benchmarks(bench, corpus, peer_bytes):
    """The four-stage pipeline on the whole corpus; the peers' recipes on its first
    `peer_bytes` bytes (they are slow), compared in MB/s."""
    total = corpus.stat().st_size
    pipeline = (f"sh-tokenize --with-id < {corpus} | sh-shingle -w 4 | sh-hash | sh-compute "
                f"> {bench.work}/fingerprints.tsv")
    ours = bench.ours(pipeline)
    sample = bench.work / "corpus-sample.tsv"
    with open(corpus, "rb") as src, open(sample, "wb") as dst:
        taken = 0
        for line in src:
            if taken >= peer_bytes:
                break
            dst.write(line)
            taken += len(line)
    sample_bytes = sample.stat().st_size
    peers = {}
    for recipe, python in (("pybind-recipe", "pybind"), ("simhash-2.1.2", "simhash")):
        seconds = []
        for _ in range(bench.runs):
            out = subprocess.run([bench.python[python], str(Path(__file__).parent / "peers.py"), recipe,
                                  str(sample)], check=True, capture_output=True, text=True)
            seconds.append(json.loads(out.stdout)["seconds"])
        peers[recipe] = Measure(seconds, 0)
    return dict(corpus=corpus, total=total, ours=ours, sample_bytes=sample_bytes, peers=peers)


def print_results(rows, default_rows, text_rows, cluster, size, huge):
    print("## sh-pairs against simhash-pybind find_all\n")
    print("| what | sh-tools (median, min–max) | peer (median, min–max) | peer ÷ ours | RSS ours | RSS peer |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        ours = row.ours.spread() if row.ours else "–"
        peer = row.peer.spread() if row.peer else "not run"
        ratio = f"{row.peer.median / row.ours.median:.1f}×" if row.ours and row.peer else "–"
        print(f"| {row.name} | {ours} | {peer} | {ratio} | "
              f"{row.ours.rss() if row.ours else '–'} | {row.peer.rss() if row.peer else '–'} |")

    print("\n## sh-pairs default B against the best fixed B (K=3)\n")
    print("| input | default B | default (median) | best fixed B | best (median) | default ÷ best | all fixed B (median s) |")
    print("|---|---|---|---|---|---|---|")
    for label, default, chosen, best_b, best, fixed in default_rows:
        others = ", ".join(f"{b}: {m.median:.2f}" for b, m in fixed.items())
        print(f"| {label} | {chosen} | {default.spread()} | {best_b} | {best.spread()} | "
              f"{default.median / best.median:.2f} | {others} |")

    t = text_rows
    ours_rate = t["total"] / t["ours"].median / 1e6
    print("\n## Text to fingerprints\n")
    print(f"Corpus: {t['corpus'].name}, {t['total'] / 1e6:.1f} MB; the peers ran on its first "
          f"{t['sample_bytes'] / 1e6:.1f} MB.\n")
    print("| what | time (median, min–max) | MB/s | ours ÷ peer (MB/s) |")
    print("|---|---|---|---|")
    print(f"| sh-tokenize \\| sh-shingle -w 4 \\| sh-hash \\| sh-compute | {t['ours'].spread()} | "
          f"{ours_rate:.1f} | – |")
    for recipe, measure in t["peers"].items():
        rate = t["sample_bytes"] / measure.median / 1e6
        print(f"| {recipe} | {measure.spread()} | {rate:.2f} | {ours_rate / rate:.1f}× |")

    print("\n## Other figures\n")
    print(f"- sh-cluster, {count(size['cluster_pairs'])} pairs of line-number ids: "
          f"{cluster.spread()}, peak RSS {cluster.rss()}")
    for label, default, chosen, *_ in default_rows:
        print(f"- sh-pairs default B, {label}: peak RSS {default.rss()}")
    if huge:
        print(f"- sh-pairs default B, K=3, random {count(size['huge'])}: {huge.spread()}, "
              f"peak RSS {huge.rss()}")


def chosen_blocks(bin_dir, path):
    out = subprocess.run([str(bin_dir / "sh-pairs"), "-q", "-k", "3", "--stats", "-i", str(path),
                          "-o", "/dev/null"], check=True, capture_output=True, text=True)
    return int(re.search(r"B=(\d+)", out.stderr).group(1))


def count(n):
    for unit, size in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def write_numbers(path, numbers):
    with open(path, "w") as f:
        f.write("\n".join(map(str, numbers)))
        f.write("\n")


def random_fingerprints(work, n, seed):
    """n uniformly random 64-bit fingerprints, one per line (cached)."""
    path = work / f"random-{count(n)}-seed{seed}.txt"
    if not path.exists():
        rng = random.Random(seed)
        partial = path.with_suffix(".partial")
        with open(partial, "w") as f:
            left = n
            while left:
                chunk = min(left, 1_000_000)
                numbers = array.array("Q", rng.randbytes(8 * chunk))
                f.write("\n".join(map(str, numbers)))
                f.write("\n")
                left -= chunk
        partial.rename(path)
    return path


def planted_fingerprints(work, bases, seed):
    """Random fingerprints plus, for half of them, neighbours 1 to 3 bits away."""
    path = work / f"planted-{count(bases)}-seed{seed}.txt"
    if not path.exists():
        rng = random.Random(seed)
        numbers = []
        for _ in range(bases):
            base = rng.getrandbits(64)
            numbers.append(base)
            if rng.random() < 0.5:
                for _ in range(rng.randint(1, 3)):
                    flipped = base
                    for bit in rng.sample(range(64), rng.randint(1, 3)):
                        flipped ^= 1 << bit
                    numbers.append(flipped)
        rng.shuffle(numbers)
        write_numbers(path, numbers)
    return path


def cluster_pairs(work, n):
    """n pairs over n line-number ids: chains and random edges, as sh-pairs would print."""
    path = work / f"pairs-{count(n)}.tsv"
    if not path.exists():
        rng = random.Random(5)
        with open(path, "w") as f:
            for _ in range(n // 1_000_000 or 1):
                chunk = []
                for _ in range(min(n, 1_000_000)):
                    a = rng.randrange(1, n)
                    b = a + rng.randrange(1, 50)
                    chunk.append(f"{a}\t{b}\t{rng.randrange(4)}")
                f.write("\n".join(chunk))
                f.write("\n")
    return path


def linux_doc(work):
    path = work / "linux-doc.tsv"
    if not path.exists():
        subprocess.run([str(ROOT / "scripts" / "fetch-linux-doc.sh"), str(path)], check=True)
    return path


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {sys.version.split()[0]}"


if __name__ == "__main__":
    main()
