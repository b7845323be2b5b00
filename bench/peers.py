#!/usr/bin/env python3
"""What the peers do, timed from inside Python; prints {"seconds": …} as JSON.

  peers.py find_all FILE B K     simhash-pybind: find_all(hashes, B, K), the call alone
  peers.py pybind-recipe FILE    simhash-pybind's documented recipe on ID<TAB>TEXT lines
  peers.py simhash-2.1.2 FILE    simhash 2.1.2: Simhash(text).value on ID<TAB>TEXT lines
  peers.py rensa-lsh FILE        rensa: MinHash LSH on ID<TAB>TEXT lines, text to pairs

simhash-pybind and simhash 2.1.2 both install a module named `simhash`: run each in its own
venv.
"""

import json
import re
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


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    run = {"find_all": find_all, "pybind-recipe": pybind_recipe, "simhash-2.1.2": simhash_212,
           "rensa-lsh": rensa_lsh}
    print(json.dumps(run[command](*args)))
