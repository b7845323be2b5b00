"""Tables of the wide-fingerprint evaluation (eval/wide.py, issue #12): the candidates for the
defaults of each width against MinHash LSH, the acceptance figures of issue #12, sweeps of K,
windows and corpus statistics, the approximate rule and its recall formula, chance pairs at
scale. Every figure is computed from the scores; the choices are made by the rules stated in
the tables' captions, not by hand."""

from math import comb

from wide import LABEL, MAX_K, WINDOWS, WIDTHS, WORD_KS, prf

SYNTHETIC = ["synthetic", "cjk", "zipf"]  # the planted-edit sets the acceptance speaks of
# the acceptance of issue #12 per (set, category): ("recall", R, P) or ("f1", F1)
ACCEPT = {("synthetic", "edit-1"): ("rp", 0.98, 0.99), ("cjk", "edit-1"): ("rp", 0.98, 0.99),
          ("zipf", "edit-1"): ("rp", 0.98, 0.99), ("zipf", "edit-2"): ("rp", 0.98, 0.99),
          ("synthetic", "edit-5"): ("f1", 0.75), ("cjk", "edit-5"): ("f1", 0.75),
          ("zipf", "edit-5"): ("f1", 0.75)}
NEAR = [("synthetic", "edit-1"), ("synthetic", "edit-5"), ("cjk", "edit-1"), ("cjk", "edit-5"),
        ("zipf", "edit-1"), ("zipf", "edit-2"), ("zipf", "edit-5"), ("realpages-2", "all"),
        ("realpages-5", "all"), ("licenses", "all")]
RECOMMENDED = (2, "df")  # shingle window and pipeline of the README's pipeline, checked below
K_GRID = {64: [6, 8, 10, 12], 128: [12, 14, 16, 18, 20, 22, 24, 28, 32],
          256: [24, 28, 32, 36, 40, 44, 48, 52, 56]}
# The cost of one word's search at k (seconds of sh-pairs -k k on 1M random 64-bit fingerprints,
# measured by wide.word_search_cost in the same run), for the cost columns.
WORD_SEARCH_SECONDS = {}


