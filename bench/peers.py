#!/usr/bin/env python3
"""What the peers do, timed from inside Python; prints {"seconds": …} as JSON.

  peers.py find_all FILE B K     simhash-pybind: find_all(hashes, B, K), the call alone
  peers.py pybind-recipe FILE    simhash-pybind's documented recipe on ID<TAB>TEXT lines
  peers.py simhash-2.1.2 FILE    simhash 2.1.2: Simhash(text).value on ID<TAB>TEXT lines
  peers.py rensa-lsh FILE        rensa: MinHash LSH on ID<TAB>TEXT lines, text to pairs
  peers.py hammingbird-index CORPUS QUERIES K SINGLE
                                 hammingbird's streaming Index on [ID<TAB>]FINGERPRINT lines:
                                 build, batch queries, SINGLE single queries (see the function)
  peers.py hammingbird-pairs FILE K FUNCTION
                                 hammingbird: all pairs within K bits of the fingerprints of
                                 FILE, by FUNCTION (find_pairs_self, its _bit or _adaptive
                                 variant, or index: its streaming Index queried with every row)

Text to pairs (the peers section of bench.py), each on ID<TAB>TEXT lines, writing every pair
found to OUT as ID_A<TAB>ID_B<TAB>SCORE (a distance or an estimated Jaccard similarity):

  peers.py gaoya-simhash CORPUS OUT N [chunks|list]
                                          gaoya: SimHashStringIndex, 64 bits, word N-grams
  peers.py rensa-pairs CORPUS OUT         rensa: R-MinHash LSH, 128 permutations, batch API
  peers.py datasketch-lsh CORPUS OUT      datasketch: MinHash LSH, 128 permutations

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


# --- text to pairs: the peers section -------------------------------------------------------

# MinHash LSH: 128 permutations, word 3-grams (as rensa-lsh above and eval/), pairs whose
# estimated Jaccard similarity reaches 0.7. A copy with 2% of its words replaced keeps about
# 0.98^3 of its 3-grams: Jaccard about 0.89, well above 0.7; two unrelated documents share
# next to none.
MINHASH_PERMUTATIONS = 128
MINHASH_THRESHOLD = 0.7
MINHASH_WINDOW = 3
# Documents handed to a peer's batch call at once: its sketches of the whole corpus are kept,
# its text is not.
CHUNK = 2000


def documents(path):
    """(ids, texts) of ID<TAB>TEXT lines, CHUNK documents at a time."""
    ids, texts = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            doc_id, _, text = line.rstrip("\n").partition("\t")
            ids.append(doc_id)
            texts.append(text)
            if len(ids) == CHUNK:
                yield ids, texts
                ids, texts = [], []
    if ids:
        yield ids, texts


def word_shingles(text, n=MINHASH_WINDOW):
    """Lowercase, split on \\W+, every run of n words joined by a space (the whole text when
    shorter)."""
    tokens = [t for t in re.split(r"\W+", text.lower()) if t]
    return [" ".join(tokens[i:i + n]) for i in range(max(1, len(tokens) - n + 1))]


def write_pairs(out, ids, pairs):
    """pairs: {(i, j): score} with i < j, written in order."""
    with open(out, "w") as f:
        for (i, j), score in sorted(pairs.items()):
            f.write(f"{ids[i]}\t{ids[j]}\t{score}\n")


def gaoya_simhash(corpus, out, ngrams, whole="chunks"):
    """gaoya's SimHashStringIndex at its defaults (64 bits, 6 blocks, Hamming distance 5, the
    'word' analyzer: whitespace-split words; ngram_range None: single words), lowercase on (as
    sh-tokenize), and with N > 1 word N-grams (ngram_range (N, N)). Its bulk calls on all
    cores (rayon): every document inserted, then every document queried, CHUNK documents a
    call, or with "list" the whole corpus read into one list and handed to one call of each; a
    pair is each document's hits other than itself, once."""
    from importlib.metadata import version

    from gaoya.simhash import SimHashStringIndex

    n = int(ngrams)
    start = time.perf_counter()
    index = SimHashStringIndex(hash_size=64, num_blocks=6, hamming_distance=5, analyzer="word",
                               lowercase=True, ngram_range=None if n == 1 else (n, n))
    if whole == "list":
        ids, texts = [], []
        for chunk_ids, chunk_texts in documents(corpus):
            ids.extend(chunk_ids)
            texts.extend(chunk_texts)
        chunks = lambda: [(ids, texts)]  # noqa: E731
    else:
        chunks = lambda: documents(corpus)  # noqa: E731
        ids = []
    inserted = 0
    for chunk_ids, texts in chunks():
        index.index.par_bulk_insert_docs(list(range(inserted, inserted + len(texts))), texts)
        inserted += len(texts)
        if whole != "list":
            ids.extend(chunk_ids)
    pairs, first = {}, 0
    for _, texts in chunks():
        for i, hits in enumerate(index.index.par_bulk_query_return_distance(texts), first):
            for j, distance in hits:
                if j != i:
                    pairs[(min(i, j), max(i, j))] = distance
        first += len(texts)
    write_pairs(out, ids, pairs)
    return {"seconds": time.perf_counter() - start, "documents": len(ids), "pairs": len(pairs),
            "version": version("gaoya")}


