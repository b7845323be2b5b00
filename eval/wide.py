"""The wide-fingerprint evaluation of issue #12 (docs/QUALITY.md, "Wide fingerprints"): on every
eval set and a generated zipf corpus, for fingerprint widths 64, 128 and 256, shingle windows
2-4, with and without corpus statistics, the pairs within every total distance K (and, for the
wide widths, the approximate rule "some 64-bit word within k bits and the total within K"),
scored against the planted truth; MinHash LSH (datasketch, rensa) beside; the recall formula of
the approximate rule against its measured recall.

    eval/work/venv/bin/python eval/wide.py --sets eval/work/sets --bin target/release \
        --work eval/work/wide --report eval/work/wide-report.md --results eval/work/wide-results.tsv \
        [--minhash-results eval/work/corpus-results.tsv] [--reuse]

    sh-tokenize --with-id < docs | sh-shingle -w W | sh-hash > hashes
    sh-df < hashes > df                                  # pipeline "df": sh-weight --df df
    [sh-weight --df df <] hashes | sh-compute --bits N > fingerprints
    pairs: sh-pairs -k K [--word-k k] when sh-pairs reads wide fingerprints, else brute force

The pair finder (find_pairs) has two backends: `sh-pairs` when `sh-pairs --help` offers
--word-k (the wide search of issue #12), otherwise an exhaustive numpy search implementing the
same rule (every pair whose total distance is <= K and, with word_k, one of whose 64-bit words
differs in <= word_k bits). The report says which one ran. At 64 bits the brute force is
checked against sh-pairs (same pairs, same distances).

MinHash LSH figures for the sets already in --minhash-results (eval/corpusstats.py's output,
same sets, thresholds 0.5-0.9, windows 2-4) are read from it; for the others (the zipf corpus)
eval/corpusstats.py's own MinHash code runs here on the same grid. Standard library and numpy.
"""

import argparse
import csv
import json
import os
import pickle
import random
import subprocess
import sys
import time
from math import comb

import numpy as np

SETS = ["synthetic", "licenses", "cjk", "realpages-2", "realpages-5", "zipf"]
LABEL = {"synthetic": "English synthetic", "licenses": "licenses", "cjk": "Chinese synthetic",
         "realpages-2": "real pages 2%", "realpages-5": "real pages 5%", "zipf": "zipf corpus"}
WINDOWS = [2, 3, 4]
PIPELINES = {"plain": None, "df": [], "dfall": ["--max-tf", "0"]}  # None: sh-compute < hashes; []: sh-weight --df df
# (its defaults); "dfall": the same without the limit on repeated items (--max-tf 0), as before it existed
WIDTHS = [64, 128, 256]
MAX_K = {64: 16, 128: 48, 256: 72}  # every K 0..MAX_K is scored
WORD_KS = [3, 4, 5, 6, 7, 8]  # the approximate rule's per-word k (wide widths); "exact" beside
THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9]  # MinHash LSH, as eval/corpusstats.py
# The zipf corpus (like issue #12's and eval/wide_distances.py's): BASES documents of 400-600
# words drawn from a 50,000-word vocabulary with P(word r) ~ 1/r; every COPY_EVERY-th base gets
# a copy per rate with max(1, round(rate x words)) distinct positions given a new word.
ZIPF = {"bases": 8000, "copy_every": 10, "rates": (0.01, 0.02, 0.05), "vocabulary": 50000, "seed": 12}
MASK = (1 << 64) - 1


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def sh(command, **kw):
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], **kw)
    if done.returncode != 0:
        sys.exit(f"wide: failed ({done.returncode}): {command}")
    return done


# --- the zipf corpus ----------------------------------------------------------------------------


