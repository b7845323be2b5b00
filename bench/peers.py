#!/usr/bin/env python3
"""What the peers do, timed from inside Python; prints {"seconds": …} as JSON.

  peers.py find_all FILE B K     simhash-pybind: find_all(hashes, B, K), the call alone
  peers.py pybind-recipe FILE    simhash-pybind's documented recipe on ID<TAB>TEXT lines
  peers.py simhash-2.1.2 FILE    simhash 2.1.2: Simhash(text).value on ID<TAB>TEXT lines
  peers.py rensa-lsh FILE        rensa: MinHash LSH on ID<TAB>TEXT lines, text to pairs
  peers.py hammingbird-index CORPUS QUERIES K SINGLE
                                 hammingbird's streaming Index on [ID<TAB>]FINGERPRINT lines:
                                 build, batch queries, SINGLE single queries (see the function)

simhash-pybind and simhash 2.1.2 both install a module named `simhash`: run each in its own
venv.
"""

import array
import json
import re
import resource
import statistics
import sys
import time


def texts(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            yield line.rstrip("\n").split("\t", 1)[-1]


def find_all(path, blocks, distance):
    import simhash

    hashes = [int(line) for line in open(path)]
    start = time.perf_counter()
    pairs = simhash.find_all(hashes, int(blocks), int(distance))
    return {"seconds": time.perf_counter() - start, "pairs": len(pairs)}


def pybind_recipe(path):
    """Lowercase, split on \\W+, shingles of 4 words, unsigned_hash, compute."""
    import simhash

    start = time.perf_counter()
    fingerprints = 0
    for text in texts(path):
        tokens = [t for t in re.split(r"\W+", text.lower()) if t]
        shingles = (" ".join(s) for s in simhash.shingle(tokens, 4))
        simhash.compute([simhash.unsigned_hash(s.encode("utf-8")) for s in shingles])
        fingerprints += 1
    return {"seconds": time.perf_counter() - start, "fingerprints": fingerprints}


def simhash_212(path):
    from simhash import Simhash

    start = time.perf_counter()
    fingerprints = 0
    for text in texts(path):
        Simhash(text).value
        fingerprints += 1
    return {"seconds": time.perf_counter() - start, "fingerprints": fingerprints}


def rensa_lsh(path, threshold=0.7, bands=16):
    """rensa's MinHash LSH from text to pairs: lowercase, split on \\W+, word 3-grams, 128
    permutations, an LSH index of 16 bands (what datasketch picks for t=0.7, rounded to a
    divisor of 128), then each document's candidates kept when their estimated Jaccard
    similarity reaches the threshold."""
    from importlib.metadata import version

    from rensa import RMinHash, RMinHashLSH

    start = time.perf_counter()
    sketches = []
    for text in texts(path):
        tokens = [t for t in re.split(r"\W+", text.lower()) if t]
        shingles = [" ".join(tokens[i:i + 3]) for i in range(max(1, len(tokens) - 2))]
        m = RMinHash(num_perm=128, seed=42)
        m.update(shingles)
        sketches.append(m)
    lsh = RMinHashLSH(threshold=threshold, num_perm=128, num_bands=bands)
    for i, m in enumerate(sketches):
        lsh.insert(i, m)
    pairs = set()
    for i, m in enumerate(sketches):
        pairs.update((min(i, j), max(i, j)) for j in lsh.query(m)
                     if j != i and m.jaccard(sketches[j]) >= threshold)
    return {"seconds": time.perf_counter() - start, "pairs": len(pairs),
            "threshold": threshold, "version": version("rensa")}


def read_fingerprints(path):
    """The fingerprints of [ID<TAB>]FINGERPRINT lines (decimal) as an array of unsigned 64-bit
    integers, read in chunks so that the text is never held whole."""
    numbers = array.array("Q")
    with open(path, "rb") as f:
        while True:
            lines = f.readlines(1 << 24)
            if not lines:
                return numbers
            numbers.extend(int(line.rsplit(b"\t", 1)[-1]) for line in lines)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def hammingbird_index(corpus, queries, k, single):
    """hammingbird's streaming Index(d_bytes=8, k): add_batch of the corpus (timed: the
    build), query_batch of every query (timed, with the process's CPU time beside, which tells
    whether it ran on more than one thread), then query() of each of the first SINGLE queries
    alone, each timed from Python (the call included); find_pairs_cross(corpus, queries, K), its
    batch join without an index, is timed too (and must find as many pairs). The fingerprints go in as 8 bytes each,
    little-endian; the Hamming distance does not depend on the byte order as long as corpus
    and queries share it. The memory of the index is the process's RSS after the build minus
    before it (the corpus' array was made before). Also returns the answers to the first SINGLE
    queries as [query line, corpus line, distance], to be checked against sh-pairs."""
    from importlib.metadata import version

    import numpy as np
    from hammingbird import Index, find_pairs_cross

    k, single = int(k), int(single)
    corpus_array = read_fingerprints(corpus)
    query_array = read_fingerprints(queries)
    rows = np.frombuffer(corpus_array, dtype="<u8").view(np.uint8).reshape(-1, 8)
    query_rows = np.frombuffer(query_array, dtype="<u8").view(np.uint8).reshape(-1, 8)
    before = rss_bytes()
    start = time.perf_counter()
    index = Index(8, k)
    index.add_batch(rows)
    build = time.perf_counter() - start
    index_bytes = rss_bytes() - before
    if len(index) != len(rows):
        raise SystemExit(f"hammingbird holds {len(index)} rows after adding {len(rows)}")

    start, cpu = time.perf_counter(), time.process_time()
    answers = index.query_batch(query_rows)
    batch, batch_cpu = time.perf_counter() - start, time.process_time() - cpu
    pairs = sum(len(a) for a in answers)

    chosen = [query_rows[i] for i in range(min(single, len(query_rows)))]
    times, sample = [], []
    for i, row in enumerate(chosen):
        start = time.perf_counter_ns()
        found = index.query(row)
        times.append(time.perf_counter_ns() - start)
        sample.extend([i + 1, j + 1, d] for j, d in found)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    # Its batch join without an index (sorts both sides), for sh-pairs --against; last, for
    # the memory it takes.
    start, cpu = time.perf_counter(), time.process_time()
    cross = len(find_pairs_cross(rows, query_rows, k))
    cross_seconds, cross_cpu = time.perf_counter() - start, time.process_time() - cpu
    if cross != pairs:
        raise SystemExit(f"hammingbird: find_pairs_cross found {cross} pairs, query_batch {pairs}")

    times.sort()
    at = lambda q: times[round((len(times) - 1) * q)] / 1000  # noqa: E731
    return {"version": version("hammingbird"), "records": len(rows), "queries": len(query_rows),
            "build_seconds": build, "index_bytes": index_bytes,
            "peak_rss_kib": peak,
            "cross_peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "batch_seconds": batch, "batch_cpu_seconds": batch_cpu, "batch_pairs": pairs,
            "cross_seconds": cross_seconds, "cross_cpu_seconds": cross_cpu,
            "single": len(times), "single_median_us": at(0.5), "single_p99_us": at(0.99),
            "single_mean_us": statistics.fmean(times) / 1000 if times else 0, "sample": sample}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    run = {"find_all": find_all, "pybind-recipe": pybind_recipe, "simhash-2.1.2": simhash_212,
           "rensa-lsh": rensa_lsh, "hammingbird-index": hammingbird_index}
    print(json.dumps(run[command](*args)))
