"""The corpus-statistics evaluation of eval/run.sh (issue #11): on every set (synthetic, licenses,
cjk, realpages-2, realpages-5), for shingle windows 2-4, the plain pipeline and the pipeline with
document frequencies (sh-df, then sh-weight --df with each variant of VARIANTS), every K 0-12
from one `sh-pairs -k 12` run, scored with `sh-score --by-distance`; MinHash LSH (datasketch and
rensa, 128 permutations) on the same shingles at a few thresholds. Writes every score
(corpus-results.tsv) and the tables (corpus-report.md, by corpusreport.py).

    sh-tokenize --with-id < docs | sh-shingle -w W | sh-hash > hashes
    sh-df < hashes > df
    sh-weight --df df [VARIANT] < hashes | sh-compute | sh-pairs -k 12 | sh-score --by-distance

sh-df and sh-weight come from --stats-bin (default: --bin). --python-weights computes the same
transformation in Python instead (the prototype the evaluation was developed with, kept to check
the commands against: --check-weights compares the two on the 2% real pages).
"""

import argparse
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import time
import types

import corpusreport
import evaluate

SETS = ["synthetic", "licenses", "cjk", "realpages-2", "realpages-5", "families"]
WINDOWS = [2, 3, 4]
MAX_K = 12
# name: the flags of sh-weight (None: the plain pipeline, no sh-weight)
# name: the flags of sh-weight (None: the plain pipeline, no sh-weight). sh-weight leaves an item
# out only when it is in more than max(F * N, --df-floor) documents (N the corpus's documents;
# --df-floor 50 by default): in a small corpus F * N is a handful of documents, fewer than a family
# of real variants (the BSD licenses). The variants without "floor" set it to 0.
VARIANTS = {
    "plain": None,
    "--df alone": [],
    # --min-kept F: a document of which the table keeps less than F of the items (outside a run
    # of items left out over half of it, where there is one, and then in runs of at most 4)
    # keeps them all (sh-weight's default: 0.1; 0 only when it keeps none).
    "--df alone, min-kept 0": ["--min-kept", "0"],
    "--df alone, min-kept 0.2": ["--min-kept", "0.2"],
    "--df alone, min-kept 0.3": ["--min-kept", "0.3"],
    "max-df 0.01": ["--max-df", "0.01", "--df-floor", "0", "--max-tf", "0"],
    "max-df 0.02": ["--max-df", "0.02", "--df-floor", "0", "--max-tf", "0"],
    "max-df 0.05": ["--max-df", "0.05", "--df-floor", "0", "--max-tf", "0"],
    "max-df 0.1": ["--max-df", "0.1", "--df-floor", "0", "--max-tf", "0"],
    "max-df 0.2": ["--max-df", "0.2", "--df-floor", "0", "--max-tf", "0"],
    "idf": ["--idf", "--max-tf", "0"],
    "idf + max-df 0.05": ["--idf", "--max-df", "0.05", "--df-floor", "0", "--max-tf", "0"],
    "idf + max-df 0.1": ["--idf", "--max-df", "0.1", "--df-floor", "0", "--max-tf", "0"],
    "max-df 0.01, floor 50": ["--max-df", "0.01", "--df-floor", "50", "--max-tf", "0"],
    "max-df 0.02, floor 50": ["--max-df", "0.02", "--df-floor", "50", "--max-tf", "0"],
    # --max-tf N: at most N occurrences of an item in one document (sh-weight's default: 8).
    "max-df 0.02, floor 50, max-tf 4": ["--max-df", "0.02", "--df-floor", "50", "--max-tf", "4"],
    "max-df 0.02, floor 50, max-tf 8": ["--max-df", "0.02", "--df-floor", "50", "--max-tf", "8"],
    "max-tf 8": ["--max-df", "1", "--df-floor", "0", "--max-tf", "8"],
    "max-tf 1": ["--max-df", "1", "--df-floor", "0", "--max-tf", "1"],
}
# The same, with one table per site (the real pages' source: what precedes ':' in the id), each
# site's documents weighed by its own table; run on the real pages only.
SITE_VARIANTS = {
    "per-site max-df 0.05": ["--max-df", "0.05", "--df-floor", "0", "--max-tf", "0"],
    "per-site max-df 0.2": ["--max-df", "0.2", "--df-floor", "0", "--max-tf", "0"],
    "per-site idf": ["--idf", "--max-tf", "0"],
}
CHECK_SET = "realpages-2"  # where --check-weights compares the command with the prototype
THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9]
NUM_PERM = 128
QUICK = {"windows": [2], "variants": ["plain", "--df alone", "max-df 0.05", "idf"],
         "thresholds": [0.7]}


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def sh(command, **kw):
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], **kw)
    if done.returncode != 0:
        sys.exit(f"corpusstats: failed ({done.returncode}): {command}")
    return done