def make_zipf(directory):
    """sets/zipf: docs.tsv, gold.tsv (labels), categories.tsv, meta.json, as eval/datasets.py's
    synthetic sets: bases with copies are 'base', the others 'negative', copies 'edit-R'."""
    if os.path.exists(os.path.join(directory, "meta.json")):
        return
    rng = random.Random(ZIPF["seed"])
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = set()
    while len(vocabulary) < ZIPF["vocabulary"]:
        vocabulary.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))))
    vocabulary = sorted(vocabulary)
    rng.shuffle(vocabulary)
    cum = np.cumsum([1 / r for r in range(1, len(vocabulary) + 1)]).tolist()

    def draw(n):
        return rng.choices(vocabulary, cum_weights=cum, k=n)

    os.makedirs(directory + ".tmp", exist_ok=True)
    tmp = directory + ".tmp"
    categories = [f"edit-{round(r * 100)}" for r in ZIPF["rates"]]
    with open(os.path.join(tmp, "docs.tsv"), "w") as docs, open(os.path.join(tmp, "gold.tsv"), "w") as gold, \
            open(os.path.join(tmp, "categories.tsv"), "w") as cats:
        for i in range(ZIPF["bases"]):
            base = draw(rng.randint(400, 600))
            name = f"z{i}"
            docs.write(f"{name}\t{' '.join(base)}\n")
            if i % ZIPF["copy_every"]:
                cats.write(f"{name}\tnegative\n")
                continue
            cats.write(f"{name}\tbase\n")
            gold.write(f"{name}\t{name}\n")
            for rate, category in zip(ZIPF["rates"], categories):
                copy = list(base)
                edits = max(1, round(rate * len(base)))
                for position, word in zip(rng.sample(range(len(base)), edits), draw(edits)):
                    copy[position] = word
                docs.write(f"{name}#{category}\t{' '.join(copy)}\n")
                gold.write(f"{name}#{category}\t{name}\n")
                cats.write(f"{name}#{category}\t{category}\n")
    families = len(range(0, ZIPF["bases"], ZIPF["copy_every"]))
    meta = {"kind": "synthetic", "language": "zipf", "gold_format": "labels", "categories": categories,
            "bases": families, "negatives": ZIPF["bases"] - families,
            "documents": ZIPF["bases"] + families * len(ZIPF["rates"]), "generator": ZIPF}
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    os.rename(tmp, directory)


# --- fingerprints -------------------------------------------------------------------------------


def read_fingerprints(path, bits):
    """(ids, uint64 array n x words, word 0 the low 64 bits); empty payloads (documents without
    items) have no fingerprint and are left out, as sh-pairs leaves them out."""
    words = bits // 64
    ids, values = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            doc_id, _, payload = line.rstrip("\n").partition("\t")
            if not payload:
                continue
            if bits > 64 and len(payload) != 2 + bits // 4:
                sys.exit(f"wide: {path}: not a {bits}-bit fingerprint: {payload!r}")
            v = int(payload, 0)
            ids.append(doc_id)
            values.append([(v >> (64 * w)) & MASK for w in range(words)])
    return ids, np.array(values, dtype=np.uint64).reshape(-1, words)


# --- the pair finder: one function, two backends ------------------------------------------------


def sh_pairs_is_wide(bin_dir):
    """True when sh-pairs has the wide search (its --help offers --word-k)."""
    done = subprocess.run([os.path.join(bin_dir, "sh-pairs"), "--help"], capture_output=True, text=True)
    return "--word-k" in done.stdout


