#!/usr/bin/env python3
"""Writes deterministic 64-bit fingerprints whose near-duplicate pairs (within K = 3 bits) form
graphs that are hard for a distributed connected-components algorithm, to hold the Spark
driver's clusters to sh-cluster's:

    python3 make_graphs.py DIR [SCALE]

DIR/graphs.fp: `ID<TAB>FINGERPRINT` lines, as sh-compute writes them, ids naming the structure:

- chain-in-order: a chain of 3000 x SCALE fingerprints, each 2 bits from the next and more
  than 3 bits from every other (the flipped bits of any 16 consecutive steps are distinct), in
  chain order at the start of the file: a component of diameter 3000 x SCALE - 1.
- chain-shuffled: another chain of 2000 x SCALE, its links scattered through the file, so
  that neighbours in the chain are far apart in input order.
- star: 4 stars of up to 150 leaves, each leaf 3 bits from its centre and at least 4 from
  every other leaf (the leaves' bit triples share at most one bit).
- giant: one cluster of 4000 x SCALE, a random tree (each fingerprint 2 bits from an earlier
  one), with 50 exact copies of one member (distance 0).
- single: 10000 x SCALE fingerprints with no near-duplicate (random 64-bit values).

Everything after the ordered chain comes in random order. The structure is checked where the
test reads sh-cluster's clusters (the largest cluster, the number of clusters).
"""

import os
import random
import sys

K = 3


def main():
    out = sys.argv[1]
    scale = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(14)

    def chain(length):
        value = rng.getrandbits(64)
        recent = []
        values = [value]
        while len(values) < length:
            bits = rng.sample([b for b in range(64) if b not in recent], 2)
            recent = (recent + bits)[-30:]  # the bits of the last 15 steps
            value ^= (1 << bits[0]) | (1 << bits[1])
            values.append(value)
        return values

    def star(leaves):
        centre = rng.getrandbits(64)
        # Two triples that share at most one bit share no pair of bits.
        triples, used = [], set()
        candidates = [(a, b, c) for a in range(64) for b in range(a + 1, 64) for c in range(b + 1, 64)]
        rng.shuffle(candidates)
        for a, b, c in candidates:
            if len(triples) == leaves:
                break
            if not {(a, b), (a, c), (b, c)} & used:
                triples.append((a, b, c))
                used |= {(a, b), (a, c), (b, c)}
        return [centre] + [centre ^ (1 << a) ^ (1 << b) ^ (1 << c) for a, b, c in triples]

    def giant(size):
        values = [rng.getrandbits(64)]
        while len(values) < size:
            a, b = rng.sample(range(64), 2)
            values.append(rng.choice(values) ^ (1 << a) ^ (1 << b))
        values += [values[len(values) // 2]] * 50
        return values

    ordered = [("chain-in-order-%05d" % i, v) for i, v in enumerate(chain(3000 * scale))]
    rest = [("chain-shuffled-%05d" % i, v) for i, v in enumerate(chain(2000 * scale))]
    for s in range(4):
        rest += [("star%d-%03d" % (s, i), v) for i, v in enumerate(star(150))]
    rest += [("giant-%05d" % i, v) for i, v in enumerate(giant(4000 * scale))]
    rest += [("single-%05d" % i, rng.getrandbits(64)) for i in range(10000 * scale)]
    rng.shuffle(rest)

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "graphs.fp"), "w") as f:
        for ident, value in ordered + rest:
            f.write("%s\t%d\n" % (ident, value))


if __name__ == "__main__":
    main()
