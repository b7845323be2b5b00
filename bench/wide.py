"""The wide-fingerprint benchmarks of bench.py (issue #12), side by side in one run:

1. The search: on random documents' fingerprints, `sh-pairs` at the default K of 256 (and 128)
   bits against `sh-pairs -k 6` on the 64-bit fingerprints of the same documents (word 0 of the
   wide ones), and the exact setting that matches MinHash up to 5% edits (-k 52: each word
   searched within 13 bits).
2. Text to pairs: the 256-bit pipeline at its default K against rensa's MinHash LSH (128
   permutations, word 3-gram shingles, Python), and the 64-bit pipeline, on the same corpus;
   bytes per document sketch beside.
"""

import json
import random
import subprocess
from pathlib import Path

# The exact setting of docs/QUALITY.md that matches MinHash up to 5% edits.
EXACT_K_256 = 52

# rensa's MinHash: 128 permutations of 32-bit values.
RENSA_PERMUTATIONS = 128
RENSA_SKETCH_BYTES = RENSA_PERMUTATIONS * 4


def random_wide(work, n, seed):
    """n random 256-bit fingerprints (as sh-compute --bits 256 writes them), their 128-bit low
    halves and their 64-bit word 0 (decimal): three files of the same documents (cached)."""
    paths = {bits: work / f"wide-{n}-seed{seed}-{bits}.txt" for bits in (64, 128, 256)}
    if not all(p.exists() for p in paths.values()):
        rng = random.Random(seed)
        files = {bits: open(p.with_suffix(".partial"), "w") for bits, p in paths.items()}
        for _ in range(n):
            x = rng.getrandbits(256)
            files[256].write(f"0x{x:064x}\n")
            files[128].write(f"0x{x & (2**128 - 1):032x}\n")
            files[64].write(f"{x & (2**64 - 1)}\n")
        for bits, f in files.items():
            f.close()
            Path(f.name).rename(paths[bits])
    return paths


def search(bench, sizes, exact_sizes):
    """Every search, alternating, so that they see the same machine."""
    rows = []
    for n in sizes:
        paths = random_wide(bench.work, n, seed=5)
        runs = {"64-bit -k 6": [], "128-bit default": [], "256-bit default": []}
        commands = {
            "64-bit -k 6": f"sh-pairs -q -k 6 < {paths[64]}",
            "128-bit default": f"sh-pairs -q < {paths[128]}",
            "256-bit default": f"sh-pairs -q < {paths[256]}",
        }
        for _ in range(bench.runs):
            for name, command in commands.items():
                runs[name].append(bench.ours(command, runs=1))
        exact = None
        if n in exact_sizes:
            exact = bench.ours(f"sh-pairs -q -k {EXACT_K_256} < {paths[256]}", runs=1)
        rows.append((n, runs, exact))
    return rows


def text_to_pairs(bench, corpus, peer_python):
    """The 256-bit and 64-bit pipelines and rensa's MinHash LSH on one corpus, alternating."""
    pipelines = {
        "256-bit: sh-tokenize | sh-shingle | sh-hash | sh-compute --bits 256 | sh-pairs":
            f"sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash | sh-compute --bits 256 "
            f"| sh-pairs -q > /dev/null",
        "64-bit: sh-tokenize | sh-shingle | sh-hash | sh-compute | sh-pairs":
            f"sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash | sh-compute "
            f"| sh-pairs -q > /dev/null",
    }
    ours = {name: [] for name in pipelines}
    rensa = []
    for _ in range(bench.runs):
        for name, command in pipelines.items():
            ours[name].append(bench.ours(command, runs=1))
        out = subprocess.run([peer_python, str(Path(__file__).parent / "peers.py"), "rensa-lsh",
                              str(corpus)], check=True, capture_output=True, text=True)
        rensa.append(json.loads(out.stdout))
    return dict(corpus=corpus, bytes=corpus.stat().st_size, ours=ours, rensa=rensa)


def print_results(search_rows, text, count, measure):
    print("\n## Wide fingerprints\n")
    print("Random documents' fingerprints (no near pairs: the cost of the search alone), each "
          "search of one size alternating with the others; the 64-bit fingerprints are word 0 "
          "of the 256-bit ones.\n")
    print("| documents | 64-bit -k 6 | 128-bit default | 256-bit default | 256 ÷ 64 | "
          f"256-bit exact -k {EXACT_K_256} | RSS 64 / 256 |")
    print("|---|---|---|---|---|---|---|")
    for n, runs, exact in search_rows:
        m = {name: measure([r.seconds[0] for r in rs], max(r.rss_kib for r in rs))
             for name, rs in runs.items()}
        ratio = m["256-bit default"].median / m["64-bit -k 6"].median
        exact_text = exact.spread() if exact else "not run"
        print(f"| {count(n)} | {m['64-bit -k 6'].spread()} | {m['128-bit default'].spread()} | "
              f"{m['256-bit default'].spread()} | {ratio:.1f}× | {exact_text} | "
              f"{m['64-bit -k 6'].rss()} / {m['256-bit default'].rss()} |")
    if not text:
        return
    print(f"\nText to pairs on {text['corpus'].name} ({text['bytes'] / 1e6:.1f} MB), alternating:\n")
    print("| what | time (median, min–max) | MB/s | peak RSS | bytes per document sketch |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, rs in text["ours"].items():
        m = measure([r.seconds[0] for r in rs], max(r.rss_kib for r in rs))
        medians[name] = m.median
        sketch = 32 if name.startswith("256") else 8
        print(f"| {name.replace('|', chr(92) + '|')} | {m.spread()} | "
              f"{text['bytes'] / m.median / 1e6:.1f} | {m.rss()} | {sketch} |")
    r = measure([x["seconds"] for x in text["rensa"]], 0)
    print(f"| rensa {text['rensa'][0]['version']} MinHash LSH ({RENSA_PERMUTATIONS} permutations, "
          f"word 3-grams, threshold {text['rensa'][0]['threshold']}), Python | {r.spread()} | "
          f"{text['bytes'] / r.median / 1e6:.1f} | – | {RENSA_SKETCH_BYTES} |")
    wide = next(v for k, v in medians.items() if k.startswith("256"))
    print(f"\nrensa ÷ 256-bit pipeline: {r.median / wide:.1f}× (target: at least 3×); sketch "
          f"32 bytes against {RENSA_SKETCH_BYTES} (1/{RENSA_SKETCH_BYTES // 32}, target: at most 1/8).")
