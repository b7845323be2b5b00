"""Issue #12's exact-setting question, swept over pipelines: is there one (shingle w, weights, K)
for which the 256-bit EXACT rule (every pair with total Hamming distance <= K) reaches MinHash
LSH's best F1 on every near-duplicate column of docs/QUALITY.md's table "The exact setting against
MinHash" (English 1% / 5%, Chinese 1% / 5%, zipf 1% / 2% / 5%, real pages 2% / 5%, licenses)?

    eval/work/venv/bin/python eval/exactsweep.py --sets eval/work/sets --bin target/release \
        --work eval/work/exact --corpus-results eval/work/corpus-results.tsv \
        --wide-results eval/work/wide-results.tsv --out eval/work/exact-sweep.md

Per set and window W (2-5): `sh-tokenize --with-id | sh-shingle -w W | sh-hash > hashes`,
`sh-df < hashes > df`, then per variant of VARIANTS `[sh-weight --df df FLAGS <] hashes |
sh-compute --bits 256`, every pair within total distance MAX_K by eval/wide.py's brute force, scored
per K 0..MAX_K by eval/wide.py's Gold (the same columns as eval/widereport.py's NEAR: on the
synthetic sets the bases, negatives and that rate's copies; real pages and licenses all pairs).

The bar of each column is the one QUALITY.md's table uses (widereport.Tables.minhash_columns,
"set best"): for each library (datasketch, rensa) the (w, t) with the best F1 on the set's all
pairs, measured on the column; the better of the two libraries. MinHash rows are read from
corpusstats.py's results (the five sets) and wide.py's results (the zipf corpus). The stricter
"column best" bar (library, w and t chosen per column) is reported beside.

Scores are cached per (set, window, variant) in WORK/scores/, so a rerun only computes what is
missing. Standard library and numpy (eval/wide.py's code).
"""

import argparse
import csv
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wide  # noqa: E402

SETS = ["synthetic", "cjk", "zipf", "realpages-2", "realpages-5", "licenses"]
COLUMNS = [("synthetic", "edit-1"), ("synthetic", "edit-5"), ("cjk", "edit-1"), ("cjk", "edit-5"),
           ("zipf", "edit-1"), ("zipf", "edit-2"), ("zipf", "edit-5"), ("realpages-2", "all"),
           ("realpages-5", "all"), ("licenses", "all")]
SHORT = {("synthetic", "edit-1"): "Eng 1%", ("synthetic", "edit-5"): "Eng 5%", ("cjk", "edit-1"): "Zh 1%",
         ("cjk", "edit-5"): "Zh 5%", ("zipf", "edit-1"): "zipf 1%", ("zipf", "edit-2"): "zipf 2%",
         ("zipf", "edit-5"): "zipf 5%", ("realpages-2", "all"): "real 2%", ("realpages-5", "all"): "real 5%",
         ("licenses", "all"): "licenses"}
WINDOWS = [2, 3, 4, 5]
DF = ["--max-df", "0.02", "--df-floor", "50"]
# name: sh-weight flags (None: no sh-weight, sh-compute reads the hashes)
VARIANTS = {
    "plain": None,
    "tf1": ["--max-df", "1", "--df-floor", "0", "--max-tf", "1"],  # each shingle once per document, no df
    "tf8": ["--max-df", "1", "--df-floor", "0", "--max-tf", "8"],
    "df-tf0": DF + ["--max-tf", "0"],
    "df-tf1": DF + ["--max-tf", "1"],
    "df-tf2": DF + ["--max-tf", "2"],
    "df-tf4": DF + ["--max-tf", "4"],
    "df-tf8": DF + ["--max-tf", "8"],  # = sh-weight --df (the README pipeline)
    "idf-tf8": ["--idf", "--max-tf", "8"],
    "idf-df-tf8": ["--idf"] + DF + ["--max-tf", "8"],
    # added after the first sweep, around its closest variant (df-tf1): the same with idf, and
    # with max-df 0.01 / 0.05 (floor 50)
    "idf-tf1": ["--idf", "--max-tf", "1"],
    "idf-df-tf1": ["--idf"] + DF + ["--max-tf", "1"],
    "df01-tf1": ["--max-df", "0.01", "--df-floor", "50", "--max-tf", "1"],
    "df05-tf1": ["--max-df", "0.05", "--df-floor", "50", "--max-tf", "1"],
}
BITS = 256
MAX_K = 100
LIBS = ("datasketch", "rensa")


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def tool(args, name):
    return os.path.join(args.bin, name)


