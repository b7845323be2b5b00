"""The sweep of eval/run.sh: every tokenizer mode and shingle window through the sh-tools
pipeline, every K from one sh-pairs run, scored with sh-score; MinHash LSH (datasketch) on the
same shingles; tables (report.md), raw results (results.tsv) and plots (PNG).
"""

import argparse
import json
import os
import pickle
import platform
import subprocess
import sys
import time
from collections import defaultdict

WINDOWS = range(2, 9)
MAX_K = 10
MODES = {"synthetic": ["words", "alpha", "ascii"], "licenses": ["words", "alpha", "ascii"],
         "cjk": ["words", "chars", "alpha", "ascii"]}
THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
NUM_PERM = 128
SETS = ["synthetic", "licenses", "cjk"]
LABELS = {"all": "all pairs", "edit-1": "words 1%", "edit-5": "words 5%", "edit-10": "words 10%",
          "edit-20": "words 20%", "reorder": "sentences reordered",
          "boiler-start": "boilerplate at start", "boiler-end": "boilerplate at end",
          "identical": "identical texts", "band-95": "ratio 0.95-1", "band-90": "ratio 0.90-0.95"}
CURRENT = ("words", 4, 3)
# The largest K a default may have. Above it, sh-pairs costs several times more and unrelated
# documents start to pair by chance alone (the scale table: on a million random fingerprints,
# 0 chance pairs at K 6, 14 at K 7, 141 at K 8, about 5,000 at K 10, and 100 times that for ten
# million documents), which evaluation sets of a few thousand documents cannot show.
MAX_DEFAULT_K = 6  # the defaults of sh-tokenize, sh-shingle and sh-pairs today


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--bin", required=True, help="directory of the release binaries")
    parser.add_argument("--work", required=True)
    parser.add_argument("--plots", required=True, help="directory for the PNG plots")
    parser.add_argument("--report", required=True, help="the Markdown report to write")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the scores and times of the last run (tables and plots only)")
    parser.add_argument("--quick", action="store_true", help="windows 3 and 4 only (a smoke test)")
    args = parser.parse_args()
    if args.quick:
        global WINDOWS, THRESHOLDS
        WINDOWS, THRESHOLDS = range(3, 5), [0.5, 0.7]
    ev = Evaluation(args)
    saved = os.path.join(args.work, "scores.pickle")
    if args.reuse:
        with open(saved, "rb") as f:
            ev.scores, ev.times, ev.scale_rows = pickle.load(f)
        ev.choose()
        ev.minhash_best = {n: None for n in SETS}
        ev.find_minhash_best()
    else:
        ev.sweep()
        ev.choose()
        ev.minhash()
        ev.timing()
        ev.scale()
        with open(saved, "wb") as f:
            pickle.dump((ev.scores, ev.times, ev.scale_rows), f)
    ev.write_results()
    ev.plots()
    ev.report()


