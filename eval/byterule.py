#!/usr/bin/env python3
"""The byte rule of sh-pairs (--word-bytes) against the plain word-k rule, scored on the 256-bit
fingerprints that eval/wide.py made (its "df" pipeline, w = 2): pairs by sh-pairs itself, scored
with eval/wide.py's Gold. Run after `eval/run.sh --wide`:

    eval/work/venv/bin/python eval/byterule.py [--bin target/release] [--work eval/work]

Prints P / R / F1 per set and category for each rule of RULES (docs/QUALITY.md, sections
"Repeated items" and "A word within 8 bits", has the tables)."""

import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wide as W  # noqa: E402

RULES = [
    ("default (K 44, word-k 8, word-bytes 6)", []),
    ("K 44, word-k 7, word-bytes 6 (the default before 2026-12-02)", ["-k", "44", "--word-k", "7", "--word-bytes", "6"]),
    ("K 44, word-k 7", ["-k", "44", "--word-k", "7"]),
    ("K 44, word-k 6", ["-k", "44", "--word-k", "6"]),
    ("K 40, word-k 7, word-bytes 6", ["-k", "40", "--word-k", "7", "--word-bytes", "6"]),
    ("K 48, word-k 7, word-bytes 6", ["-k", "48", "--word-k", "7", "--word-bytes", "6"]),
    ("K 42, word-k 8, word-bytes 6", ["-k", "42", "--word-k", "8", "--word-bytes", "6"]),
    ("K 46, word-k 8, word-bytes 6", ["-k", "46", "--word-k", "8", "--word-bytes", "6"]),
]
SETS = ["synthetic", "licenses", "cjk", "realpages-2", "realpages-5", "zipf"]
COLUMNS = {"synthetic": ["edit-1", "edit-5", "all", "boiler-start", "boiler-end"], "licenses": ["all"],
           "cjk": ["edit-1", "edit-5", "all"], "realpages-2": ["all"], "realpages-5": ["all"],
           "zipf": ["edit-1", "edit-2", "edit-5"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release")
    parser.add_argument("--work", default="eval/work")
    args = parser.parse_args()
    for label, flags in RULES:
        print(label)
        for name in SETS:
            gold = W.Gold(os.path.join(args.work, "sets", name))
            path = os.path.join(args.work, "wide", name, "w2", "fp-df-256.tsv")
            with open(path) as fingerprints:
                done = subprocess.run([os.path.join(args.bin, "sh-pairs"), "--quiet", *flags],
                                      stdin=fingerprints, capture_output=True, text=True, check=True)
            i, j, total = [], [], []
            for line in done.stdout.splitlines():
                a, b, d = line.split("\t")[:3]
                i.append(gold.index[a])
                j.append(gold.index[b])
                total.append(int(d))
            scores = gold.score(np.array(i, np.int64), np.array(j, np.int64), np.array(total, np.int64), 72)
            for category in COLUMNS[name]:
                p, r, f1 = W.prf(*scores[category][72])
                print(f"    {name} {category}: P {p:.3f} R {r:.3f} F1 {f1:.3f}")


if __name__ == "__main__":
    main()