# --- the Python prototype of sh-weight --------------------------------------------------------


def read_table(path):
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        n = int(head[1])
        df = {}
        for line in f:
            item, _, count = line.rstrip("\n").partition("\t")
            df[item] = int(count)
    return n, df


def python_weights(table, flags, source, target):
    """What sh-weight --df TABLE FLAGS does, as its manual tells: --max-df F leaves out items in
    more than max(F * N, --df-floor) documents (floor 50 unless given); --idf writes
    ITEM:ln(N/df) with four decimals (an item not in the table weighs as the rarest; one
    rounding to 0 is left out); neither: --max-df 0.02; --max-tf N (8 unless given, 0: no
    limit) keeps the first N occurrences of an item in a document; a document whose every item
    would go, or of which the table keeps less than --min-kept F of the items (0.1 unless
    given; where one run of items left out in a row covers more than half of the document, of
    the items outside it, and only if no more than 4 items in a row are kept), keeps all of them
    (up to N occurrences each); --min-run R (1 unless given) keeps the items over the limit that
    stand in a run of fewer than R of them in a row."""
    n, df = read_table(table)
    idf = "--idf" in flags
    max_df = float(flags[flags.index("--max-df") + 1]) if "--max-df" in flags else None
    floor = int(flags[flags.index("--df-floor") + 1]) if "--df-floor" in flags else 50
    if max_df is None and not idf:
        max_df = 0.02
    limit = max(max_df * n, floor) if max_df is not None else math.inf
    max_tf = int(flags[flags.index("--max-tf") + 1]) if "--max-tf" in flags else 8
    max_tf = max_tf or math.inf
    min_kept = float(flags[flags.index("--min-kept") + 1]) if "--min-kept" in flags else 0.1
    min_run = int(flags[flags.index("--min-run") + 1]) if "--min-run" in flags else 1

    def capped(items):
        seen = {}
        for item in items:
            seen[item] = seen.get(item, 0) + 1
            if seen[item] <= max_tf:
                yield item
    rarest = min(df.values()) if df else 1
    with open(source, encoding="utf-8") as f, open(target, "w", encoding="utf-8") as out:
        for line in f:
            line = line.rstrip("\n")
            doc_id, tab, payload = line.rpartition("\t")
            items = payload.split()
            table_kept = [item for item in items if df.get(item, rarest) <= limit]
            run = longest_out = kept_run = longest_kept = 0
            for item in items:
                if df.get(item, rarest) <= limit:
                    run, kept_run = 0, kept_run + 1
                else:
                    run, kept_run = run + 1, 0
                longest_out, longest_kept = max(longest_out, run), max(longest_kept, kept_run)
            # The rule keeps what the table keeps, and the items over the limit in runs of
            # fewer than --min-run in a row.
            rule_kept, start = [], 0
            for end in range(1, len(items) + 1):
                if end == len(items) or (df.get(items[end], rarest) <= limit) != (df.get(items[start], rarest) <= limit):
                    if df.get(items[start], rarest) <= limit or end - start < min_run:
                        rule_kept += items[start:end]
                    start = end
            kept = []
            for item in capped(rule_kept):
                count = df.get(item, rarest)
                if idf:
                    weight = round(math.log(n / count), 4)
                    if weight == 0:
                        continue
                    kept.append(f"{item}:{weight:.4f}")
                else:
                    kept.append(item)
            if 2 * longest_out <= len(items):
                too_few = len(table_kept) < min_kept * len(items)
            else:
                too_few = longest_kept <= 4 and len(table_kept) < min_kept * (len(items) - longest_out)
            if not kept or too_few:
                kept = list(capped(items))
            out.write(doc_id + tab + " ".join(kept) + "\n")


# --- the evaluation ---------------------------------------------------------------------------