def scores_for(args, name, window, gold):
    """{variant: {category: [(tp, fp, fn) per K]}} for one set and window, cached."""
    out, todo = {}, []
    cache_dir = os.path.join(args.work, "scores")
    os.makedirs(cache_dir, exist_ok=True)
    for variant in VARIANTS:
        path = os.path.join(cache_dir, f"{name}-w{window}-{variant}.json")
        if os.path.exists(path):
            with open(path) as f:
                out[variant] = json.load(f)
        else:
            todo.append(variant)
    if not todo:
        return out
    work = os.path.join(args.work, name, f"w{window}")
    os.makedirs(work, exist_ok=True)
    docs = os.path.join(args.sets, name, "docs.tsv")
    hashes, table = os.path.join(work, "hashes.tsv"), os.path.join(work, "df.tsv")
    t0 = time.perf_counter()
    wide.sh(f"{tool(args, 'sh-tokenize')} --with-id < {docs} | {tool(args, 'sh-shingle')} -w {window}"
            f" | {tool(args, 'sh-hash')} > {hashes}")
    wide.sh(f"{tool(args, 'sh-df')} --quiet < {hashes} > {table}")
    log(f"{name} w={window}: hashes and df in {time.perf_counter() - t0:.1f}s")
    for variant in todo:
        t0 = time.perf_counter()
        flags = VARIANTS[variant]
        fp_path = os.path.join(work, f"fp-{variant}-{BITS}.tsv")
        if flags is None:
            wide.sh(f"{tool(args, 'sh-compute')} --bits {BITS} < {hashes} > {fp_path}")
        else:
            wide.sh(f"{tool(args, 'sh-weight')} --quiet --df {table} {' '.join(flags)} < {hashes}"
                    f" | {tool(args, 'sh-compute')} --bits {BITS} > {fp_path}")
        ids, fp = wide.read_fingerprints(fp_path, BITS)
        i, j, total, _ = wide.brute_force(fp, MAX_K)
        to_doc = np.array([gold.index[d] for d in ids], dtype=np.int64)
        scores = gold.score(to_doc[i], to_doc[j], total, MAX_K)
        with open(os.path.join(cache_dir, f"{name}-w{window}-{variant}.json"), "w") as f:
            json.dump(scores, f)
        out[variant] = scores
        log(f"{name} w={window} {variant}: {len(i)} pairs within {MAX_K}, {time.perf_counter() - t0:.1f}s")
    os.remove(hashes)
    return out


def minhash_rows(args):
    """{(set, library, window, threshold, category): (tp, fp, fn)} from the two results files."""
    rows = {}
    for path, kind in ((args.corpus_results, "corpus"), (args.wide_results, "wide")):
        with open(path, encoding="utf-8") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                if r["method"] not in LIBS:
                    continue
                if kind == "corpus":
                    key = (r["set"], r["method"], int(r["window"]), float(r["variant"]), r["category"])
                else:
                    if r["set"] != "zipf":
                        continue
                    key = (r["set"], r["method"], int(r["window"]), float(r["k_or_threshold"]), r["category"])
                rows.setdefault(key, (int(r["tp"]), int(r["fp"]), int(r["fn"])))
    return rows


def bars(mh):
    """{column: (set-best bar, its library w t), (column-best bar, its library w t)}."""
    out = {}
    for name, cat in COLUMNS:
        set_best = None
        for lib in LIBS:
            cands = [(wide.prf(*v)[2], w, t) for (s, l, w, t, c), v in mh.items() if s == name and l == lib and c == "all"]
            if not cands:
                continue
            _, w, t = max(cands)
            f1 = wide.prf(*mh[(name, lib, w, t, cat)])[2]
            if set_best is None or f1 > set_best[0]:
                set_best = (f1, f"{lib} w {w} t {t}")
        col = max((wide.prf(*v)[2], f"{l} w {w} t {t}") for (s, l, w, t, c), v in mh.items() if s == name and c == cat)
        out[(name, cat)] = (set_best, col)
    return out


