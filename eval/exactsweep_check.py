"""Checks eval/exactsweep.py's cached scores against eval/wide.py's saved ones (wide-scores.pickle):
256 bits, exact rule, windows 2-4, pipelines plain / df / dfall (= plain / df-tf8 / df-tf0 here),
every category and K 0..72: the TP/FP/FN counts must be identical.

    python eval/exactsweep_check.py WIDE_SCORES_PICKLE EXACT_WORK_DIR
"""
import json
import os
import pickle
import sys

saved, work = sys.argv[1], sys.argv[2]
with open(saved, "rb") as f:
    results = pickle.load(f)[0]
same = diff = missing = 0
names = {"plain": "plain", "df": "df-tf8", "dfall": "df-tf0"}
for (name, bits, window, pipeline, rule, cat), rows in sorted(results.items(), key=str):
    if bits != 256 or rule != "exact":
        continue
    path = os.path.join(work, "scores", f"{name}-w{window}-{names[pipeline]}.json")
    if not os.path.exists(path):
        missing += 1
        continue
    with open(path) as f:
        mine = json.load(f)[cat][:len(rows)]
    if [tuple(r) for r in mine] == [tuple(r) for r in rows]:
        same += 1
    else:
        diff += 1
        first = next(k for k, (a, b) in enumerate(zip(mine, rows)) if tuple(a) != tuple(b))
        print(f"DIFFERENT: {name} w={window} {pipeline} {cat}: first at K {first}: {mine[first]} vs {rows[first]}")
print(f"identical {same}, different {diff}, not computed here {missing}")
