#!/usr/bin/env python3
"""Hamming distances of near-duplicate and unrelated documents at 64, 128 and 256 bits
(docs/WIDE.md). Standard library only.

    python3 eval/wide_distances.py [--bin target/release] [--work DIR] [--docs 2000]

Makes a seeded corpus of zipf-distributed words (a vocabulary of 50,000 made-up words, word r
drawn with probability proportional to 1/r): DOCS base documents of 400 to 600 words, and of
each a copy with 2% and a copy with 5% of its words replaced (max(1, round(rate x words))
distinct positions, each given a word drawn from the same distribution). Runs the default
pipeline `sh-tokenize --with-id | sh-shingle | sh-hash | sh-compute --bits N` for every N and
prints, per width, the distance of each base to its copies and of unrelated bases (random
pairs of distinct bases): mean, 95th and 99th percentile, maximum or minimum, the share within
a few K, and for 256 bits the smallest of the four per-word distances. Writes DIR/docs.tsv,
DIR/hashes.txt (for timing sh-compute) and DIR/fingerprints-N.tsv.
"""

import argparse
import os
import random
import statistics
import subprocess

WIDTHS = (64, 128, 256)
RATES = (0.02, 0.05)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default="target/release", help="directory of the binaries")
    parser.add_argument("--work", default="target/wide-distances", help="output directory")
    parser.add_argument("--docs", type=int, default=2000, help="base documents")
    parser.add_argument("--unrelated", type=int, default=20000, help="unrelated pairs")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = random.Random(args.seed)

    docs = corpus(rng, args.docs)
    docs_path = os.path.join(args.work, "docs.tsv")
    with open(docs_path, "w") as out:
        for name, words in docs:
            out.write(f"{name}\t{' '.join(words)}\n")
    hashes_path = os.path.join(args.work, "hashes.txt")
    with open(docs_path, "rb") as docs_in, open(hashes_path, "wb") as hashes_out:
        tokens = stage(args.bin, ["sh-tokenize", "--with-id"], docs_in.read())
        hashes_out.write(stage(args.bin, ["sh-hash"], stage(args.bin, ["sh-shingle"], tokens)))

    fingerprints = {}
    for bits in WIDTHS:
        with open(hashes_path, "rb") as hashes_in:
            text = stage(args.bin, ["sh-compute", "--bits", str(bits)], hashes_in.read())
        with open(os.path.join(args.work, f"fingerprints-{bits}.tsv"), "wb") as out:
            out.write(text)
        fingerprints[bits] = read_fingerprints(text.decode())

    bases = [name for name, _ in docs if name.startswith("b")]
    unrelated = set()
    while len(unrelated) < args.unrelated:
        a, b = rng.sample(bases, 2)
        unrelated.add((min(a, b), max(a, b)))
    unrelated = sorted(unrelated)

    words = [len(w) for name, w in docs if name.startswith("b")]
    print(f"{len(bases)} base documents of {min(words)}-{max(words)} words "
          f"(mean {statistics.mean(words):.0f}), a copy of each per rate, "
          f"{len(unrelated)} unrelated pairs\n")
    print("| bits | pairs | mean | p95 | p99 | max (copies) / min (unrelated) | within K |")
    print("|---|---|---|---|---|---|---|")
    for bits in WIDTHS:
        fp = fingerprints[bits]
        for rate in RATES:
            tag = copy_tag(rate)
            d = [distance(fp[b], fp[f"{tag}{b[1:]}"]) for b in bases]
            print(row(bits, f"copies {rate:.0%}", d, max(d), within(d, bits)))
        d = [distance(fp[a], fp[b]) for a, b in unrelated]
        print(row(bits, "unrelated", d, min(d), within(d, bits)))

    fp = fingerprints[256]
    print("\n256 bits, the smallest of the four 64-bit word distances:\n")
    print("| pairs | mean | p95 | p99 | max / min |")
    print("|---|---|---|---|---|")
    for rate in RATES:
        tag = copy_tag(rate)
        d = [min(word_distances(fp[b], fp[f"{tag}{b[1:]}"])) for b in bases]
        print(f"| copies {rate:.0%} | {statistics.mean(d):.1f} | {pct(d, 95)} | {pct(d, 99)} "
              f"| {max(d)} |")
    d = [min(word_distances(fp[a], fp[b])) for a, b in unrelated]
    print(f"| unrelated | {statistics.mean(d):.1f} | {pct(d, 95)} | {pct(d, 99)} | {min(d)} |")

    print("\n256 bits, the mean distance of each word (word 0 is the 64-bit fingerprint):\n")
    print("| pairs | word 0 | word 1 | word 2 | word 3 |")
    print("|---|---|---|---|---|")
    groups = [(f"copies {rate:.0%}", [(b, f"{copy_tag(rate)}{b[1:]}") for b in bases])
              for rate in RATES]
    for label, pairs in groups + [("unrelated", unrelated)]:
        per_word = [word_distances(fp[a], fp[b]) for a, b in pairs]
        means = [statistics.mean(d[w] for d in per_word) for w in range(4)]
        print(f"| {label} | " + " | ".join(f"{m:.2f}" for m in means) + " |")


def corpus(rng, count):
    """Base documents b0..bN and their copies c2_0.., c5_0.. as (name, words)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = set()
    while len(vocabulary) < 50000:
        vocabulary.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))))
    vocabulary = sorted(vocabulary)
    rng.shuffle(vocabulary)
    weights = [1 / rank for rank in range(1, len(vocabulary) + 1)]

    def draw(n):
        return rng.choices(vocabulary, weights=weights, k=n)

    docs = []
    for i in range(count):
        base = draw(rng.randint(400, 600))
        docs.append((f"b{i}", base))
        for rate in RATES:
            copy = list(base)
            edits = max(1, round(rate * len(base)))
            for position, word in zip(rng.sample(range(len(base)), edits), draw(edits)):
                copy[position] = word
            docs.append((f"{copy_tag(rate)}{i}", copy))
    return docs


def copy_tag(rate):
    return f"c{round(rate * 100)}_"


def stage(bin_dir, command, data):
    path = os.path.join(bin_dir, command[0])
    return subprocess.run([path] + command[1:], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def read_fingerprints(text):
    fingerprints = {}
    for line in text.splitlines():
        name, value = line.split("\t")
        fingerprints[name] = int(value, 0)
    return fingerprints


def distance(a, b):
    return bin(a ^ b).count("1")


def word_distances(a, b):
    mask = (1 << 64) - 1
    return [distance(a >> (64 * w) & mask, b >> (64 * w) & mask) for w in range(4)]


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def within(values, bits):
    ks = {64: (3, 6, 10), 128: (10, 16, 24), 256: (24, 32, 44)}[bits]
    return ", ".join(f"≤{k}: {sum(v <= k for v in values) / len(values):.3f}" for k in ks)


def row(bits, label, d, extreme, share):
    return (f"| {bits} | {label} | {statistics.mean(d):.1f} | {pct(d, 95)} | {pct(d, 99)} "
            f"| {extreme} | {share} |")


if __name__ == "__main__":
    main()