def brute_force(fp, max_k):
    """Every pair i < j whose total distance is <= max_k: arrays i, j, total, smallest word
    distance. Blockwise over all pairs: XOR and popcount (np.bitwise_count) per 64-bit word."""
    n, words = fp.shape
    rows = max(1, 3_000_000 // max(n, 1))
    out = ([], [], [], [])
    for i0 in range(0, n, rows):
        i1 = min(n, i0 + rows)
        total = np.zeros((i1 - i0, n - i0), dtype=np.uint16)
        least = np.full((i1 - i0, n - i0), 255, dtype=np.uint8)
        for w in range(words):
            d = np.bitwise_count(fp[i0:i1, w][:, None] ^ fp[i0:, w][None, :])
            total += d
            np.minimum(least, d, out=least)
        r, c = np.nonzero(total <= max_k)
        keep = c > r
        r, c = r[keep], c[keep]
        out[0].append((r + i0).astype(np.int32))
        out[1].append((c + i0).astype(np.int32))
        out[2].append(total[r, c])
        out[3].append(least[r, c])
    return tuple(np.concatenate(a) for a in out)


class PairFinder:
    """find(fp_path, bits, max_k, word_k=None): the pairs (i, j, total) of the records of
    fp_path with total distance <= max_k and, when word_k is given, some 64-bit word within
    word_k bits (i < j, indices into the file's non-empty records). Backend 'sh-pairs' runs
    `sh-pairs -k max_k [--word-k word_k]`; backend 'brute force' searches every pair once per
    file (at MAX_K of the width, cached in a .npz beside the file) and filters."""

    def __init__(self, bin_dir, backend):
        self.bin = bin_dir
        self.backend = backend
        self.cache = {}

    def ids(self, fp_path, bits):
        return self._load(fp_path, bits)[0]

    def _load(self, fp_path, bits):
        if fp_path not in self.cache:
            ids, fp = read_fingerprints(fp_path, bits)
            self.cache.clear()
            self.cache[fp_path] = (ids, fp, None)
        return self.cache[fp_path]

    def brute(self, fp_path, bits):
        """(i, j, total, least) at MAX_K[bits], computed once."""
        ids, fp, found = self._load(fp_path, bits)
        if found is None:
            saved = fp_path + f".pairs-{MAX_K[bits]}.npz"
            if os.path.exists(saved) and os.path.getmtime(saved) >= os.path.getmtime(fp_path):
                z = np.load(saved)
                found = (z["i"], z["j"], z["total"], z["least"])
            else:
                found = brute_force(fp, MAX_K[bits])
                np.savez(saved, i=found[0], j=found[1], total=found[2], least=found[3])
            self.cache[fp_path] = (ids, fp, found)
        return found

    def find(self, fp_path, bits, max_k, word_k=None):
        if self.backend == "sh-pairs":
            return self._sh_pairs(fp_path, bits, max_k, word_k)
        i, j, total, least = self.brute(fp_path, bits)
        keep = total <= max_k
        if word_k is not None and bits > 64:
            keep &= least <= word_k
        return i[keep], j[keep], total[keep]

    def _sh_pairs(self, fp_path, bits, max_k, word_k):
        flags = f"-k {max_k}" + (f" --word-k {word_k}" if word_k is not None and bits > 64 else "")
        done = sh(f"{os.path.join(self.bin, 'sh-pairs')} --quiet {flags} < {fp_path}",
                  capture_output=True, text=True)
        index = {doc_id: n for n, doc_id in enumerate(self.ids(fp_path, bits))}
        i, j, total = [], [], []
        for line in done.stdout.splitlines():
            a, b, d = line.split("\t")[:3]
            a, b = index[a], index[b]
            i.append(min(a, b))
            j.append(max(a, b))
            total.append(int(d))
        return np.array(i, np.int32), np.array(j, np.int32), np.array(total, np.uint16)


# --- scoring ------------------------------------------------------------------------------------


class Gold:
    """The gold pairs of a set and its categories (as eval/evaluate.py and corpusstats.py make
    them): 'all', and per category the pairs among the bases, negatives and that category's
    copies (synthetic sets) or among one source's documents (real pages)."""

    def __init__(self, set_dir):
        with open(os.path.join(set_dir, "meta.json")) as f:
            self.meta = json.load(f)
        self.ids = [line.split("\t", 1)[0] for line in open(os.path.join(set_dir, "docs.tsv"), encoding="utf-8")]
        self.index = {d: n for n, d in enumerate(self.ids)}
        n = len(self.ids)
        pairs = []
        rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(set_dir, "gold.tsv"), encoding="utf-8")]
        if self.meta["gold_format"] == "labels":
            groups = {}
            for doc_id, label in rows[:]:
                groups.setdefault(label, []).append(self.index[doc_id])
            for members in groups.values():
                members = sorted(set(members))
                pairs += [(a, b) for x, a in enumerate(members) for b in members[x + 1:]]
        else:
            pairs = [tuple(sorted((self.index[r[0]], self.index[r[1]]))) for r in rows]
        self.keys = np.unique(np.array([a * n + b for a, b in pairs], dtype=np.int64))
        self.members = {"all": None}
        kind = self.meta["kind"]
        if kind in ("synthetic", "realpages"):
            category_of = dict(line.rstrip("\n").split("\t")
                               for line in open(os.path.join(set_dir, "categories.tsv"), encoding="utf-8"))
            cats = np.array([category_of.get(d, "") for d in self.ids])
            for c in self.meta["categories"]:
                if kind == "synthetic":
                    self.members[c] = np.isin(cats, ["base", "negative", c])
                else:
                    self.members[c] = cats == c
        self.gold_count = {}
        a, b = self.keys // n, self.keys % n
        for c, m in self.members.items():
            self.gold_count[c] = len(self.keys) if m is None else int(np.sum(m[a] & m[b]))

    def score(self, i, j, total, max_k):
        """{category: [(tp, fp, fn) for K in 0..max_k]} for pairs (doc indices) with totals."""
        n = len(self.ids)
        a, b = np.minimum(i, j).astype(np.int64), np.maximum(i, j).astype(np.int64)
        true = np.isin(a * n + b, self.keys)
        out = {}
        for c, m in self.members.items():
            sel = np.ones(len(a), bool) if m is None else (m[a] & m[b])
            tp = np.cumsum(np.bincount(total[sel & true], minlength=max_k + 1)[:max_k + 1])
            fp = np.cumsum(np.bincount(total[sel & ~true], minlength=max_k + 1)[:max_k + 1])
            out[c] = [(int(t), int(f), self.gold_count[c] - int(t)) for t, f in zip(tp, fp)]
        return out


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 1.0
    return p, r, f1


