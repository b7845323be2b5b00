"""The corpus-statistics benchmarks of bench.py: sh-df and sh-weight alone (MB/s of hash text),
the recommended pipeline against the plain one on the same corpus (MB/s of text, side by side
in one run), and sh-df's peak memory over many distinct items with a small --capacity."""

import subprocess


# The recommended pipeline of README.md, stage for stage (the corpus replaces docs.tsv). Keep
# the two in step: bench/run measures what the README tells users to run.
RECOMMENDED = (
    "sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash > {work}/cs-hashes; "
    "sh-df < {work}/cs-hashes > {work}/cs-df; "
    "sh-weight --df {work}/cs-df < {work}/cs-hashes | sh-compute --bits 256 | sh-pairs -q | sh-cluster > /dev/null"
)
# The same without its sh-df step, on a table made beforehand: what the shape costs besides
# sh-df, and so the most the recommended pipeline could reach were sh-df to take no time.
WITHOUT_DF = (
    "sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash > {work}/cs-hashes-nodf; "
    "sh-weight --df {table} < {work}/cs-hashes-nodf | sh-compute --bits 256 | sh-pairs -q | sh-cluster > /dev/null"
)
PLAIN = ("sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash | sh-compute | sh-pairs -q "
         "| sh-cluster > /dev/null")


def run(bench, corpus, size):
    """Measures everything; returns what print_results needs."""
    work = bench.work
    text_bytes = corpus.stat().st_size
    hashes = work / "cs-bench-hashes"
    subprocess.run(["bash", "-o", "pipefail", "-c",
                    f"sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash > {hashes}"],
                   env=bench.env, check=True)
    hash_bytes = hashes.stat().st_size
    table = work / "cs-bench-df"
    stages = {
        "sh-df": bench.ours(f"sh-df -q < {hashes} > {table}"),
        "sh-weight --df (default)": bench.ours(f"sh-weight -q --df {table} < {hashes} > /dev/null"),
        "sh-weight --df --idf": bench.ours(f"sh-weight -q --df {table} --idf < {hashes} > /dev/null"),
        "sh-compute (for scale)": bench.ours(f"sh-compute < {hashes} > /dev/null"),
    }
    # Alternating, so that all three see the same machine.
    plain, recommended, without_df = [], [], []
    for _ in range(bench.runs):
        plain.append(bench.ours(PLAIN.format(corpus=corpus), runs=1))
        recommended.append(bench.ours(RECOMMENDED.format(corpus=corpus, work=work), runs=1))
        without_df.append(bench.ours(WITHOUT_DF.format(corpus=corpus, work=work, table=table),
                                     runs=1))

    distinct = size["df_distinct"]
    items = work / f"cs-distinct-{distinct}"
    if not items.exists():
        # One document per 1,000 items, every item a different number.
        subprocess.run(["bash", "-c", f"seq {distinct} | paste -d' ' $(printf -- '- %.0s' $(seq 1000)) "
                                      f"> {items}.tmp && mv {items}.tmp {items}"], check=True)
    capacity = size["df_capacity"]
    memory = bench.ours(f"sh-df -q --capacity {capacity} < {items} > /dev/null", runs=1)
    return dict(text_bytes=text_bytes, hash_bytes=hash_bytes, stages=stages, plain=plain,
                recommended=recommended, without_df=without_df, distinct=distinct, capacity=capacity, memory=memory,
                corpus=corpus)


def print_results(r, count, measure):
    print("\n## Corpus statistics\n")
    print(f"Corpus: {r['corpus'].name}, {r['text_bytes'] / 1e6:.1f} MB of text, "
          f"{r['hash_bytes'] / 1e6:.1f} MB of hashes (2-token shingles).\n")
    print("| stage, on the hashes | time (median, min–max) | MB/s of hash text | peak RSS |")
    print("|---|---|---|---|")
    for name, m in r["stages"].items():
        print(f"| {name} | {m.spread()} | {r['hash_bytes'] / m.median / 1e6:.0f} | {m.rss()} |")
    plain = measure([m.seconds[0] for m in r["plain"]], max(m.rss_kib for m in r["plain"]))
    rec = measure([m.seconds[0] for m in r["recommended"]], max(m.rss_kib for m in r["recommended"]))
    print("\n| text to clusters | time (median, min–max) | MB/s of text | peak RSS |")
    print("|---|---|---|---|")
    print(f"| plain: sh-tokenize \\| sh-shingle \\| sh-hash \\| sh-compute \\| sh-pairs \\| sh-cluster | "
          f"{plain.spread()} | {r['text_bytes'] / plain.median / 1e6:.1f} | {plain.rss()} |")
    print(f"| recommended: ... sh-hash > hashes; sh-df; sh-weight --df \\| sh-compute --bits 256 \\| sh-pairs "
          f"\\| sh-cluster | {rec.spread()} | {r['text_bytes'] / rec.median / 1e6:.1f} | {rec.rss()} |")
    bare = measure([m.seconds[0] for m in r["without_df"]], max(m.rss_kib for m in r["without_df"]))
    print(f"| the recommended without sh-df (its table made beforehand) | {bare.spread()} | "
          f"{r['text_bytes'] / bare.median / 1e6:.1f} | {bare.rss()} |")
    print(f"\nThe recommended pipeline runs at {plain.median / rec.median:.0%} of the plain "
          f"pipeline's throughput (target: at least 60%). Without its sh-df step it runs at "
          f"{plain.median / bare.median:.0%}: the most it could reach were sh-df to take no "
          f"time.\n")
    print(f"- sh-df --capacity {count(r['capacity'])} over {count(r['distinct'])} distinct items "
          f"(1,000 per document): {r['memory'].spread()}, peak RSS {r['memory'].rss()} "
          f"(target: under 200 MB at 100k over 20M)")
