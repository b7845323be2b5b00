#!/usr/bin/env python3
"""What the peers do, timed from inside Python; prints {"seconds": …} as JSON.

  peers.py find_all FILE B K     simhash-pybind: find_all(hashes, B, K), the call alone
  peers.py pybind-recipe FILE    simhash-pybind's documented recipe on ID<TAB>TEXT lines
  peers.py simhash-2.1.2 FILE    simhash 2.1.2: Simhash(text).value on ID<TAB>TEXT lines

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


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    run = {"find_all": find_all, "pybind-recipe": pybind_recipe, "simhash-2.1.2": simhash_212}
    print(json.dumps(run[command](*args)))