def rensa_pairs(corpus, out, threshold=MINHASH_THRESHOLD, bands=16):
    """rensa's R-MinHash through its batch calls: RMinHash.from_token_sets on each chunk's
    word 3-grams, RMinHashLSH (16 bands of 8 rows: what datasketch picks for t=0.7, rounded to
    a divisor of 128) filled by insert_many and asked by query_all, each candidate kept when
    its estimated Jaccard similarity reaches the threshold."""
    from importlib.metadata import version

    from rensa import RMinHash, RMinHashLSH

    start = time.perf_counter()
    ids, sketches = [], []
    for chunk_ids, texts in documents(corpus):
        sketches.extend(RMinHash.from_token_sets([word_shingles(t) for t in texts],
                                                 num_perm=MINHASH_PERMUTATIONS, seed=42))
        ids.extend(chunk_ids)
    lsh = RMinHashLSH(threshold=threshold, num_perm=MINHASH_PERMUTATIONS, num_bands=bands)
    lsh.insert_many(sketches)
    pairs = {}
    for i, candidates in enumerate(lsh.query_all(sketches)):
        for j in candidates:
            if j != i and (min(i, j), max(i, j)) not in pairs:
                similarity = sketches[i].jaccard(sketches[j])
                if similarity >= threshold:
                    pairs[(min(i, j), max(i, j))] = round(similarity, 4)
    write_pairs(out, ids, pairs)
    return {"seconds": time.perf_counter() - start, "documents": len(ids), "pairs": len(pairs),
            "threshold": threshold, "bands": bands, "version": version("rensa")}


def datasketch_lsh(corpus, out, threshold=MINHASH_THRESHOLD):
    """datasketch's MinHash (MinHash.generator over each document's word 3-grams as UTF-8,
    its default SHA-1 hashing) and MinHashLSH at the threshold (datasketch picks its bands and
    rows: 14 of 9 for 0.7 and 128 permutations), each candidate kept when its estimated Jaccard
    similarity reaches the threshold."""
    from importlib.metadata import version

    from datasketch import MinHash, MinHashLSH

    start = time.perf_counter()
    lsh = MinHashLSH(threshold=threshold, num_perm=MINHASH_PERMUTATIONS)
    ids, sketches = [], []
    for chunk_ids, texts in documents(corpus):
        shingled = ([s.encode("utf-8") for s in word_shingles(t)] for t in texts)
        for m in MinHash.generator(shingled, num_perm=MINHASH_PERMUTATIONS):
            lsh.insert(len(sketches), m)
            sketches.append(m)
        ids.extend(chunk_ids)
    pairs = {}
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if j != i and (min(i, j), max(i, j)) not in pairs:
                similarity = m.jaccard(sketches[j])
                if similarity >= threshold:
                    pairs[(min(i, j), max(i, j))] = round(similarity, 4)
    write_pairs(out, ids, pairs)
    return {"seconds": time.perf_counter() - start, "documents": len(ids), "pairs": len(pairs),
            "threshold": threshold, "bands": lsh.b, "rows": lsh.r,
            "version": version("datasketch")}


def hammingbird_pairs(path, k, function):
    """All pairs within K bits of FILE's fingerprints: hammingbird's FUNCTION(rows, K) on the
    fingerprints as rows of 8 bytes (little-endian), timed around the call alone; `index` adds
    every row to its streaming Index(8, K) and queries every row (query_batch), each pair then
    found twice and each row finding itself, counted once. The reading of the decimal text is
    timed apart."""
    from importlib.metadata import version

    import numpy as np
    import hammingbird

    k = int(k)
    start = time.perf_counter()
    numbers = read_fingerprints(path)
    rows = np.frombuffer(numbers, dtype="<u8").view(np.uint8).reshape(-1, 8)
    read = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    if function == "index":
        index = hammingbird.Index(8, k)
        index.add_batch(rows)
        found = sum(1 for i, hits in enumerate(index.query_batch(rows)) for j, _ in hits if j > i)
    else:
        found = len(getattr(hammingbird, function)(rows, k))
    return {"seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu,
            "read_seconds": read, "records": len(rows), "pairs": found,
            "version": version("hammingbird")}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    run = {"find_all": find_all, "pybind-recipe": pybind_recipe, "simhash-2.1.2": simhash_212,
           "rensa-lsh": rensa_lsh, "hammingbird-index": hammingbird_index,
           "hammingbird-pairs": hammingbird_pairs, "gaoya-simhash": gaoya_simhash,
           "rensa-pairs": rensa_pairs, "datasketch-lsh": datasketch_lsh}
    print(json.dumps(run[command](*args)))
