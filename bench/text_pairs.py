"""The peers section of bench.py (issue #15, item 3), text to pairs: on one generated zipf
corpus with planted copies (bench/fingerprint.py's: one document in ten a copy of a recent
original with one word in fifty replaced), the sh-tools pipelines and the peers gaoya, rensa
and datasketch, each from the text file to a file of pairs, each timed as a whole process (wall
clock, /usr/bin/time -v: CPU time and peak RSS beside), one configuration after the other in
each round; then every configuration's pairs scored against the planted copies with sh-score.

Precision and F1 count a pair as true when both documents are of one family (an original and
its copies: two copies of one original are a true pair too); "recall of the copies" is over
the (copy, original) pairs alone, the figure the issue asks for.

A pipeline's peak RSS from /usr/bin/time is that of its largest process; "all processes" adds
the peaks of the processes that run at once (one more run, each stage under its own
/usr/bin/time; for the recommended pipeline the largest of its three steps), an upper bound
of what the pipeline holds at any moment. A peer is one Python process: both are its peak.
"""

import hashlib
import json
import re
import subprocess
from pathlib import Path

PEERS_PY = Path(__file__).resolve().parent / "peers.py"

# Each of ours: the steps run one after the other, each a list of stages piped together.
# {corpus}, {out} and {work} are filled in. The commands of README.md (corpus_stats.py holds
# the recommended one too, with sh-cluster), writing the pairs instead of clustering them.
OURS = {
    "plain (README's first pipeline): sh-tokenize | sh-shingle | sh-hash | sh-compute | sh-pairs": [
        ["sh-tokenize --with-id < {corpus}", "sh-shingle", "sh-hash", "sh-compute",
         "sh-pairs -q > {out}"]],
    "256-bit: the same with sh-compute --bits 256": [
        ["sh-tokenize --with-id < {corpus}", "sh-shingle", "sh-hash", "sh-compute --bits 256",
         "sh-pairs -q > {out}"]],
    "recommended (README's second): sh-df, sh-weight --df, 256 bits": [
        ["sh-tokenize --with-id < {corpus}", "sh-shingle", "sh-hash > {work}/tp-hashes"],
        ["sh-df -q < {work}/tp-hashes > {work}/tp-df"],
        ["sh-weight --df {work}/tp-df < {work}/tp-hashes", "sh-compute --bits 256",
         "sh-pairs -q > {out}"]],
    "sh-fingerprint | sh-pairs": [
        ["sh-fingerprint --with-id -q < {corpus}", "sh-pairs -q > {out}"]],
    "sh-fingerprint --bits 256 | sh-pairs": [
        ["sh-fingerprint --with-id -q --bits 256 < {corpus}", "sh-pairs -q > {out}"]],
}
PLAIN = next(iter(OURS))

# The peers: venv key, peers.py command and arguments after CORPUS OUT, what it is, and at
# most how many runs (gaoya at its defaults finds millions of pairs here: one run).
PEERS = {
    "gaoya simhash, its defaults (single words)": dict(
        venv="gaoya", args=["gaoya-simhash", "1", "chunks"], runs=1,
        what="SimHashStringIndex(hash_size=64, num_blocks=6, hamming_distance=5, "
             "analyzer='word', lowercase=True), its bulk insert and query on all cores, 2,000 "
             "documents a call"),
    "gaoya simhash, word 2-grams": dict(
        venv="gaoya", args=["gaoya-simhash", "2", "chunks"], runs=None,
        what="the same with ngram_range=(2, 2), the 2-word shingles of sh-shingle's default"),
    "gaoya simhash, word 2-grams, the corpus in one list": dict(
        venv="gaoya", args=["gaoya-simhash", "2", "list"], runs=None,
        what="the same, the whole corpus read into one Python list and given to one bulk "
             "insert and one bulk query (the same pairs; what a script that loads its "
             "documents first does)"),
    "rensa R-MinHash LSH": dict(
        venv="rensa", args=["rensa-pairs"], runs=None,
        what="128 permutations, word 3-grams (split on \\W+ in Python), threshold 0.7 (16 "
             "bands of 8 rows), its batch calls from_token_sets, insert_many, query_all, "
             "candidates kept at an estimated Jaccard similarity of 0.7 or more"),
    "datasketch MinHash LSH": dict(
        venv="datasketch", args=["datasketch-lsh"], runs=None,
        what="128 permutations, word 3-grams, MinHash.generator, MinHashLSH(threshold=0.7) "
             "(its choice: 14 bands of 9 rows), candidates kept at an estimated Jaccard "
             "similarity of 0.7 or more"),
}
# The figures of issue #15 to reach: at least this many times faster than the peer.
TARGETS = {"gaoya simhash, word 2-grams": 4, "rensa R-MinHash LSH": 10}