def sh(command, **kw):
    """Runs a bash pipeline; stops the evaluation when it fails."""
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], **kw)
    if done.returncode != 0:
        sys.exit(f"evaluate: failed ({done.returncode}): {command}")
    return done


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Evaluation:
    def __init__(self, args):
        self.args = args
        self.bin = args.bin
        self.meta = {}
        for name in SETS:
            with open(os.path.join(args.sets, name, "meta.json"), encoding="utf-8") as f:
                self.meta[name] = json.load(f)
        # (set, method, config, category) -> list of score rows (one per K, or one)
        self.scores = {}
        self.times = {}
        os.makedirs(args.work, exist_ok=True)

    def tool(self, name):
        return os.path.join(self.bin, name)

    # --- gold subsets --------------------------------------------------------------------

    def subsets(self, name):
        """For each category: the ids it scores on, and its gold file. Synthetic sets: the
        bases, the negatives and the copies of one edit ('all': every document). Licenses: all
        documents, gold pairs by ratio band (recall only)."""
        base = os.path.join(self.args.sets, name)
        work = os.path.join(self.args.work, name, "gold")
        os.makedirs(work, exist_ok=True)
        meta = self.meta[name]
        result = {"all": (None, os.path.join(base, "gold.tsv"))}
        if meta["kind"] == "licenses":
            bands = {"identical": (1.0, 1.01), "band-95": (0.95, 1.0), "band-90": (0.9, 0.95)}
            rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(base, "gold.tsv"))]
            for band, (low, high) in bands.items():
                path = os.path.join(work, f"{band}.tsv")
                with open(path, "w") as f:
                    for a, b, ratio in rows:
                        if low <= float(ratio) < high:
                            f.write(f"{a}\t{b}\n")
                result[band] = (None, path)
            return result
        category_of = dict(line.rstrip("\n").split("\t") for line in open(os.path.join(base, "categories.tsv")))
        labels = [line.rstrip("\n").split("\t") for line in open(os.path.join(base, "gold.tsv"))]
        for category in meta["categories"]:
            ids = {i for i, c in category_of.items() if c in ("base", "negative", category)}
            path = os.path.join(work, f"{category}.tsv")
            with open(path, "w") as f:
                for doc_id, label in labels:
                    if doc_id in ids:
                        f.write(f"{doc_id}\t{label}\n")
            result[category] = (ids, path)
        return result

    def score(self, name, pairs_lines, subsets, by_distance):
        """sh-score on each subset: {category: [rows]}."""
        fmt = self.meta[name]["gold_format"]
        out = {}
        for category, (ids, gold) in subsets.items():
            if ids is None:
                data = "".join(pairs_lines)
            else:
                data = "".join(l for l in pairs_lines if subset_pair(l, ids))
            command = f"{self.tool('sh-score')} --gold {gold} --gold-format {fmt} --format json"
            if by_distance:
                command += f" --by-distance --distance {MAX_K}"
            done = sh(command, input=data, capture_output=True, text=True)
            out[category] = [json.loads(line) for line in done.stdout.splitlines()]
        return out

    # --- the sweep -----------------------------------------------------------------------

    def sweep(self):
        for name in SETS:
            subsets = self.subsets(name)
            docs = os.path.join(self.args.sets, name, "docs.tsv")
            for mode in MODES[name]:
                for window in WINDOWS:
                    work = os.path.join(self.args.work, name, f"{mode}-w{window}")
                    os.makedirs(work, exist_ok=True)
                    fp, pairs = os.path.join(work, "fp.tsv"), os.path.join(work, "pairs.tsv")
                    t0 = time.perf_counter()
                    sh(f"{self.tool('sh-tokenize')} --with-id --mode {mode} < {docs}"
                       f" | {self.tool('sh-shingle')} -w {window} | {self.tool('sh-hash')}"
                       f" | {self.tool('sh-compute')} > {fp}")
                    t1 = time.perf_counter()
                    sh(f"{self.tool('sh-pairs')} --quiet -k {MAX_K} < {fp} > {pairs}")
                    t2 = time.perf_counter()
                    self.times[(name, "simhash", (mode, window), "fingerprints")] = t1 - t0
                    self.times[(name, "simhash", (mode, window), f"pairs k={MAX_K}")] = t2 - t1
                    with open(pairs) as f:
                        lines = f.readlines()
                    for category, rows in self.score(name, lines, subsets, True).items():
                        self.scores[(name, "simhash", (mode, window), category)] = rows
                    all_rows = self.scores[(name, "simhash", (mode, window), "all")]
                    best = max(all_rows, key=lambda r: r["f1"])
                    log(f"{name} {mode} w={window}: {t1 - t0:.1f}s + {t2 - t1:.1f}s, "
                        f"{len(lines)} pairs at k<={MAX_K}; best F1 {best['f1']:.3f} at k={best['k']}")

    def simhash_row(self, name, mode, window, k, category):
        return self.scores[(name, "simhash", (mode, window), category)][k]

    # --- choosing the defaults -----------------------------------------------------------

    def choose(self):
        """The defaults: the window and K with the best mean F1 over the three sets (all pairs),
        in mode words, K at most MAX_DEFAULT_K. The mode is not chosen by F1: only words (and chars) tokenize every
        script (alpha makes a whole run of Chinese one token, ascii drops it), and the mode
        table shows what the others would gain on English text."""
        self.ranking = []
        for window in WINDOWS:
            for k in range(MAX_DEFAULT_K + 1):
                f1 = {name: self.simhash_row(name, "words", window, k, "all")["f1"] for name in SETS}
                self.ranking.append({"mode": "words", "window": window, "k": k, **f1,
                                     "mean": sum(f1.values()) / len(f1)})
        self.ranking.sort(key=lambda r: -r["mean"])
        top = self.ranking[0]
        self.chosen = (top["mode"], top["window"], top["k"])
        log(f"chosen defaults: mode {top['mode']}, window {top['window']}, K {top['k']} "
            f"(F1 synthetic {top['synthetic']:.3f}, licenses {top['licenses']:.3f}, cjk {top['cjk']:.3f})")

    # --- MinHash LSH ---------------------------------------------------------------------

    def minhash(self):
        from datasketch import MinHash, MinHashLSH

        self.minhash_best = {}
        for name in SETS:
            mode, window = self.chosen[0], self.chosen[1]
            if name == "cjk" and mode not in MODES["cjk"]:
                mode = "words"
            docs = os.path.join(self.args.sets, name, "docs.tsv")
            work = os.path.join(self.args.work, name, "minhash")
            os.makedirs(work, exist_ok=True)
            shingles = os.path.join(work, "shingles.tsv")
            t0 = time.perf_counter()
            sh(f"{self.tool('sh-tokenize')} --with-id --mode {mode} < {docs}"
               f" | {self.tool('sh-shingle')} -w {window} > {shingles}")
            self.times[(name, "shared", (mode, window), "tokenize + shingle")] = time.perf_counter() - t0

            t0 = time.perf_counter()
            keys, sketches = [], []
            with open(shingles, "rb") as f:
                for line in f:
                    doc_id, _, payload = line.rstrip(b"\n").partition(b"\t")
                    items = payload.split()
                    m = MinHash(num_perm=NUM_PERM)
                    if items:
                        m.update_batch(items)
                    keys.append(doc_id.decode("utf-8", "replace"))
                    sketches.append(m)
            self.times[(name, "minhash", (mode, window), "MinHash sketches")] = time.perf_counter() - t0
            position = {k: i for i, k in enumerate(keys)}
            subsets = self.subsets(name)
            best = None
            for threshold in THRESHOLDS:
                t0 = time.perf_counter()
                lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
                for key, m in zip(keys, sketches):
                    lsh.insert(key, m)
                found = set()
                for key, m in zip(keys, sketches):
                    for other in lsh.query(m):
                        if other != key:
                            a, b = sorted((position[key], position[other]))
                            found.add((a, b))
                elapsed = time.perf_counter() - t0
                self.times[(name, "minhash", (mode, window), f"LSH t={threshold}")] = elapsed
                lines = [f"{keys[a]}\t{keys[b]}\n" for a, b in sorted(found)]
                for category, rows in self.score(name, lines, subsets, False).items():
                    self.scores[(name, "minhash", (mode, window, threshold), category)] = rows
                f1 = self.scores[(name, "minhash", (mode, window, threshold), "all")][0]["f1"]
                if best is None or f1 > best[1]:
                    best = (threshold, f1)
                log(f"{name} MinHash LSH t={threshold}: {len(found)} pairs, F1 {f1:.3f}, {elapsed:.1f}s")
            self.minhash_best[name] = (mode, window, best[0])

    def find_minhash_best(self):
        """The best threshold of each set, from saved scores."""
        for name in SETS:
            found = [(config, rows[0]["f1"]) for (n, method, config, category), rows in self.scores.items()
                     if n == name and method == "minhash" and category == "all"]
            config, _ = max(found, key=lambda c: c[1])
            self.minhash_best[name] = config

    # --- timing of the chosen configuration ----------------------------------------------

    def timing(self):
        """sh-hash | sh-compute and sh-pairs -k K at the chosen defaults, from the same
        shingles MinHash read."""
        for name in SETS:
            mode, window, _ = self.minhash_best[name]
            k = self.chosen[2]
            work = os.path.join(self.args.work, name, "minhash")
            shingles, fp = os.path.join(work, "shingles.tsv"), os.path.join(work, "fp.tsv")
            t0 = time.perf_counter()
            sh(f"{self.tool('sh-hash')} < {shingles} | {self.tool('sh-compute')} > {fp}")
            t1 = time.perf_counter()
            sh(f"{self.tool('sh-pairs')} --quiet -k {k} < {fp} > /dev/null")
            t2 = time.perf_counter()
            self.times[(name, "simhash", (mode, window), "sh-hash | sh-compute")] = t1 - t0
            self.times[(name, "simhash", (mode, window), f"sh-pairs -k {k}")] = t2 - t1

    def scale(self):
        """What K costs at scale: sh-pairs on 1,000,000 random fingerprints (seeded), its time
        and the pairs it finds by chance alone, against the expected number of chance pairs."""
        import random
        from math import comb

        path = os.path.join(self.args.work, "random-1m.txt")
        rng = random.Random(1)
        n = 1_000_000
        with open(path, "w") as f:
            f.writelines(f"{rng.getrandbits(64)}\n" for _ in range(n))
        self.scale_rows = []
        for k in range(3, MAX_K + 1):
            t0 = time.perf_counter()
            done = sh(f"{self.tool('sh-pairs')} --quiet -k {k} < {path} | wc -l",
                      capture_output=True, text=True)
            seconds = time.perf_counter() - t0
            p = sum(comb(64, i) for i in range(k + 1)) / 2**64
            self.scale_rows.append({"k": k, "seconds": seconds, "pairs": int(done.stdout),
                                    "expected": comb(n, 2) * p, "expected_10m": comb(10 * n, 2) * p})
            log(f"1M random fingerprints, K={k}: {seconds:.1f}s, {done.stdout.strip()} chance pairs")

    # --- output --------------------------------------------------------------------------

    def write_results(self):
        path = os.path.join(self.args.work, "results.tsv")
        with open(path, "w") as f:
            f.write("set\tmethod\tmode\twindow\tk_or_threshold\tcategory\ttp\tfp\tfn\tprecision\trecall\tf1\n")
            for (name, method, config, category), rows in sorted(self.scores.items(), key=str):
                for row in rows:
                    param = row.get("k", config[2] if len(config) > 2 else "")
                    f.write(f"{name}\t{method}\t{config[0]}\t{config[1]}\t{param}\t{category}\t"
                            f"{row['tp']}\t{row['fp']}\t{row['fn']}\t{row['precision']:.6f}\t"
                            f"{row['recall']:.6f}\t{row['f1']:.6f}\n")
        log(f"wrote {path}")

    def plots(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        mode = self.chosen[0]
        colors = plt.cm.viridis([i / (len(WINDOWS) - 1) for i in range(len(WINDOWS))])
        ks = list(range(MAX_K + 1))

        # 1. Recall per edit and precision, against K, one line per window.
        categories = self.meta["synthetic"]["categories"]
        fig, axes = plt.subplots(2, 4, figsize=(16, 8), sharex=True)
        panels = [(c, "recall") for c in categories] + [("all", "precision")]
        for ax, (category, measure) in zip(axes.flat, panels):
            for color, window in zip(colors, WINDOWS):
                rows = self.scores[("synthetic", "simhash", (mode, window), category)]
                ax.plot(ks, [r[measure] for r in rows], color=color, marker="o", markersize=3,
                        label=f"window {window}")
            ax.axvline(self.chosen[2], color="grey", linestyle=":", linewidth=1)
            ax.set_title(f"{measure}: {LABELS[category]}", fontsize=11)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
        for ax in axes[1]:
            ax.set_xlabel("K (sh-pairs -k)")
        axes[0][0].legend(fontsize=8, loc="lower right")
        fig.suptitle(f"Synthetic near duplicates of the Linux documentation: sh-tokenize --mode {mode}, "
                     f"sh-shingle -w 2..8, K 0..{MAX_K} (dotted: chosen K)", fontsize=13)
        fig.tight_layout()
        path = os.path.join(self.args.plots, "quality-synthetic.png")
        fig.savefig(path, dpi=80)
        plt.close(fig)
        log(f"wrote {path}")

        # 2. Precision against recall, all pairs: simhash (K along each curve) and MinHash LSH.
        fig, axes = plt.subplots(1, 3, figsize=(16, 5.5))
        for ax, name in zip(axes, SETS):
            set_mode = mode if mode in MODES[name] else "words"
            for color, window in zip(colors, WINDOWS):
                rows = self.scores[(name, "simhash", (set_mode, window), "all")]
                ax.plot([r["recall"] for r in rows], [r["precision"] for r in rows], color=color,
                        marker="o", markersize=3, label=f"simhash w={window}, K 0..{MAX_K}")
            c = self.simhash_row(name, set_mode, self.chosen[1], self.chosen[2], "all") \
                if set_mode == mode else None
            if c:
                ax.plot([c["recall"]], [c["precision"]], marker="*", markersize=16, color="red",
                        linestyle="none", label=f"chosen: w={self.chosen[1]}, K={self.chosen[2]}")
            cur = self.simhash_row(name, "words", CURRENT[1], CURRENT[2], "all")
            ax.plot([cur["recall"]], [cur["precision"]], marker="s", markersize=9, color="black",
                    fillstyle="none", linestyle="none", label="current: w=4, K=3")
            mm, mw, _ = self.minhash_best[name]
            rows = [self.scores[(name, "minhash", (mm, mw, t), "all")][0] for t in THRESHOLDS]
            ax.plot([r["recall"] for r in rows], [r["precision"] for r in rows], color="orange",
                    marker="^", linestyle="--", label=f"MinHash LSH w={mw}, t 0.1..0.9")
            for t, r in zip(THRESHOLDS, rows):
                if t in (0.1, 0.5, 0.9):
                    ax.annotate(f"t={t}", (r["recall"], r["precision"]), fontsize=8,
                                textcoords="offset points", xytext=(4, -10))
            ax.set_title({"synthetic": "synthetic (English), all pairs",
                          "licenses": "SPDX license texts", "cjk": "synthetic (Chinese), all pairs"}[name])
            ax.set_xlabel("recall")
            ax.set_ylabel("precision")
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7.5, loc="lower left")
        fig.suptitle("Precision against recall: simhash (sh-tools) and MinHash LSH (datasketch, 128 permutations)",
                     fontsize=13)
        fig.tight_layout()
        path = os.path.join(self.args.plots, "quality-pr.png")
        fig.savefig(path, dpi=80)
        plt.close(fig)
        log(f"wrote {path}")

    def report(self):
        mode, window, k = self.chosen
        out = []
        w = out.append
        w(f"# Evaluation results ({time.strftime('%Y-%m-%d')})\n")
        w(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{package_versions()}.\n")
        w("## Data\n")
        for name in SETS:
            w(f"- {name}: `{json.dumps(self.meta[name])}`")
        w("")
        w(f"## Chosen defaults: --mode {mode}, -w {window}, -k {k}\n")
        w(f"Top 10 (mode words, K <= {MAX_DEFAULT_K}) by the mean F1 of the three sets, all pairs:\n")
        w("| mode | window | K | F1 synthetic | F1 licenses | F1 CJK | mean |")
        w("|---|---|---|---|---|---|---|")
        for r in self.ranking[:10]:
            w(f"| {r['mode']} | {r['window']} | {r['k']} | {r['synthetic']:.3f} | {r['licenses']:.3f} "
              f"| {r['cjk']:.3f} | {r['mean']:.3f} |")
        w("")
        for name in SETS:
            w(f"## {name}: per category\n")
            mm, mw, mt = self.minhash_best[name]
            set_mode = mode if mode in MODES[name] else "words"
            columns = [(f"simhash {set_mode} w={window} K={k} (chosen)", ("simhash", (set_mode, window), k)),
                       ("simhash words w=4 K=3 (current)", ("simhash", ("words", 4), 3)),
                       (f"MinHash LSH w={mw} t=0.5 (default)", ("minhash", (mm, mw, 0.5), 0)),
                       (f"MinHash LSH w={mw} t={mt} (best F1)", ("minhash", (mm, mw, mt), 0))]
            w("| category | " + " | ".join(c for c, _ in columns) + " |")
            w("|---" * (len(columns) + 1) + "|")
            for category in self.subsets_names(name):
                cells = []
                for _, (method, config, index) in columns:
                    r = self.scores[(name, method, config, category)][index]
                    if name == "licenses" and category != "all":
                        cells.append(f"R {r['recall']:.3f} ({r['tp']}/{r['tp'] + r['fn']})")
                    else:
                        cells.append(f"P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f}")
                w(f"| {LABELS[category]} | " + " | ".join(cells) + " |")
            w("")
        for name in SETS:
            set_mode_list = MODES[name]
            w(f"## {name}: best F1 (all pairs) of each mode and window, and its K\n")
            w("| mode | " + " | ".join(f"w={x}" for x in WINDOWS) + " |")
            w("|---" * (len(WINDOWS) + 1) + "|")
            for m in set_mode_list:
                cells = []
                for x in WINDOWS:
                    rows = self.scores[(name, "simhash", (m, x), "all")]
                    b = max(rows, key=lambda r: r["f1"])
                    cells.append(f"{b['f1']:.3f} (K={b['k']})")
                w(f"| {m} | " + " | ".join(cells) + " |")
            w("")
        w(f"## synthetic: recall per edit, --mode {mode}, window x K\n")
        for category in self.meta["synthetic"]["categories"] + ["all"]:
            measure = "recall" if category != "all" else "precision"
            w(f"{measure}, {LABELS[category]}:\n")
            w("| window | " + " | ".join(f"K={x}" for x in range(MAX_K + 1)) + " |")
            w("|---" * (MAX_K + 2) + "|")
            for x in WINDOWS:
                rows = self.scores[("synthetic", "simhash", (mode, x), category)]
                w(f"| {x} | " + " | ".join(f"{r[measure]:.3f}" for r in rows) + " |")
            w("")
        w("## What K costs at scale: sh-pairs on 1,000,000 random fingerprints\n")
        w("| K | seconds | chance pairs found | expected per 1M documents | expected per 10M documents |")
        w("|---|---|---|---|---|")
        for r in self.scale_rows:
            w(f"| {r['k']} | {r['seconds']:.1f} | {r['pairs']} | {r['expected']:.1f} | {r['expected_10m']:.0f} |")
        w("")
        w("## Time (seconds, wall clock, 2 shared cores)\n")
        w("| set | method | configuration | step | seconds |")
        w("|---|---|---|---|---|")
        for (name, method, config, step), seconds in sorted(self.times.items(), key=str):
            if step == "fingerprints" or step.startswith("pairs k="):
                continue
            w(f"| {name} | {method} | {config} | {step} | {seconds:.2f} |")
        w("")
        sweep_total = sum(s for (n, m, c, st), s in self.times.items() if m == "simhash"
                          and (st == "fingerprints" or st.startswith("pairs k=")))
        w(f"The whole sweep's pipelines (tokenize to sh-pairs -k {MAX_K}, every mode and window): "
          f"{sweep_total:.0f} s.\n")
        with open(self.args.report, "w") as f:
            f.write("\n".join(out) + "\n")
        log(f"wrote {self.args.report}")

    def subsets_names(self, name):
        if self.meta[name]["kind"] == "licenses":
            return ["all", "identical", "band-95", "band-90"]
        return self.meta[name]["categories"] + ["all"]


def subset_pair(line, ids):
    a, b, _ = line.split("\t", 2) if line.count("\t") >= 2 else (*line.rstrip("\n").split("\t"), "")
    return a in ids and b in ids


def package_versions():
    from importlib.metadata import version
    return ", ".join(f"{p} {version(p)}" for p in ("datasketch", "numpy", "matplotlib"))


if __name__ == "__main__":
    main()