class Run:
    def __init__(self, args):
        self.args = args
        self.meta = {}
        for name in args.sets_only or SETS:
            with open(os.path.join(args.sets, name, "meta.json"), encoding="utf-8") as f:
                self.meta[name] = json.load(f)
        self.scores = {}  # (set, method, config, category) -> [rows]
        self.times = {}
        self.notes = []
        os.makedirs(args.work, exist_ok=True)

    def tool(self, name):
        directory = self.args.stats_bin if name in ("sh-df", "sh-weight") else self.args.bin
        return os.path.join(directory, name)

    def subsets(self, name):
        """{category: (ids or None, gold file)}: evaluate.py's for the synthetic and license
        sets; for the real pages, every source's pages and copies."""
        if self.meta[name]["kind"] != "realpages":
            shim = types.SimpleNamespace(args=types.SimpleNamespace(sets=self.args.sets, work=self.args.work),
                                         meta=self.meta)
            return evaluate.Evaluation.subsets(shim, name)
        base = os.path.join(self.args.sets, name)
        work = os.path.join(self.args.work, name, "gold")
        os.makedirs(work, exist_ok=True)
        source_of = dict(line.rstrip("\n").split("\t") for line in open(os.path.join(base, "categories.tsv")))
        labels = [line.rstrip("\n").split("\t") for line in open(os.path.join(base, "gold.tsv"))]
        result = {"all": (None, os.path.join(base, "gold.tsv"))}
        for source in self.meta[name]["categories"]:
            ids = {i for i, s in source_of.items() if s == source}
            path = os.path.join(work, f"{source}.tsv")
            with open(path, "w") as f:
                f.writelines(f"{i}\t{label}\n" for i, label in labels if i in ids)
            result[source] = (ids, path)
        return result

    def score(self, name, pairs_path, subsets, by_distance):
        fmt = self.meta[name]["gold_format"]
        with open(pairs_path) as f:
            lines = f.readlines()
        out = {}
        for category, (ids, gold) in subsets.items():
            data = "".join(lines) if ids is None else "".join(l for l in lines if evaluate.subset_pair(l, ids))
            command = f"{self.tool('sh-score')} --gold {gold} --gold-format {fmt} --format json"
            if by_distance:
                command += f" --by-distance --distance {MAX_K}"
            done = sh(command, input=data, capture_output=True, text=True)
            out[category] = [json.loads(line) for line in done.stdout.splitlines()]
        return out

    def weigh(self, table, flags, hashes, target):
        if self.args.python_weights:
            python_weights(table, flags, hashes, target)
        else:
            sh(f"{self.tool('sh-weight')} --quiet --df {table} {' '.join(flags)} < {hashes} > {target}")

    def weigh_per_site(self, flags, hashes, target):
        """sh-df and sh-weight on each site's documents apart, the results concatenated."""
        directory = os.path.join(os.path.dirname(target), "sites")
        os.makedirs(directory, exist_ok=True)
        files = {}
        with open(hashes, encoding="utf-8") as f:
            for line in f:
                site = line.partition(":")[0]
                if site not in files:
                    files[site] = open(os.path.join(directory, f"{site}.tsv"), "w", encoding="utf-8")
                files[site].write(line)
        for handle in files.values():
            handle.close()
        with open(target, "w", encoding="utf-8"):
            pass
        for site in sorted(files):
            part, table = os.path.join(directory, f"{site}.tsv"), os.path.join(directory, f"{site}.df")
            sh(f"{self.tool('sh-df')} --quiet < {part} > {table}")
            self.weigh(table, flags, part, part + ".weighted")
            sh(f"cat {part}.weighted >> {target}")
        shutil.rmtree(directory)

    def simhash(self, name, variants, windows):
        subsets = self.subsets(name)
        docs = os.path.join(self.args.sets, name, "docs.tsv")
        for window in windows:
            work = os.path.join(self.args.work, name, f"w{window}")
            os.makedirs(work, exist_ok=True)
            hashes, table = os.path.join(work, "hashes.tsv"), os.path.join(work, "df.tsv")
            weighted, pairs = os.path.join(work, "weighted.tsv"), os.path.join(work, "pairs.tsv")
            t0 = time.perf_counter()
            sh(f"{self.tool('sh-tokenize')} --with-id < {docs} | {self.tool('sh-shingle')} -w {window}"
               f" | {self.tool('sh-hash')} > {hashes}")
            t1 = time.perf_counter()
            sh(f"{self.tool('sh-df')} --quiet < {hashes} > {table}")
            t2 = time.perf_counter()
            self.times[(name, window, "tokenize | shingle | hash")] = t1 - t0
            self.times[(name, window, "sh-df")] = t2 - t1
            site_variants = list(SITE_VARIANTS) if self.meta[name]["kind"] == "realpages" else []
            for variant in variants + site_variants:
                flags = VARIANTS[variant] if variant in VARIANTS else SITE_VARIANTS[variant]
                t0 = time.perf_counter()
                if flags is None:
                    source = hashes
                elif variant in SITE_VARIANTS:
                    self.weigh_per_site(flags, hashes, weighted)
                    source = weighted
                else:
                    self.weigh(table, flags, hashes, weighted)
                    source = weighted
                t1 = time.perf_counter()
                sh(f"{self.tool('sh-compute')} < {source} | {self.tool('sh-pairs')} --quiet -k {MAX_K} > {pairs}")
                t2 = time.perf_counter()
                self.times[(name, window, f"sh-weight {variant}")] = t1 - t0
                self.times[(name, window, f"compute + pairs {variant}")] = t2 - t1
                for category, rows in self.score(name, pairs, subsets, True).items():
                    self.scores[(name, "simhash", (window, variant), category)] = rows
                rows = self.scores[(name, "simhash", (window, variant), "all")]
                best = max(rows, key=lambda r: r["f1"])
                log(f"{name} w={window} {variant}: weight {t1 - t0:.1f}s, compute+pairs {t2 - t1:.1f}s; "
                    f"best F1 {best['f1']:.3f} at K={best['k']} (P {best['precision']:.3f} R {best['recall']:.3f})")
            for path in (hashes, weighted):
                if os.path.exists(path):
                    os.remove(path)

    def check_weights(self, name, window):
        """The commands against the prototype: identical output for every variant."""
        docs = os.path.join(self.args.sets, name, "docs.tsv")
        work = os.path.join(self.args.work, name, "check")
        os.makedirs(work, exist_ok=True)
        hashes, table = os.path.join(work, "hashes.tsv"), os.path.join(work, "df.tsv")
        sh(f"{self.tool('sh-tokenize')} --with-id < {docs} | {self.tool('sh-shingle')} -w {window}"
           f" | {self.tool('sh-hash')} > {hashes}; {self.tool('sh-df')} --quiet < {hashes} > {table}")
        for variant, flags in VARIANTS.items():
            if flags is None:
                continue
            a, b = os.path.join(work, "command.tsv"), os.path.join(work, "python.tsv")
            sh(f"{self.tool('sh-weight')} --quiet --df {table} {' '.join(flags)} < {hashes} > {a}")
            python_weights(table, flags, hashes, b)
            same = sh(f"cmp -s {a} {b} && echo same || echo differ", capture_output=True, text=True).stdout.strip()
            self.notes.append(f"{name} w={window} sh-weight {variant}: {same} as the Python prototype")
            log(self.notes[-1])
        shutil.rmtree(work)

    def minhash(self, name, windows, thresholds):
        """datasketch and rensa on the shingles of sh-tokenize | sh-shingle -w W."""
        from datasketch import MinHash, MinHashLSH
        from rensa import RMinHash, RMinHashLSH

        subsets = self.subsets(name)
        docs = os.path.join(self.args.sets, name, "docs.tsv")
        for window in windows:
            work = os.path.join(self.args.work, name, f"minhash-w{window}")
            os.makedirs(work, exist_ok=True)
            shingles, pairs = os.path.join(work, "shingles.tsv"), os.path.join(work, "pairs.tsv")
            sh(f"{self.tool('sh-tokenize')} --with-id < {docs} | {self.tool('sh-shingle')} -w {window} > {shingles}")
            keys, item_lists = [], []
            with open(shingles, encoding="utf-8") as f:
                for line in f:
                    doc_id, _, payload = line.rstrip("\n").partition("\t")
                    keys.append(doc_id)
                    item_lists.append(payload.split())
            os.remove(shingles)
            t0 = time.perf_counter()
            ds = []
            for items in item_lists:
                m = MinHash(num_perm=NUM_PERM)
                if items:
                    m.update_batch([i.encode("utf-8") for i in items])
                ds.append(m)
            t1 = time.perf_counter()
            rs = []
            for items in item_lists:
                m = RMinHash(num_perm=NUM_PERM, seed=42)
                m.update(items)
                rs.append(m)
            t2 = time.perf_counter()
            self.times[(name, window, "datasketch sketches")] = t1 - t0
            self.times[(name, window, "rensa sketches")] = t2 - t1
            for threshold in thresholds:
                for library in ("datasketch", "rensa"):
                    t0 = time.perf_counter()
                    found = set()
                    if library == "datasketch":
                        lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
                        for i, m in enumerate(ds):
                            lsh.insert(i, m)
                        for i, m in enumerate(ds):
                            found.update((min(i, j), max(i, j)) for j in lsh.query(m) if j != i)
                    else:
                        lsh = RMinHashLSH(threshold=threshold, num_perm=NUM_PERM, num_bands=rensa_bands(threshold))
                        for i, m in enumerate(rs):
                            lsh.insert(i, m)
                        for i, m in enumerate(rs):
                            found.update((min(i, j), max(i, j)) for j in lsh.query(m)
                                         if j != i and m.jaccard(rs[j]) >= threshold)
                    elapsed = time.perf_counter() - t0
                    self.times[(name, window, f"{library} LSH t={threshold}")] = elapsed
                    with open(pairs, "w", encoding="utf-8") as f:
                        f.writelines(f"{keys[a]}\t{keys[b]}\n" for a, b in sorted(found))
                    for category, rows in self.score(name, pairs, subsets, False).items():
                        self.scores[(name, library, (window, threshold), category)] = rows
                    row = self.scores[(name, library, (window, threshold), "all")][0]
                    log(f"{name} {library} w={window} t={threshold}: {len(found)} pairs, P {row['precision']:.3f} "
                        f"R {row['recall']:.3f} F1 {row['f1']:.3f}, {elapsed:.1f}s")