def command(phases, **names):
    return "; ".join(" | ".join(stage.format(**names) for stage in stages) for stages in phases)


def all_processes_kib(bench, phases, names):
    """One run with each stage under its own /usr/bin/time: the largest, over the steps, of
    the sum of a step's stages' peak RSS."""
    reports, parts = [], []
    for p, stages in enumerate(phases):
        wrapped = []
        for s, stage in enumerate(stages):
            report = bench.work / f"tp-rss-{p}-{s}.txt"
            reports.append((p, report))
            wrapped.append(f"/usr/bin/time -f %M -o {report} {stage.format(**names)}")
        parts.append(" | ".join(wrapped))
    subprocess.run(["bash", "-o", "pipefail", "-c", "; ".join(parts)], env=bench.env, check=True,
                   stdout=subprocess.DEVNULL)
    sums = {}
    for p, report in reports:
        sums[p] = sums.get(p, 0) + int(report.read_text().split()[-1])
    return max(sums.values())


def score(bench, pairs, gold, form):
    """sh-score's tp, fp, fn, precision, recall, f1 of a pairs file."""
    done = subprocess.run([str(bench.bin_dir / "sh-score"), "--gold", str(gold), "--gold-format",
                           form, "--format", "json", "-i", str(pairs)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(bench, corpus, labels, copies, pythons):
    """Every configuration once a round, `bench.runs` rounds; pythons: {venv key: the venv's
    Python, or None where the peer could not be installed}."""
    work = bench.work
    runs = {name: [] for name in [*OURS, *PEERS]}
    outputs = {name: work / f"tp-out-{i}.tsv" for i, name in enumerate(runs)}
    digests = {name: set() for name in runs}
    inside = {name: [] for name in PEERS}
    details = {}
    failed = {}
    for round_ in range(bench.runs):
        for name, phases in OURS.items():
            runs[name].append(bench.ours(command(phases, corpus=corpus, out=outputs[name],
                                                 work=work), runs=1))
            digests[name].add(digest(outputs[name]))
        for name, peer in PEERS.items():
            python = pythons.get(peer["venv"])
            if not python:
                failed[name] = f"not installed (see bench/run's output)"
                continue
            if peer["runs"] and round_ >= peer["runs"]:
                continue
            report = work / "tp-peer.json"
            args = peer["args"]
            line = (f"{python} {PEERS_PY} {args[0]} {corpus} {outputs[name]} "
                    f"{' '.join(args[1:])} > {report}")
            measure, why = bench.attempt(line)
            if why:
                failed[name] = why
                continue
            runs[name].append(measure)
            details[name] = json.loads(report.read_text())
            inside[name].append(details[name]["seconds"])
            digests[name].add(digest(outputs[name]))
    memory = {name: all_processes_kib(bench, phases, dict(corpus=corpus, out=work / "tp-rss-out",
                                                          work=work))
              for name, phases in OURS.items()}
    scores = {}
    for name in runs:
        if runs[name]:
            scores[name] = (score(bench, outputs[name], labels, "labels"),
                            score(bench, outputs[name], copies, "pairs"))
    with open(corpus, "rb") as f:
        documents = sum(1 for _ in f)
    with open(copies, "rb") as f:
        planted = sum(1 for _ in f)
    return dict(corpus=corpus, bytes=corpus.stat().st_size, documents=documents, planted=planted,
                runs=runs, memory=memory, scores=scores, inside=inside, details=details,
                failed=failed, stable={n: len(d) <= 1 for n, d in digests.items()})


def print_results(r, measure):
    print("\n## Peers, text to pairs\n")
    print(f"Corpus: {r['corpus'].name}, {r['bytes'] / 1e6:.1f} MB, {r['documents']:,} documents "
          f"of zipf words, {r['planted']:,} of them planted copies (2% of the words replaced). "
          "Each configuration once a round, in turn; whole processes, from the text file to a "
          "file of pairs. Precision and F1 over the pairs of one family (an original and its "
          "copies); recall of the copies: of the (copy, original) pairs.\n")
    print("| what | time (median, min–max) | CPU s | peak RSS: largest process / all "
          "| pairs | precision | recall of the copies | F1 (families) |")
    print("|---|---|---|---|---|---|---|---|")
    medians = {}
    for name, rs in r["runs"].items():
        label = name.replace("|", "\\|")
        if not rs:
            print(f"| {label} | {r['failed'].get(name, 'not run')} | – | – | – | – | – | – |")
            continue
        m = measure([x.seconds[0] for x in rs], max(x.rss_kib for x in rs), [x.cpu[0] for x in rs])
        medians[name] = m
        cpu = sorted(m.cpu)[len(m.cpu) // 2]
        every = r["memory"].get(name)
        rss = f"{m.rss()} / {every / 1024:.0f} MB" if every else f"{m.rss()} / {m.rss()}"
        families, copies = r["scores"][name]
        note = "" if r["stable"][name] else " (outputs differed between runs)"
        print(f"| {label} | {m.spread()} | {cpu:.2f} | {rss} | {families['tp'] + families['fp']:,} "
              f"| {families['precision']:.4f} | {copies['recall']:.4f} | {families['f1']:.4f}{note} |")
    print()
    for name, peer in PEERS.items():
        detail = r["details"].get(name)
        if detail:
            inside = sorted(r["inside"][name])[len(r["inside"][name]) // 2]
            print(f"- {name} {detail['version']}: {peer['what']}; inside Python (the "
                  f"interpreter's start and the imports left out) {inside:.2f} s median.")
        elif name in r["failed"]:
            print(f"- {name}: {r['failed'][name]}")
    print("\nRatios: each peer's median time ÷ ours (how many times faster ours is; the "
          "targets of issue #15 in brackets), and gaoya's peak RSS ÷ ours (largest process / all "
          "processes; target at least 20).\n")
    peers = [p for p in PEERS if p in medians]
    gaoyas = [p for p in ("gaoya simhash, word 2-grams",
                          "gaoya simhash, word 2-grams, the corpus in one list") if p in medians]
    print("| ours | " + " | ".join(f"÷ {p}" + (f" [{TARGETS[p]}]" if p in TARGETS else "")
                                     for p in peers)
          + "".join(f" | RSS of {p} ÷ ours [20]" for p in gaoyas) + " |")
    print("|---" * (1 + len(peers) + len(gaoyas)) + "|")
    for ours in OURS:
        if ours not in medians:
            continue
        m, every = medians[ours], r["memory"][ours]
        cells = [f"{medians[p].median / m.median:.1f}" for p in peers]
        cells += [f"{medians[p].rss_kib / max(m.rss_kib, 1):.1f} / {medians[p].rss_kib / every:.1f}"
                  for p in gaoyas]
        print(f"| {ours.split(':')[0].replace('|', chr(92) + '|')} | " + " | ".join(cells) + " |")