def ranges(values):
    values = sorted(values)
    parts, start = [], None
    for n, v in enumerate(values):
        if start is None:
            start = v
        if n + 1 == len(values) or values[n + 1] != v + 1:
            parts.append(f"{start}" if start == v else f"{start}-{v}")
            start = None
    return ", ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--corpus-results", required=True)
    parser.add_argument("--wide-results", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--windows", type=int, nargs="*", default=WINDOWS)
    parser.add_argument("--variants", nargs="*", default=None)
    parser.add_argument("--sets-only", nargs="*", default=SETS)
    args = parser.parse_args()
    if args.variants:
        for v in list(VARIANTS):
            if v not in args.variants:
                del VARIANTS[v]
    mh = minhash_rows(args)
    bar = bars(mh)
    results = {}  # (set, window, variant) -> {category: rows}
    for name in args.sets_only:
        gold = wide.Gold(os.path.join(args.sets, name))
        for window in args.windows:
            for variant, scores in scores_for(args, name, window, gold).items():
                results[(name, window, variant)] = scores
    write_report(args, results, bar)


def f1_at(results, name, window, variant, cat, k):
    return wide.prf(*results[(name, window, variant)][cat][k])


def write_report(args, results, bar):
    cols = [c for c in COLUMNS if c[0] in args.sets_only]
    lines = ["# 256-bit exact rule against MinHash LSH's best, per column and pipeline", "",
             "Bars ('set best', as docs/QUALITY.md's exact-setting table): " +
             "; ".join(f"{SHORT[c]} {bar[c][0][0]:.3f} ({bar[c][0][1]})" for c in cols), "",
             "Stricter 'column best' bars: " + "; ".join(f"{SHORT[c]} {bar[c][1][0]:.3f} ({bar[c][1][1]})" for c in cols), ""]
    for label, which in (("set best", 0), ("column best", 1)):
        lines += [f"## K ranges meeting each column ({label} bar)", "",
                  "| w | weights | " + " | ".join(SHORT[c] for c in cols) + " | all columns | best K by worst margin | worst margin (column) | columns met there |",
                  "|---|---|" + "---|" * (len(cols) + 4)]
        for window in args.windows:
            for variant in VARIANTS:
                if any((c[0], window, variant) not in results for c in cols):
                    continue
                cells, common, best = [], set(range(MAX_K + 1)), None
                for c in cols:
                    target = bar[c][which][0]
                    ok = [k for k in range(MAX_K + 1) if f1_at(results, c[0], window, variant, c[1], k)[2] >= target - 1e-9]
                    common &= set(ok)
                    cells.append(ranges(ok) or "none")
                for k in range(MAX_K + 1):
                    margins = [(f1_at(results, c[0], window, variant, c[1], k)[2] - bar[c][which][0], c) for c in cols]
                    worst = min(margins)
                    met = sum(m >= -1e-9 for m, _ in margins)
                    if best is None or worst[0] > best[1][0]:
                        best = (k, worst, met)
                k, (m, c), met = best
                lines.append(f"| {window} | {variant} | " + " | ".join(cells) +
                             f" | {ranges(common) or 'none'} | {k} | {m:+.3f} ({SHORT[c]}) | {met}/{len(cols)} |")
        lines.append("")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.splitext(args.out)[0] + ".tsv", "w", encoding="utf-8") as f:
        f.write("set\twindow\tvariant\tcategory\tK\ttp\tfp\tfn\tprecision\trecall\tf1\n")
        for (name, window, variant), scores in sorted(results.items()):
            for cat, rows in scores.items():
                for k, (tp, fp, fn) in enumerate(rows):
                    p, r, f1 = wide.prf(tp, fp, fn)
                    f.write(f"{name}\t{window}\t{variant}\t{cat}\t{k}\t{tp}\t{fp}\t{fn}\t{p:.4f}\t{r:.4f}\t{f1:.4f}\n")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