# --- the recall formula of the approximate rule -------------------------------------------------


def p_found(d, words, k):
    """P(some word within k bits) for a pair at total distance d over `words` 64-bit words, the
    d differing bits placed uniformly at random: 1 - N(d) / C(64 words, d), N(d) the ways with
    every word more than k bits apart."""
    per_word = [comb(64, x) if x > k else 0 for x in range(65)]
    poly = [1]
    for _ in range(words):
        nxt = [0] * (len(poly) + 64)
        for x, cx in enumerate(poly):
            if cx:
                for y, cy in enumerate(per_word):
                    if cy:
                        nxt[x + y] += cx * cy
        poly = nxt
    ways = poly[d] if d < len(poly) else 0
    return 1 - ways / comb(64 * words, d)


# --- the evaluation -----------------------------------------------------------------------------


class Wide:
    def __init__(self, args):
        self.args = args
        self.results = {}  # (set, bits, window, pipeline, rule, category) -> [(tp, fp, fn) per K]
        self.times = {}
        self.notes = []
        self.minhash = {}  # (set, library, window, threshold, category) -> (tp, fp, fn)
        self.formula = []  # rows of the recall-formula check
        self.cost = {}  # k: (seconds, pairs) of one 64-bit word search on 1M random fingerprints
        self.backend = "sh-pairs" if sh_pairs_is_wide(args.bin) else "brute force"
        self.finder = PairFinder(args.bin, self.backend)

    def tool(self, name):
        return os.path.join(self.args.bin, name)

    def fingerprints(self, name, window):
        """The fingerprint files of a set and window: {(pipeline, bits): path}."""
        docs = os.path.join(self.args.sets, name, "docs.tsv")
        work = os.path.join(self.args.work, name, f"w{window}")
        os.makedirs(work, exist_ok=True)
        hashes, table = os.path.join(work, "hashes.tsv"), os.path.join(work, "df.tsv")
        paths = {(p, bits): os.path.join(work, f"fp-{p}-{bits}.tsv") for p in PIPELINES for bits in WIDTHS}
        if all(os.path.exists(p) for p in paths.values()):
            return paths
        t0 = time.perf_counter()
        sh(f"{self.tool('sh-tokenize')} --with-id < {docs} | {self.tool('sh-shingle')} -w {window}"
           f" | {self.tool('sh-hash')} > {hashes}")
        sh(f"{self.tool('sh-df')} --quiet < {hashes} > {table}")
        self.times[(name, window, "tokenize | shingle | hash, sh-df")] = time.perf_counter() - t0
        for pipeline, flags in PIPELINES.items():
            source = hashes
            if flags is not None:
                source = os.path.join(work, "weighted.tsv")
                sh(f"{self.tool('sh-weight')} --quiet --df {table} {' '.join(flags)} < {hashes} > {source}")
            for bits in WIDTHS:
                t0 = time.perf_counter()
                sh(f"{self.tool('sh-compute')} --bits {bits} < {source} > {paths[(pipeline, bits)]}.tmp"
                   f" && mv {paths[(pipeline, bits)]}.tmp {paths[(pipeline, bits)]}")
                self.times[(name, window, f"sh-compute --bits {bits} ({pipeline})")] = time.perf_counter() - t0
        for path in (hashes, os.path.join(work, "weighted.tsv")):
            if os.path.exists(path):
                os.remove(path)
        return paths

    def check_against_sh_pairs(self, name, window, paths, gold):
        """At 64 bits sh-pairs is the reference: the brute force must give the same pairs and
        distances. Word 0 of the wide fingerprints must be the 64-bit fingerprint. And the
        scorer here must count as sh-score does (at 64 bits for every K, at 256 bits for one K,
        pairs given without their distance since sh-score reads distances up to 64 only)."""
        path = paths[("df", 64)]
        done = sh(f"{self.tool('sh-pairs')} --quiet -k {MAX_K[64]} < {path}", capture_output=True, text=True)
        ids = self.finder.ids(path, 64)
        index = {d: n for n, d in enumerate(ids)}
        theirs = sorted((min(index[a], index[b]), max(index[a], index[b]), int(d))
                        for a, b, d in (l.split("\t")[:3] for l in done.stdout.splitlines()))
        i, j, total = self.finder.find(path, 64, MAX_K[64])
        ours = sorted(zip(i.tolist(), j.tolist(), total.tolist()))
        same = ours == theirs
        _, fp64 = read_fingerprints(path, 64)
        low = {bits: np.array_equal(read_fingerprints(paths[("df", bits)], bits)[1][:, 0], fp64[:, 0])
               for bits in (128, 256)}
        note = (f"{name} w={window} df: brute force at 64 bits, K <= {MAX_K[64]}: {len(ours)} pairs, "
                f"{'identical to' if same else 'DIFFERENT FROM'} sh-pairs ({len(theirs)}); word 0 of 128/256 "
                f"= the 64-bit fingerprint: {low[128]}/{low[256]}")
        self.notes.append(note)
        log(note)
        if not same:
            sys.exit("wide: the brute force disagrees with sh-pairs at 64 bits")
        fmt = gold.meta["gold_format"]
        gold_file = os.path.join(self.args.sets, name, "gold.tsv")
        score = f"{self.tool('sh-score')} --gold {gold_file} --gold-format {fmt} --format json"
        to_doc = np.array([gold.index[d] for d in ids], dtype=np.int64)
        mine = gold.score(to_doc[i], to_doc[j], total, MAX_K[64])["all"]
        done = sh(f"{score} --by-distance --distance {MAX_K[64]}", input=done.stdout, capture_output=True, text=True)
        theirs64 = [(r["tp"], r["fp"], r["fn"]) for r in map(json.loads, done.stdout.splitlines())]
        path256, k256 = paths[("df", 256)], 40
        ids256 = self.finder.ids(path256, 256)
        i, j, total = self.finder.find(path256, 256, k256)
        lines = "".join(f"{ids256[a]}\t{ids256[b]}\n" for a, b in zip(i.tolist(), j.tolist()))
        r = json.loads(sh(score, input=lines, capture_output=True, text=True).stdout.splitlines()[0])
        to_doc = np.array([gold.index[d] for d in ids256], dtype=np.int64)
        mine256 = gold.score(to_doc[i], to_doc[j], total, k256)["all"][k256]
        agree = mine == theirs64 and mine256 == (r["tp"], r["fp"], r["fn"])
        note = (f"{name} w={window} df: the scorer against sh-score (64 bits, K 0-{MAX_K[64]}; 256 bits, "
                f"K {k256}: TP/FP/FN {mine256}): {'identical' if agree else 'DIFFERENT'}")
        self.notes.append(note)
        log(note)
        if not agree:
            sys.exit("wide: the scorer disagrees with sh-score")

    def simhash(self, name):
        gold = Gold(os.path.join(self.args.sets, name))
        for window in WINDOWS:
            paths = self.fingerprints(name, window)
            if window == 2 and name in ("licenses", "zipf", "realpages-5"):
                self.check_against_sh_pairs(name, window, paths, gold)
            for (pipeline, bits), path in paths.items():
                ids = self.finder.ids(path, bits)
                to_doc = np.array([gold.index[d] for d in ids], dtype=np.int64)
                t0 = time.perf_counter()
                rules = [None] + (WORD_KS if bits > 64 else [])
                for word_k in rules:
                    i, j, total = self.finder.find(path, bits, MAX_K[bits], word_k)
                    scores = gold.score(to_doc[i], to_doc[j], total, MAX_K[bits])
                    rule = "exact" if word_k is None else f"k{word_k}"
                    for c, rows in scores.items():
                        self.results[(name, bits, window, pipeline, rule, c)] = rows
                    if word_k is None and bits > 64 and window == 2:
                        self.formula_check(name, window, pipeline, bits, gold, to_doc, path)
                elapsed = time.perf_counter() - t0
                self.times[(name, window, f"pairs and scores {bits} ({pipeline})")] = elapsed
                rows = self.results[(name, bits, window, pipeline, "exact", "all")]
                best = max(range(len(rows)), key=lambda k: prf(*rows[k])[2])
                p, r, f1 = prf(*rows[best])
                log(f"{name} w={window} {pipeline} {bits} bits: best F1 {f1:.3f} at K={best} "
                    f"(P {p:.3f} R {r:.3f}), {elapsed:.1f}s")

    def formula_check(self, name, window, pipeline, bits, gold, to_doc, path):
        """Predicted against measured recall of the approximate rule, relative to the exact rule,
        over the true pairs the exact rule finds at each K of FORMULA_K."""
        words = bits // 64
        i, j, total = self.finder.find(path, bits, MAX_K[bits])
        n = len(gold.ids)
        a, b = np.minimum(to_doc[i], to_doc[j]), np.maximum(to_doc[i], to_doc[j])
        true = np.isin(a * n + b, gold.keys)
        for word_k in WORD_KS:
            ai, aj, atotal = self.finder.find(path, bits, MAX_K[bits], word_k)
            aa, ab = np.minimum(to_doc[ai], to_doc[aj]), np.maximum(to_doc[ai], to_doc[aj])
            atrue = np.isin(aa * n + ab, gold.keys)
            for k in FORMULA_K[bits]:
                if word_k >= k // words:
                    continue  # the approximate rule is exact there
                dists = total[true & (total <= k)]
                if not len(dists):
                    continue
                predicted = float(np.mean([P_FOUND(int(d), words, word_k) for d in dists]))
                measured = int(np.sum(atrue & (atotal <= k))) / len(dists)
                self.formula.append({"set": name, "window": window, "pipeline": pipeline, "bits": bits,
                                     "K": k, "word_k": word_k, "true_pairs": len(dists),
                                     "predicted": predicted, "measured": measured})

    def run_minhash(self, names):
        """MinHash LSH: rows of --minhash-results where present, eval/corpusstats.py's code on
        the rest (same thresholds and windows)."""
        have = set()
        if self.args.minhash_results and os.path.exists(self.args.minhash_results):
            with open(self.args.minhash_results, encoding="utf-8") as f:
                for r in csv.DictReader(f, delimiter="\t"):
                    if r["method"] in ("datasketch", "rensa") and r["set"] in names:
                        key = (r["set"], r["method"], int(r["window"]), float(r["variant"]), r["category"])
                        self.minhash[key] = (int(r["tp"]), int(r["fp"]), int(r["fn"]))
                        have.add(r["set"])
            for s in sorted(have):
                self.notes.append(f"MinHash LSH on {s}: read from {self.args.minhash_results}")
        missing = [s for s in names if s not in have]
        if not missing:
            return
        import types
        import corpusstats

        corpusstats.THRESHOLDS = THRESHOLDS
        ns = types.SimpleNamespace(sets=self.args.sets, work=os.path.join(self.args.work, "minhash"),
                                   bin=self.args.bin, stats_bin=self.args.bin, sets_only=missing,
                                   python_weights=False)
        run = corpusstats.Run(ns)
        for s in missing:
            t0 = time.perf_counter()
            run.minhash(s, WINDOWS, THRESHOLDS)
            self.times[(s, 0, "MinHash LSH (datasketch and rensa, all windows and thresholds)")] = \
                time.perf_counter() - t0
            self.notes.append(f"MinHash LSH on {s}: run here (eval/corpusstats.py's Run.minhash)")
        for (s, library, (window, threshold), category), rows in run.scores.items():
            r = rows[0]
            self.minhash[(s, library, window, threshold, category)] = (r["tp"], r["fp"], r["fn"])


