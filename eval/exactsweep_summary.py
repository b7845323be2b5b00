"""A compact summary of eval/exactsweep.py's results (its .tsv and the bars it reads): per
(w, weights), the K meeting every column but the licenses, the K meeting the licenses, the K
meeting all, the largest number of columns met at one K, and the best worst-margin K with its
figures. Bars: 'set best' (as docs/QUALITY.md's exact-setting table).

    python eval/exactsweep_summary.py eval/work/exact-sweep.tsv CORPUS_RESULTS WIDE_RESULTS
"""
import csv
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exactsweep as e  # noqa: E402

tsv, corpus, widef = sys.argv[1:4]
mh = e.minhash_rows(types.SimpleNamespace(corpus_results=corpus, wide_results=widef))
bar = {c: b[0][0] for c, b in e.bars(mh).items()}
f1 = {}  # from the counts, not the rounded column
for r in csv.DictReader(open(tsv), delimiter="\t"):
    f1[(r["set"], int(r["window"]), r["variant"], r["category"], int(r["K"]))] = \
        e.wide.prf(int(r["tp"]), int(r["fp"]), int(r["fn"]))[2]
combos = sorted({(w, v) for (_, w, v, _, _) in f1}, key=lambda x: (x[0], list(e.VARIANTS).index(x[1])))
cols = e.COLUMNS
lic = ("licenses", "all")
print("| w | weights | K: all but licenses | K: licenses | K: all 10 | most met at one K | best worst-margin K: margin (column); figures " + " / ".join(e.SHORT[c] for c in cols) + " |")
print("|---|---|---|---|---|---|---|")
for w, v in combos:
    ks = range(e.MAX_K + 1)
    ok = {c: [k for k in ks if f1[(c[0], w, v, c[1], k)] >= bar[c] - 1e-9] for c in cols}
    rest = set(ks)
    for c in cols:
        if c != lic:
            rest &= set(ok[c])
    every = rest & set(ok[lic])
    met = max(((sum(k in ok[c] for c in cols), -k) for k in ks))
    best = max(ks, key=lambda k: min(f1[(c[0], w, v, c[1], k)] - bar[c] for c in cols))
    m, wc = min((f1[(c[0], w, v, c[1], best)] - bar[c], e.SHORT[c]) for c in cols)
    figs = " / ".join(f"{f1[(c[0], w, v, c[1], best)]:.3f}" for c in cols)
    print(f"| {w} | {v} | {e.ranges(rest) or 'none'} | {e.ranges(ok[lic]) or 'none'} | {e.ranges(every) or 'none'} | "
          f"{met[0]}/10 (K {-met[1]}) | K {best}: {m:+.3f} ({wc}); {figs} |")
