"""sh-weight's --min-run on every evaluation set and on the generated Zipf sets (eval/zipf.py):
the README's recommended pipeline (sh-tokenize --with-id | sh-shingle | sh-hash; sh-df;
sh-weight --df | sh-compute --bits 256 | sh-pairs) with --min-run 1 (a common item goes
wherever it stands) and longer runs, beside the plain 256-bit pipeline; scored by sh-score.
Writes a Markdown table (docs/QUALITY.md, "Common items in short runs").

    eval/minrun.py --sets eval/work/sets --bin target/release [--out FILE] [--only SET,...]
"""

import argparse
import json
import os
import tempfile

from minkept import score, sh

SETS = ["synthetic", "licenses", "cjk", "realpages-2", "realpages-5", "families", "zipf-5a", "zipf-5b"]
MIN_RUN = ["1", "2", "3", "4", "6"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out")
    parser.add_argument("--only", help="comma-separated set names (default: all of them)")
    args = parser.parse_args()
    sets = args.only.split(",") if args.only else SETS
    b = args.bin
    rows = ["| set | plain, 256 bits | " + " | ".join(f"--min-run {m}" for m in MIN_RUN) + " |",
            "|---|---|" + "---|" * len(MIN_RUN)]
    with tempfile.TemporaryDirectory() as work:
        hashes, table = os.path.join(work, "hashes"), os.path.join(work, "df")
        for name in sets:
            base = os.path.join(args.sets, name)
            with open(os.path.join(base, "meta.json")) as f:
                gold_format = json.load(f)["gold_format"]
            gold = os.path.join(base, "gold.tsv")
            sh(f"{b}/sh-tokenize --with-id < {base}/docs.tsv | {b}/sh-shingle | {b}/sh-hash > {hashes}")
            sh(f"{b}/sh-df -q < {hashes} > {table}")
            cells = [score(b, f"{b}/sh-compute --bits 256 < {hashes} | {b}/sh-pairs -q", gold, gold_format)]
            for m in MIN_RUN:
                command = (f"{b}/sh-weight -q --df {table} --min-run {m} < {hashes} | "
                           f"{b}/sh-compute --bits 256 | {b}/sh-pairs -q")
                cells.append(score(b, command, gold, gold_format))
            text = " | ".join(f"{c['precision']:.3f} / {c['recall']:.3f} / **{c['f1']:.3f}**" for c in cells)
            rows.append(f"| {name} | {text} |")
            print(rows[-1], flush=True)
    report = "\n".join(rows) + "\n\nEach cell: precision / recall / F1, all pairs, at sh-pairs' default K.\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