def write(wide, report, names):
    WORD_SEARCH_SECONDS.clear()
    WORD_SEARCH_SECONDS.update({k: round(v[0], 2) for k, v in wide.cost.items()})
    t = Tables(wide, names)
    lines = [f"# Wide fingerprints (issue #12): the evaluation's tables", "",
             f"Pair finder: **{wide.backend}**.", ""]
    lines += t.pipeline_choice()
    lines += t.fixed_settings()
    lines += t.bounded_cost()
    lines += t.defaults()
    lines += t.selection()
    lines += t.approx_acceptance()
    lines += t.minhash_columns()
    lines += t.candidates()
    lines += t.acceptance()
    lines += t.exact_vs_minhash()
    lines += t.sweeps()
    lines += t.windows_table()
    lines += t.word_k_table()
    lines += t.formula_summary()
    lines += t.formula_table()
    lines += t.minhash_table()
    lines += t.chance_table()
    lines += ["## Cost unit: one 64-bit word search (sh-pairs -k k, 1M random fingerprints, least of 2 runs)", "",
              "| k | seconds | chance pairs found |", "|---|---|---|"]
    lines += [f"| {k} | {v[0]:.2f} | {v[1]} |" for k, v in sorted(wide.cost.items())] + [""]
    lines += ["## Checks", ""] + [f"- {n}" for n in wide.notes] + [""]
    lines += ["## Times (seconds, wall clock, 2 shared cores)", ""]
    lines += [f"- {k[0]} w={k[1]} {k[2]}: {v:.1f}" for k, v in sorted(wide.times.items(), key=str)] + [""]
    with open(report, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


class Tables:
    def __init__(self, wide, names):
        self.w = wide
        self.names = names

    # --- access ---------------------------------------------------------------------------------

    def row(self, name, bits, window, pipeline, k, category="all", rule="exact"):
        return prf(*self.w.results[(name, bits, window, pipeline, rule, category)][k])

    def raw(self, name, bits, window, pipeline, k, category="all", rule="exact"):
        return self.w.results[(name, bits, window, pipeline, rule, category)][k]

    def minhash_best(self, name, library, category="all"):
        """The best F1 over windows and thresholds (on all pairs): (p, r, f1, window, threshold),
        and the figures of that same (window, threshold) on `category`."""
        best = None
        for (s, lib, window, threshold, c), counts in self.w.minhash.items():
            if s == name and lib == library and c == "all":
                f1 = prf(*counts)[2]
                if best is None or f1 > best[0]:
                    best = (f1, window, threshold)
        if best is None:
            return None
        _, window, threshold = best
        key = (name, library, window, threshold, category)
        if key not in self.w.minhash:
            return None
        return (*prf(*self.w.minhash[key]), window, threshold)

    def minhash_category_best(self, name, category):
        """MinHash's best F1 on one category over libraries, windows and thresholds (chosen with
        the answers for that category: the strictest bar)."""
        best = None
        for (s, lib, window, threshold, c), counts in self.w.minhash.items():
            if s == name and c == category:
                r = prf(*counts)
                if best is None or r[2] > best[0][2]:
                    best = (r, lib, window, threshold)
        return best

    def minhash_max(self, name):
        return max((self.minhash_best(name, lib) or (0, 0, 0))[2] for lib in ("datasketch", "rensa"))

    def best_f1(self, name, bits, category="all"):
        """The best F1 any window, pipeline and K of that width reaches on the set."""
        return max(prf(*c)[2] for (s, b, _, _, rule, cat), rows in self.w.results.items()
                   if s == name and b == bits and rule == "exact" and cat == category for c in rows)

    # --- the choices ----------------------------------------------------------------------------

    def pipeline_choice(self):
        """Which window and pipeline, per width: the best F1 each reaches over K on each set,
        and the worst ratio to the width's best on that set."""
        lines = ["## Window and corpus statistics, per width", "",
                 "Best F1 (all pairs) over K of each window and pipeline, per set; 'worst' is the "
                 "smallest ratio of that F1 to the best F1 any window and pipeline of the width reaches "
                 "on the set (the rule of eval/corpusreport.py: no set given up for another).", ""]
        head = "| bits | w | pipeline | " + " | ".join(LABEL[n] for n in self.names) + " | worst |"
        lines += [head, "|" + "---|" * (4 + len(self.names))]
        for bits in WIDTHS:
            ranked = []
            for window in WINDOWS:
                for pipeline in ("plain", "df"):
                    cells, ratios = [], []
                    for n in self.names:
                        rows = self.w.results[(n, bits, window, pipeline, "exact", "all")]
                        k = max(range(len(rows)), key=lambda x: prf(*rows[x])[2])
                        f1 = prf(*rows[k])[2]
                        cells.append(f"{f1:.3f} (K={k})")
                        ratios.append(f1 / self.best_f1(n, bits))
                    ranked.append((min(ratios), window, pipeline, cells))
            for worst, window, pipeline, cells in sorted(ranked, key=lambda r: -r[0]):
                lines.append(f"| {bits} | {window} | {pipeline} | " + " | ".join(cells) + f" | {worst:.3f} |")
        lines.append("")
        return lines

    def fixed_settings(self):
        """One (w, pipeline, K) per row, the same on every set: F1 on all pairs and on the
        near-duplicate categories (<= 5% edits, real pages, licenses); ranked per width by the
        worst ratio to the best F1 any setting of that width reaches on the set or category."""
        lines = ["## One setting for every set: the best K of each window and pipeline", "",
                 "For each width, window and pipeline, the single K whose smallest ratio of F1 to the best "
                 "F1 of the width on each set (all pairs) is largest; then the same over the near-duplicate "
                 "columns (English and Chinese 1%, 5%; zipf 1%, 2%, 5%; real pages 2%, 5%; licenses).", ""]
        cols = [c for c in NEAR if c[0] in self.names]
        best_near = {c: max(prf(*r)[2] for (s, b, _, _, rule, cat), rows in self.w.results.items()
                            for r in rows if (s, cat) == c and rule == "exact") for c in cols}
        lines += ["| bits | w | pipeline | K (all pairs) | worst ratio | mean F1 | K (near duplicates) | worst ratio | worst column | mean F1 |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for bits in WIDTHS:
            best_all = {n: self.best_f1(n, bits) for n in self.names}
            for window in WINDOWS:
                for pipeline in ("df", "plain"):
                    def score_all(k):
                        f = [self.row(n, bits, window, pipeline, k)[2] for n in self.names]
                        return min(x / best_all[n] for x, n in zip(f, self.names)), sum(f) / len(f)

                    def score_near(k):
                        f = [self.row(n, bits, window, pipeline, k, c)[2] for n, c in cols]
                        ratios = [x / max(best_near[c], 1e-9) for x, c in zip(f, cols)]
                        worst = cols[min(range(len(cols)), key=lambda q: ratios[q])]
                        return min(ratios), sum(f) / len(f), worst
                    ka = max(range(MAX_K[bits] + 1), key=lambda k: score_all(k))
                    kn = max(range(MAX_K[bits] + 1), key=lambda k: score_near(k)[:2])
                    wa, ma = score_all(ka)
                    wn, mn, worst = score_near(kn)
                    lines.append(f"| {bits} | {window} | {pipeline} | {ka} | {wa:.3f} | {ma:.3f} | {kn} | {wn:.3f} | "
                                 f"{LABEL[worst[0]]} {worst[1]} | {mn:.3f} |")
        lines.append("")
        return lines

    def near_scores(self, bits, window, pipeline, k, rule):
        cols = [c for c in NEAR if c[0] in self.names]
        f = [self.row(n, bits, window, pipeline, k, c, rule)[2] for n, c in cols]
        return f, cols

    def selection(self):
        """The default K and word-k of each width, by rule: (1) the most acceptance figures of
        issue #12 met, (2) the cheapest per-word k (the cost of the search), (3) the largest
        smallest F1 over the near-duplicate columns, (4) the largest mean F1 over them."""
        w, pipe = RECOMMENDED
        lines = ["## The default K and word-k of each width, chosen by rule (w = 2, df)", "",
                 "Order: most acceptance figures met; then the smallest per-word k (cost); then the largest "
                 "smallest F1 over the near-duplicate columns; then their mean. The first five per width.", "",
                 "| bits | K | rule | met | per-word k | cost (s per 1M) | smallest near F1 (column) | mean near F1 | mean F1, all pairs of the six sets |",
                 "|---|---|---|---|---|---|---|---|---|"]
        for bits in (128, 256):
            words = bits // 64
            cands = []
            for k in range(8, MAX_K[bits] + 1):
                for word_k in WORD_KS + [None]:
                    if word_k is not None and word_k >= k // words:
                        continue
                    rule = "exact" if word_k is None else f"k{word_k}"
                    wk = k // words if word_k is None else word_k
                    _, met, total = self.acceptance_met(bits, w, pipe, k, rule)
                    f, cols = self.near_scores(bits, w, pipe, k, rule)
                    q = min(range(len(f)), key=lambda x: f[x])
                    mean_all = sum(self.row(n, bits, w, pipe, k, "all", rule)[2] for n in self.names) / len(self.names)
                    cands.append(((-met, wk, -f[q], -sum(f) / len(f)), k, rule, met, total, wk, f[q], cols[q],
                                  sum(f) / len(f), mean_all))
            cands.sort(key=lambda c: c[0])
            for _, k, rule, met, total, wk, fq, col, mean, mean_all in cands[:5]:
                cost = WORD_SEARCH_SECONDS.get(wk)
                lines.append(f"| {bits} | {k} | {'exact' if rule == 'exact' else 'word-k ' + rule[1:]} | {met}/{total} | {wk} | "
                             f"{'-' if cost is None else f'{words} x {cost} = {words * cost:.1f}'} | {fq:.3f} ({LABEL[col[0]]} {col[1]}) | "
                             f"{mean:.3f} | {mean_all:.3f} |")
        lines.append("")
        return lines

    def minhash_columns(self):
        """Per near-duplicate column: the K range (exact, w = 2, df, 128 and 256 bits; and w = 3)
        where simhash's F1 is >= MinHash's best threshold for the set (all pairs) in that column,
        and >= MinHash's best for that column alone (library, w and t chosen per column)."""
        cols = [c for c in NEAR if c[0] in self.names]
        lines = ["## Where the exact search matches MinHash LSH, per column", "",
                 "K ranges (exact rule) where simhash's F1 >= MinHash's: 'set best' = the better library at "
                 "its best (w, t) on the set's all pairs, measured on the column; 'column best' = the best "
                 "library, w and t for the column alone (the strictest bar).", "",
                 "| bits | w | pipeline | bar | " + " | ".join(f"{LABEL[n]} {c}" for n, c in cols) + " | all columns |",
                 "|---|---|---|---|" + "---|" * (len(cols) + 1)]
        for bits in (128, 256):
            for window, pipeline in ((2, "df"), (3, "df"), (2, "plain")):
                for bar in ("set best", "column best"):
                    cells, common = [], set(range(MAX_K[bits] + 1))
                    for n, c in cols:
                        if bar == "set best":
                            target = max((self.minhash_best(n, lib, c) or (0, 0, 0))[2] for lib in ("datasketch", "rensa"))
                        else:
                            target = self.minhash_category_best(n, c)[0][2]
                        ok = [k for k in range(MAX_K[bits] + 1) if self.row(n, bits, window, pipeline, k, c)[2] >= target - 1e-9]
                        common &= set(ok)
                        cells.append(f"{ranges(ok) or 'none'} ({target:.3f})")
                    lines.append(f"| {bits} | {window} | {pipeline} | {bar} | " + " | ".join(cells) + f" | {ranges(sorted(common)) or 'none'} |")
        lines.append("")
        return lines

    def bounded_cost(self):
        """Each window and pipeline at a bounded search cost: the best mean F1 over the
        near-duplicate columns of any K and word-k with the per-word k at most 6, 7, 8."""
        lines = ["## Windows and pipelines at a bounded search cost", "",
                 "Best mean F1 over the near-duplicate columns (and that setting's smallest column F1) of any K "
                 "and rule whose per-word k (word-k, or floor(K/L) for the exact rule) is at most 6, 7 or 8.", "",
                 "| bits | w | pipeline | per-word k <= 6 | <= 7 | <= 8 |", "|---|---|---|---|---|---|"]
        for bits in (128, 256):
            words = bits // 64
            for window in WINDOWS:
                for pipeline in ("df", "plain"):
                    cells = []
                    for cap in (6, 7, 8):
                        best = None
                        for k in range(8, MAX_K[bits] + 1):
                            for word_k in WORD_KS + [None]:
                                wk = k // words if word_k is None else word_k
                                if wk > cap or (word_k is not None and word_k >= k // words):
                                    continue
                                rule = "exact" if word_k is None else f"k{word_k}"
                                f, _ = self.near_scores(bits, window, pipeline, k, rule)
                                key = (sum(f) / len(f), min(f))
                                if best is None or key[0] > best[0][0]:
                                    best = (key, k, word_k)
                        (mean, least), k, word_k = best
                        cells.append(f"{mean:.3f} (min {least:.3f}; K {k}, {'exact' if word_k is None else f'word-k {word_k}'})")
                    lines.append(f"| {bits} | {window} | {pipeline} | " + " | ".join(cells) + " |")
        lines.append("")
        return lines

    def approx_acceptance(self):
        """Issue #12's acceptance figures per (width, K, rule), recommended pipeline."""
        w, pipe = RECOMMENDED
        cols = [c for c in ACCEPT if c[0] in self.names]
        lines = ["## Acceptance figures per K and rule (w = 2, df; R for 1%/2%: P / R; 5%: F1)", "",
                 "| bits | K | rule | cost (4 or 2 word searches at k, s per 1M) | met | " +
                 " | ".join(f"{LABEL[n]} {c}" for n, c in cols) + " |",
                 "|---|---|---|---|---|" + "---|" * len(cols)]
        for bits, ks in ((128, (16, 18, 20, 22, 24)), (256, (32, 36, 38, 40, 42, 44, 46, 48))):
            words = bits // 64
            for k in ks:
                for word_k in (5, 6, 7, 8, None):
                    if word_k is not None and word_k >= k // words:
                        continue
                    rule = "exact" if word_k is None else f"k{word_k}"
                    wk = k // words if word_k is None else word_k
                    ok, met, total = self.acceptance_met(bits, w, pipe, k, rule)
                    cells = []
                    for n, c in cols:
                        p, r, f1 = self.row(n, bits, w, pipe, k, c, rule)
                        cells.append(f"{p:.3f} / {r:.3f}" if ACCEPT[(n, c)][0] == "rp" else f"{f1:.3f}")
                    cost = WORD_SEARCH_SECONDS.get(wk)
                    lines.append(f"| {bits} | {k} | {'exact' if word_k is None else f'word-k {word_k}'} ({wk}) | "
                                 f"{'-' if cost is None else f'{words} x {cost}'} | {met}/{total} | " + " | ".join(cells) + " |")
        lines.append("")
        return lines

    def acceptance_met(self, bits, window, pipeline, k, rule="exact"):
        out = []
        for (name, category), rule_ in ACCEPT.items():
            if name not in self.names:
                continue
            p, r, f1 = self.row(name, bits, window, pipeline, k, category, rule)
            out.append(r >= rule_[1] and p >= rule_[2] if rule_[0] == "rp" else f1 >= rule_[1])
        return all(out), sum(out), len(out)

    def matches_minhash(self, bits, window, pipeline, k, rule="exact"):
        margins = [self.row(n, bits, window, pipeline, k, "all", rule)[2] - self.minhash_max(n) for n in self.names]
        return min(margins)

    def defaults(self):
        w, pipe = RECOMMENDED
        lines = ["## Candidates for the default K (recommended pipeline: w = 2, `sh-weight --df`)", "",
                 "Per width and K: the acceptance figures of issue #12 on the planted-edit sets "
                 "(English, Chinese, zipf: 1% and 2% edits R >= 0.98 with P >= 0.99, 5% edits F1 >= "
                 "0.75), the smallest margin of F1 (all pairs) over the better MinHash LSH best on each "
                 "set, and the mean F1 (all pairs) over the sets. Same for the plain pipeline (w = 2).", ""]
        lines += ["| bits | K | per-word k (exact) | acceptance, df | acceptance, plain | F1 - MinHash best, worst set (df) | mean F1 (df) | mean F1 (plain) |",
                  "|---|---|---|---|---|---|---|---|"]
        for bits in WIDTHS:
            words = bits // 64
            for k in range(0, MAX_K[bits] + 1):
                if k not in K_GRID[bits]:
                    continue
                ok, met, total = self.acceptance_met(bits, w, pipe, k)
                okp, metp, _ = self.acceptance_met(bits, w, "plain", k)
                margin = self.matches_minhash(bits, w, pipe, k)
                worst = min(self.names, key=lambda n: self.row(n, bits, w, pipe, k)[2] - self.minhash_max(n))
                mean = sum(self.row(n, bits, w, pipe, k)[2] for n in self.names) / len(self.names)
                meanp = sum(self.row(n, bits, w, "plain", k)[2] for n in self.names) / len(self.names)
                lines.append(f"| {bits} | {k} | {k // words} | {met}/{total}{' yes' if ok else ''} | "
                             f"{metp}/{total}{' yes' if okp else ''} | {margin:+.3f} ({LABEL[worst]}) | {mean:.3f} | {meanp:.3f} |")
        lines.append("")
        return lines

    def cell(self, p, r, f1):
        return f"{p:.3f} / {r:.3f} / {f1:.3f}"

    def candidates(self):
        w, pipe = RECOMMENDED
        configs = [("64 bits, K 6, plain (today's sh-pairs default)", 64, w, "plain", 6, "exact"),
                   ("64 bits, K 10, df (today's recommended pipeline)", 64, w, pipe, 10, "exact")]
        for bits, ks in ((128, (16, 20, 24)), (256, (32, 36, 40, 44))):
            for k in ks:
                configs.append((f"{bits} bits, K {k}, df", bits, w, pipe, k, "exact"))
        configs += [("256 bits, K 40, word-k 7, df", 256, w, pipe, 40, "k7"),
                    ("256 bits, K 44, word-k 7, df", 256, w, pipe, 44, "k7"),
                    ("256 bits, K 40, word-k 7, df without --max-tf", 256, w, "dfall", 40, "k7"),
                    ("256 bits, K 44, word-k 7, df without --max-tf", 256, w, "dfall", 44, "k7"),
                    ("256 bits, K 44, word-k 8, df", 256, w, pipe, 44, "k8"),
                    ("256 bits, K 48, df", 256, w, pipe, 48, "exact"),
                    ("256 bits, K 52, df", 256, w, pipe, 52, "exact"),
                    ("128 bits, K 20, word-k 8, df", 128, w, pipe, 20, "k8"),
                    ("256 bits, K 32, word-k 6, df", 256, w, pipe, 32, "k6"),
                    ("256 bits, K 40, word-k 6, df", 256, w, pipe, 40, "k6"),
                    ("128 bits, K 20, word-k 6, df", 128, w, pipe, 20, "k6"),
                    ("256 bits, K 40, plain", 256, w, "plain", 40, "exact"),
                    ("128 bits, K 20, plain", 128, w, "plain", 20, "exact")]
        lines = ["## Candidates side by side (w = 2; P / R / F1, all pairs)", "",
                 "| setting | " + " | ".join(LABEL[n] for n in self.names) + " |",
                 "|---|" + "---|" * len(self.names)]
        for label, bits, window, pipeline, k, rule in configs:
            lines.append(f"| {label} | " + " | ".join(
                self.cell(*self.row(n, bits, window, pipeline, k, "all", rule)) for n in self.names) + " |")
        for lib in ("datasketch", "rensa"):
            cells = []
            for n in self.names:
                b = self.minhash_best(n, lib)
                cells.append("-" if b is None else f"{self.cell(*b[:3])} (w {b[3]}, t {b[4]})")
            lines.append(f"| MinHash LSH {lib}, best (w, t) per set | " + " | ".join(cells) + " |")
        lines.append("")
        return lines

    def acceptance(self):
        w, pipe = RECOMMENDED
        configs = [("64, K 6, plain", 64, w, "plain", 6, "exact"), ("64, K 10, df", 64, w, pipe, 10, "exact")]
        configs += [(f"128, K {k}, {p}", 128, w, p, k, "exact") for k in (16, 20, 24) for p in ("df", "plain")]
        configs += [(f"256, K {k}, {p}", 256, w, p, k, "exact") for k in (32, 36, 40, 44) for p in ("df", "plain")]
        configs += [(f"256, K {k}, df", 256, w, pipe, k, "exact") for k in (48, 52)]
        configs += [("256, K 32, word-k 6, df", 256, w, pipe, 32, "k6"), ("256, K 40, word-k 6, df", 256, w, pipe, 40, "k6"),
                    ("256, K 40, word-k 7, df", 256, w, pipe, 40, "k7"), ("256, K 44, word-k 8, df", 256, w, pipe, 44, "k8"),
                    ("256, K 44, word-k 7, df", 256, w, pipe, 44, "k7"),
                    ("256, K 40, word-k 7, df without --max-tf", 256, w, "dfall", 40, "k7"),
                    ("256, K 44, word-k 7, df without --max-tf", 256, w, "dfall", 44, "k7"),
                    ("128, K 20, word-k 8, df without --max-tf", 128, w, "dfall", 20, "k8"),
                    ("128, K 20, word-k 8, df", 128, w, pipe, 20, "k8"), ("256, K 48, w 3, df", 256, 3, pipe, 48, "exact")]
        cols = [c for c in NEAR if c[0] in self.names]
        lines = ["## Near duplicates per edit rate (w = 2; P / R / F1 on the bases, negatives and that "
                 "rate's copies; real pages and licenses: all pairs)", "",
                 "| bits, K, pipeline | " + " | ".join(f"{LABEL[n]} {c if c != 'all' else ''}" for n, c in cols) + " |",
                 "|---|" + "---|" * len(cols)]
        for label, bits, window, pipeline, k, rule in configs:
            lines.append(f"| {label} | " + " | ".join(
                self.cell(*self.row(n, bits, window, pipeline, k, c, rule)) for n, c in cols) + " |")
        for lib in ("datasketch", "rensa"):
            cells = []
            for n, c in cols:
                b = self.minhash_best(n, lib, c)
                cells.append("-" if b is None else self.cell(*b[:3]))
            lines.append(f"| MinHash {lib} (best on all pairs) | " + " | ".join(cells) + " |")
        cells = []
        for n, c in cols:
            b = self.minhash_category_best(n, c)
            cells.append("-" if b is None else f"{self.cell(*b[0])} ({b[1]} w {b[2]} t {b[3]})")
        lines.append("| MinHash, best library, w and t for this column | " + " | ".join(cells) + " |")
        lines.append("")
        return lines

    def exact_vs_minhash(self):
        """For every width, window, pipeline and K: is F1 (all pairs) >= both MinHash bests on
        every set? The K ranges where it holds, and the best worst-margin."""
        lines = ["## Exact settings against MinHash LSH's best (F1, all pairs, every set)", "",
                 "Per width, window and pipeline: the K where F1 >= max(datasketch best, rensa best) on every "
                 "set, and the K with the largest smallest margin.", "",
                 "| bits | w | pipeline | K meeting MinHash on every set | best K by worst margin | its worst margin (set) |",
                 "|---|---|---|---|---|---|"]
        for bits in WIDTHS:
            for window in WINDOWS:
                for pipeline in ("df", "plain"):
                    ok, best = [], None
                    for k in range(MAX_K[bits] + 1):
                        margin = self.matches_minhash(bits, window, pipeline, k)
                        if margin >= 0:
                            ok.append(k)
                        if best is None or margin > best[0]:
                            best = (margin, k)
                    worst = min(self.names, key=lambda n: self.row(n, bits, window, pipeline, best[1])[2] - self.minhash_max(n))
                    lines.append(f"| {bits} | {window} | {pipeline} | {ranges(ok) or 'none'} | {best[1]} | "
                                 f"{best[0]:+.3f} ({LABEL[worst]}) |")
        lines.append("")
        return lines

    def sweeps(self):
        lines = []
        for bits, step in ((64, 1), (128, 2), (256, 4)):
            for pipeline in ("df", "plain"):
                lines += [f"## F1 against K: {bits} bits, w = 2, {pipeline} (all pairs; near-duplicate "
                          "categories after the bar: R of 1%/2%/5% copies)", "",
                          "| K | " + " | ".join(LABEL[n] for n in self.names) +
                          " | English 1% / 5% R | Chinese 1% / 5% R | zipf 1% / 2% / 5% R | precision, worst set |",
                          "|---|" + "---|" * (len(self.names) + 4)]
                for k in range(0, MAX_K[bits] + 1, step):
                    if bits > 64 and k < 8:
                        continue
                    f1 = [self.row(n, bits, 2, pipeline, k)[2] for n in self.names]
                    rec = lambda n, c: f"{self.row(n, bits, 2, pipeline, k, c)[1]:.3f}" if n in self.names else "-"
                    pmin = min(self.names, key=lambda n: self.row(n, bits, 2, pipeline, k)[0])
                    lines.append(f"| {k} | " + " | ".join(f"{x:.3f}" for x in f1) +
                                 f" | {rec('synthetic', 'edit-1')} / {rec('synthetic', 'edit-5')}"
                                 f" | {rec('cjk', 'edit-1')} / {rec('cjk', 'edit-5')}"
                                 f" | {rec('zipf', 'edit-1')} / {rec('zipf', 'edit-2')} / {rec('zipf', 'edit-5')}"
                                 f" | {self.row(pmin, bits, 2, pipeline, k)[0]:.3f} ({LABEL[pmin]}) |")
                lines.append("")
        return lines

    def windows_table(self):
        lines = ["## Windows at fixed K (F1, all pairs, df pipeline; plain in brackets)", "",
                 "| bits | K | w | " + " | ".join(LABEL[n] for n in self.names) + " |",
                 "|---|---|---|" + "---|" * len(self.names)]
        for bits, k in ((64, 10), (128, 20), (128, 24), (256, 40), (256, 44)):
            for window in WINDOWS:
                lines.append(f"| {bits} | {k} | {window} | " + " | ".join(
                    f"{self.row(n, bits, window, 'df', k)[2]:.3f} ({self.row(n, bits, window, 'plain', k)[2]:.3f})"
                    for n in self.names) + " |")
        lines.append("")
        return lines

    def word_k_table(self):
        lines = ["## The approximate rule: recall relative to the exact search, and F1 (w = 2, df)", "",
                 "Relative recall = true pairs found by (some word <= k, total <= K) / true pairs found by "
                 "total <= K; F1 all pairs. Cost: L x the 64-bit search at k (sh-pairs on 1M random "
                 "64-bit fingerprints, this run: seconds per word search).", "",
                 "| bits | K | word-k | cost (s, 1M) | " + " | ".join(LABEL[n] for n in self.names) + " |",
                 "|---|---|---|---|" + "---|" * len(self.names)]
        for bits, ks in ((128, (16, 20, 24)), (256, (32, 36, 40, 44))):
            words = bits // 64
            for k in ks:
                for word_k in WORD_KS + [None]:
                    rule = "exact" if word_k is None else f"k{word_k}"
                    if word_k is not None and word_k >= k // words:
                        continue
                    wk = k // words if word_k is None else word_k
                    cost = WORD_SEARCH_SECONDS.get(wk)
                    cells = []
                    for n in self.names:
                        tp = self.raw(n, bits, 2, "df", k, "all", rule)[0]
                        tpe = self.raw(n, bits, 2, "df", k, "all", "exact")[0]
                        cells.append(f"{tp / tpe if tpe else 1:.3f} / {self.row(n, bits, 2, 'df', k, 'all', rule)[2]:.3f}")
                    lines.append(f"| {bits} | {k} | {word_k if word_k is not None else f'exact ({wk})'} | "
                                 f"{'-' if cost is None else f'{words} x {cost}'} | " + " | ".join(cells) + " |")
        lines.append("")
        return lines

    def formula_summary(self):
        lines = ["## The recall formula: summary", "",
                 "Per set, pipeline and width: the rows of the next table (K x word-k with word-k < floor(K/L)), "
                 "the largest |measured - predicted|, and the mean of measured - predicted weighted by true pairs.", "",
                 "| set | pipeline | bits | rows | true pairs (at the largest K) | largest difference | weighted mean difference |",
                 "|---|---|---|---|---|---|---|"]
        groups = {}
        for r in self.w.formula:
            groups.setdefault((r["set"], r["pipeline"], r["bits"]), []).append(r)
        for (n, pipeline, bits), rows in groups.items():
            big = max(rows, key=lambda r: abs(r["measured"] - r["predicted"]))
            weight = sum(r["true_pairs"] for r in rows)
            mean = sum((r["measured"] - r["predicted"]) * r["true_pairs"] for r in rows) / weight
            lines.append(f"| {LABEL[n]} | {pipeline} | {bits} | {len(rows)} | {max(r['true_pairs'] for r in rows)} | "
                         f"{big['measured'] - big['predicted']:+.4f} (K {big['K']}, k {big['word_k']}) | {mean:+.4f} |")
        lines.append("")
        return lines

    def formula_table(self):
        lines = ["## The recall formula of the approximate rule against the measurement", "",
                 "Over the true pairs the exact rule finds at K (w = 2): predicted = mean of "
                 "1 - N(d)/C(64L, d) over their total distances d; measured = the share of them the "
                 "approximate rule finds.", "",
                 "| set | pipeline | bits | K | word-k | true pairs | predicted | measured | difference |",
                 "|---|---|---|---|---|---|---|---|---|"]
        for r in self.w.formula:
            lines.append(f"| {LABEL[r['set']]} | {r['pipeline']} | {r['bits']} | {r['K']} | {r['word_k']} | "
                         f"{r['true_pairs']} | {r['predicted']:.4f} | {r['measured']:.4f} | "
                         f"{r['measured'] - r['predicted']:+.4f} |")
        lines.append("")
        return lines

    def minhash_table(self):
        lines = ["## MinHash LSH: every window and threshold (F1, all pairs)", "",
                 "| set | library | w | " + " | ".join(f"t {t}" for t in (0.5, 0.6, 0.7, 0.8, 0.9)) + " |",
                 "|---|---|---|---|---|---|---|---|"]
        for n in self.names:
            for lib in ("datasketch", "rensa"):
                for window in WINDOWS:
                    cells = [self.w.minhash.get((n, lib, window, t, "all")) for t in (0.5, 0.6, 0.7, 0.8, 0.9)]
                    lines.append(f"| {LABEL[n]} | {lib} | {window} | " + " | ".join(
                        "-" if c is None else f"{prf(*c)[2]:.3f}" for c in cells) + " |")
        lines.append("")
        return lines

    def chance_table(self):
        lines = ["## Chance pairs at scale (random fingerprints, p = 1/2 per bit)", "",
                 "| bits | K | P(distance <= K) | expected pairs, 1M documents | 100M | 1G |",
                 "|---|---|---|---|---|---|"]
        for bits in WIDTHS:
            for k in K_GRID[bits]:
                p = sum(comb(bits, i) for i in range(k + 1)) / 2 ** bits
                lines.append(f"| {bits} | {k} | {p:.1e} | " + " | ".join(
                    f"{comb(n, 2) * p:.2g}" for n in (10 ** 6, 10 ** 8, 10 ** 9)) + " |")
        lines.append("")
        return lines


def ranges(values):
    """[3, 4, 5, 8] -> '3-5, 8'."""
    out, start = [], None
    for i, v in enumerate(values):
        if start is None:
            start = v
        if i + 1 == len(values) or values[i + 1] != v + 1:
            out.append(f"{start}-{v}" if v != start else f"{v}")
            start = None
    return ", ".join(out)
