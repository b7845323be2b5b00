"""The sh-fingerprint benchmarks of bench.py (issue #15): text to fingerprints in one process, on
one thread and on two, against the four-stage pipeline, on linux-doc and on a generated zipf
corpus. Each round runs every configuration once, in turn, so that all of them see the same
machine; the medians of the rounds are reported, in MB/s of text by the wall clock and per
CPU-second (user and system time of every process and thread: what a core does, whatever else
runs). Every run's output is compared with the pipeline's."""

import random

# The plain pipeline of README.md, with ids; sh-fingerprint takes the same flags at once.
PIPELINE = "sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash | sh-compute > {out}"
FUSED = "sh-fingerprint --with-id -q -j {threads} < {corpus} > {out}"
CONFIGURATIONS = {
    "sh-tokenize | sh-shingle | sh-hash | sh-compute": PIPELINE,
    "sh-fingerprint -j 1": FUSED.replace("{threads}", "1"),
    "sh-fingerprint -j 2": FUSED.replace("{threads}", "2"),
}

# The zipf corpus: documents of 300 to 1,500 words drawn from a vocabulary of 50,000 made-up
# words of 2 to 10 letters, word r with probability proportional to 1/r (as in eval/wide.py);
# one document in ten is a copy of a recent one with one word in fifty replaced.
VOCABULARY = 50_000
SEED = 15


def zipf_corpus(work, size_bytes):
    """ID<TAB>TEXT lines up to about `size_bytes`, made once and kept in `work`."""
    return zipf_corpus_with_gold(work, size_bytes)[0]


def zipf_corpus_with_gold(work, size_bytes):
    """The zipf corpus and its planted copies: (corpus, labels, pairs), made once and kept in
    `work`. labels: `ID<TAB>FAMILY` for every original that was copied and each of its copies
    (sh-score --gold-format labels: every two of a family are a gold pair, copies of one
    original among them); pairs: `COPY<TAB>ORIGINAL`, one line per copy."""
    path = work / f"zipf-{size_bytes}.tsv"
    labels = work / f"zipf-{size_bytes}.labels.tsv"
    pairs = work / f"zipf-{size_bytes}.pairs.tsv"
    if path.exists() and labels.exists() and pairs.exists():
        return path, labels, pairs
    rng = random.Random(SEED)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = set()
    while len(vocabulary) < VOCABULARY:
        vocabulary.add("".join(rng.choice(letters) for _ in range(rng.randint(2, 10))))
    vocabulary = sorted(vocabulary)
    rng.shuffle(vocabulary)
    cumulative, total = [], 0.0
    for rank in range(1, VOCABULARY + 1):
        total += 1 / rank
        cumulative.append(total)
    partial = path.with_suffix(".partial")
    recent = []  # (number, words) of the last 1,000 originals
    copies = []  # (copy, original)
    with open(partial, "w") as out:
        written, n = 0, 0
        while written < size_bytes:
            if recent and rng.random() < 0.1:
                original, words = rng.choice(recent)
                words = list(words)
                for position in rng.sample(range(len(words)), max(1, len(words) // 50)):
                    words[position] = rng.choices(vocabulary, cum_weights=cumulative)[0]
                copies.append((n, original))
            else:
                words = rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(300, 1500))
                recent = (recent + [(n, words)])[-1000:]
            line = f"z{n}\t{' '.join(words)}\n"
            out.write(line)
            written += len(line)
            n += 1
    families = {}
    for copy, original in copies:
        families.setdefault(original, []).append(copy)
    with open(labels.with_suffix(".partial"), "w") as f:
        for original in sorted(families):
            for member in [original] + families[original]:
                f.write(f"z{member}\tz{original}\n")
    with open(pairs.with_suffix(".partial"), "w") as f:
        for copy, original in copies:
            f.write(f"z{copy}\tz{original}\n")
    labels.with_suffix(".partial").rename(labels)
    pairs.with_suffix(".partial").rename(pairs)
    partial.rename(path)
    return path, labels, pairs


def run(bench, corpora):
    """Every configuration on every corpus, alternating; returns what print_results needs."""
    results = []
    out = bench.work / "fingerprint-out.tsv"
    for corpus in corpora:
        commands = {name: command.format(corpus=corpus, out=out)
                    for name, command in CONFIGURATIONS.items()}
        runs, identical = bench.alternating(commands, out)
        with open(corpus, "rb") as f:
            documents = sum(1 for _ in f)
        results.append(dict(corpus=corpus, bytes=corpus.stat().st_size, documents=documents,
                            runs=runs, identical=identical))
    return results


def print_results(results, measure):
    print("\n## Text to fingerprints in one process: sh-fingerprint\n")
    print("The pipeline is `sh-tokenize --with-id | sh-shingle | sh-hash | sh-compute`, "
          "sh-fingerprint takes `--with-id`; each configuration once a round, in turn. MB/s of "
          "text by the wall clock, and per CPU-second (user and system time of all processes "
          "and threads).\n")
    print("| corpus | what | time (median, min–max) | MB/s | CPU s (median) | MB/s per CPU-s "
          "| peak RSS | speed ÷ pipeline |")
    print("|---|---|---|---|---|---|---|---|")
    summaries = []
    for r in results:
        m = {}
        for name, runs in r["runs"].items():
            m[name] = measure([x.seconds[0] for x in runs], max(x.rss_kib for x in runs),
                              [x.cpu[0] for x in runs])
        label = f"{r['corpus'].name} ({r['bytes'] / 1e6:.1f} MB, {r['documents']} docs)"
        pipeline = m[next(iter(CONFIGURATIONS))].median
        for name, x in m.items():
            cpu = sorted(x.cpu)[len(x.cpu) // 2]
            # /usr/bin/time counts CPU time in hundredths: a tiny corpus may take none.
            per_cpu = f"{r['bytes'] / cpu / 1e6:.0f}" if cpu else "–"
            print(f"| {label} | {name.replace('|', chr(92) + '|')} | {x.spread()} | "
                  f"{r['bytes'] / x.median / 1e6:.0f} | {cpu:.2f} | {per_cpu} | {x.rss()} | "
                  f"{pipeline / x.median:.2f}× |")
        one, two = m["sh-fingerprint -j 1"], m["sh-fingerprint -j 2"]
        summaries.append(
            f"- {r['corpus'].name}: one thread {r['bytes'] / one.median / 1e6:.0f} MB/s (target: "
            f"at least 150); -j 2 {one.median / two.median:.2f}× -j 1 (target: at least 1.8×); "
            f"output identical to the pipeline's in every run: "
            f"{'yes' if r['identical'] else 'NO'}")
    print()
    print("\n".join(summaries))