def rensa_bands(threshold):
    """rensa's bands must divide 128: the power of two nearest (in ratio) to the number of bands
    datasketch's MinHashLSH picks for the threshold (25, 18, 14, 9, 5 for 0.5-0.9 give 32, 16,
    16, 8, 4). rensa's index returns every candidate of the bands; the evaluation keeps those
    whose estimated Jaccard similarity reaches the threshold (LSH, then verification)."""
    from datasketch.lsh import _optimal_param

    bands, _ = _optimal_param(threshold, NUM_PERM, 0.5, 0.5)
    return min((4, 8, 16, 32, 64), key=lambda b: abs(math.log(b / bands)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--bin", required=True, help="directory of the release binaries")
    parser.add_argument("--stats-bin", help="directory of sh-df and sh-weight (default: --bin)")
    parser.add_argument("--python-weights", action="store_true",
                        help="sh-weight's transformation in Python (the prototype) instead of the command")
    parser.add_argument("--check-weights", action="store_true",
                        help=f"compare sh-weight with the prototype on {CHECK_SET} first")
    parser.add_argument("--work", required=True)
    parser.add_argument("--report", required=True, help="the Markdown report to write")
    parser.add_argument("--results", required=True, help="the TSV of every score to write")
    parser.add_argument("--quick", action="store_true", help="window 2, four variants, one threshold")
    parser.add_argument("--reuse", action="store_true", help="tables again from the saved scores")
    parser.add_argument("--sets-only", nargs="*", help="run only these sets (default: all)")
    args = parser.parse_args()
    args.stats_bin = args.stats_bin or args.bin
    windows, variants, thresholds = WINDOWS, list(VARIANTS), THRESHOLDS
    if args.quick:
        windows, variants, thresholds = QUICK["windows"], QUICK["variants"], QUICK["thresholds"]
    run = Run(args)
    saved = os.path.join(args.work, "corpus-scores.pickle")
    if args.reuse:
        with open(saved, "rb") as f:
            run.scores, run.times, run.notes = pickle.load(f)
    else:
        started = time.perf_counter()
        for name in args.sets_only or SETS:
            if args.check_weights and not args.python_weights and name == CHECK_SET:
                run.check_weights(name, windows[0])
            run.simhash(name, variants, windows)
            run.minhash(name, windows, thresholds)
        run.times[("all", 0, "corpusstats.py")] = time.perf_counter() - started
        with open(saved, "wb") as f:
            pickle.dump((run.scores, run.times, run.notes), f)
    corpusreport.write(run, args.report, args.results, windows, variants, thresholds)


if __name__ == "__main__":
    main()