def word_search_cost(bin_dir, work, ks=range(5, 13), runs=2):
    """The cost of one 64-bit word's search at k, the unit of the wide search's cost (a search
    of L words at k costs about L times it): sh-pairs -k k on 1,000,000 random 64-bit
    fingerprints (seeded as eval/evaluate.py's scale table), the least wall time of `runs`
    runs, and the chance pairs found. {k: (seconds, pairs)}."""
    path = os.path.join(work, "random-1m.txt")
    if not os.path.exists(path):
        rng = random.Random(1)
        with open(path, "w") as f:
            f.writelines(f"{rng.getrandbits(64)}\n" for _ in range(1_000_000))
    out = {}
    for k in ks:
        best, pairs = None, None
        for _ in range(runs):
            t0 = time.perf_counter()
            done = sh(f"{os.path.join(bin_dir, 'sh-pairs')} --quiet -k {k} < {path} | wc -l",
                      capture_output=True, text=True)
            elapsed = time.perf_counter() - t0
            best = elapsed if best is None else min(best, elapsed)
            pairs = int(done.stdout)
        out[k] = (best, pairs)
        log(f"1M random 64-bit fingerprints, sh-pairs -k {k}: {best:.2f}s, {pairs} pairs")
    return out


FORMULA_K = {128: [16, 20, 24, 32], 256: [32, 40, 44, 48]}
_memo = {}


