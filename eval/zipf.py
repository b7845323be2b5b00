"""Generated near duplicates in running text without a template: documents of words drawn from
a Zipf distribution (word r of the vocabulary with weight 1 / r^s, random made-up words), some
of them copied with word edits (each a substitution, insertion or deletion at a random place).
Ordinary text's commonest word pairs are in most documents, as in any language, while no
document shares a block of text with another but its copy: the sets show what leaving out
common items costs where there is no boilerplate to leave out.

    eval/zipf.py --out DIR [--seed N]

writes DIR/zipf-5a and DIR/zipf-5b (5,000 documents of 100-1,000 words, 500 of them copied
with 5% of the words edited; vocabulary 20,000 at s = 1.0 and 5,000 at s = 0.9), each with
docs.tsv (ID<TAB>TEXT), gold.tsv (the pairs of a document and its copy) and meta.json.
"""

import argparse
import json
import os
import random

SETS = {"zipf-5a": (20_000, 1.0), "zipf-5b": (5_000, 0.9)}
DOCUMENTS, COPIED, EDITS, SHORTEST, LONGEST = 5_000, 500, 0.05, 100, 1_000


def vocabulary(rng, size):
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10))))
    words = sorted(words)
    rng.shuffle(words)
    return words


def make(out, size, s, seed):
    rng = random.Random(seed)
    words = vocabulary(rng, size)
    weights, total = [], 0.0
    for rank in range(1, size + 1):
        total += 1 / rank ** s
        weights.append(total)

    def draw(k):
        return rng.choices(words, cum_weights=weights, k=k)
    docs = [draw(rng.randint(SHORTEST, LONGEST)) for _ in range(DOCUMENTS)]
    gold = []
    for original in rng.sample(range(DOCUMENTS), COPIED):
        copy = list(docs[original])
        for _ in range(max(1, round(len(copy) * EDITS))):
            op, at = rng.random(), rng.randrange(len(copy))
            if op < 0.6:
                copy[at] = draw(1)[0]
            elif op < 0.8:
                copy.insert(at, draw(1)[0])
            elif len(copy) > 2:
                del copy[at]
        gold.append((len(docs), original))
        docs.append(copy)
    order = list(range(len(docs)))
    rng.shuffle(order)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "docs.tsv"), "w") as f:
        for i in order:
            f.write(f"d{i}\t{' '.join(docs[i])}\n")
    with open(os.path.join(out, "gold.tsv"), "w") as f:
        for a, b in gold:
            f.write(f"d{a}\td{b}\n")
    meta = {"kind": "generated", "gold_format": "pairs", "documents": len(docs), "copies": COPIED,
            "edit_rate": EDITS, "vocabulary": size, "zipf_s": s, "seed": seed}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for i, (name, (size, s)) in enumerate(SETS.items()):
        make(os.path.join(args.out, name), size, s, args.seed + i)


if __name__ == "__main__":
    main()