def P_FOUND(d, words, k):
    if (d, words, k) not in _memo:
        _memo[(d, words, k)] = p_found(d, words, k)
    return _memo[(d, words, k)]


def write_results(wide, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write("set\tmethod\tbits\twindow\tpipeline\trule\tk_or_threshold\tcategory\ttp\tfp\tfn\tprecision\trecall\tf1\n")
        for (name, bits, window, pipeline, rule, c), rows in sorted(wide.results.items(), key=str):
            for k, (tp, fp, fn) in enumerate(rows):
                p, r, f1 = prf(tp, fp, fn)
                f.write(f"{name}\tsimhash\t{bits}\t{window}\t{pipeline}\t{rule}\t{k}\t{c}\t{tp}\t{fp}\t{fn}"
                        f"\t{p:.4f}\t{r:.4f}\t{f1:.4f}\n")
        for (name, library, window, threshold, c), (tp, fp, fn) in sorted(wide.minhash.items(), key=str):
            p, r, f1 = prf(tp, fp, fn)
            f.write(f"{name}\t{library}\t\t{window}\t\t\t{threshold}\t{c}\t{tp}\t{fp}\t{fn}\t{p:.4f}\t{r:.4f}\t{f1:.4f}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--bin", required=True, help="directory of the release binaries")
    parser.add_argument("--work", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--minhash-results", help="corpusstats.py's TSV, whose MinHash rows are reused")
    parser.add_argument("--reuse", action="store_true", help="tables again from the saved scores")
    parser.add_argument("--sets-only", nargs="*")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    saved = os.path.join(args.work, "wide-scores.pickle")
    names = args.sets_only or SETS
    wide = Wide(args)
    if args.reuse:
        with open(saved, "rb") as f:
            (wide.results, wide.times, wide.notes, wide.minhash, wide.formula, wide.backend, wide.cost) = pickle.load(f)
    else:
        started = time.perf_counter()
        make_zipf(os.path.join(args.sets, "zipf"))
        log(f"pair finder: {wide.backend}")
        for name in names:
            wide.simhash(name)
        wide.run_minhash(names)
        wide.cost = word_search_cost(args.bin, args.work)
        wide.times[("all", 0, "wide.py")] = time.perf_counter() - started
        with open(saved, "wb") as f:
            pickle.dump((wide.results, wide.times, wide.notes, wide.minhash, wide.formula, wide.backend, wide.cost), f)
    write_results(wide, args.results)
    import widereport
    widereport.write(wide, args.report, names)


if __name__ == "__main__":
    main()
