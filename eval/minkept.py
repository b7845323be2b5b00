"""sh-weight's --min-kept on every evaluation set: the README's recommended pipeline
(sh-tokenize --with-id | sh-shingle | sh-hash; sh-df; sh-weight --df | sh-compute --bits 256 |
sh-pairs) with --min-kept 0 (a document keeps all its items only when none would be kept) and
the values around the default, beside the plain 256-bit pipeline; scored by sh-score. Writes a
Markdown table (docs/QUALITY.md, "Large families").

    eval/minkept.py --sets eval/work/sets --bin target/release [--out FILE]
"""

import argparse
import json
import os
import subprocess
import tempfile

SETS = ["synthetic", "licenses", "cjk", "realpages-2", "realpages-5", "families"]
MIN_KEPT = ["0", "0.1", "0.2", "0.3"]


def sh(command):
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"minkept: failed ({done.returncode}): {command}\n{done.stderr}")
    return done.stdout


def score(bin_dir, pairs_command, gold, gold_format):
    out = sh(f"{pairs_command} | {bin_dir}/sh-score --gold {gold} --gold-format {gold_format} --format json")
    return json.loads(out.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out")
    args = parser.parse_args()
    b = args.bin
    rows = ["| set | plain, 256 bits | " + " | ".join(f"--min-kept {m}" for m in MIN_KEPT) + " |",
            "|---|---|" + "---|" * len(MIN_KEPT)]
    with tempfile.TemporaryDirectory() as work:
        hashes, table = os.path.join(work, "hashes"), os.path.join(work, "df")
        for name in SETS:
            base = os.path.join(args.sets, name)
            with open(os.path.join(base, "meta.json")) as f:
                gold_format = json.load(f)["gold_format"]
            gold = os.path.join(base, "gold.tsv")
            sh(f"{b}/sh-tokenize --with-id < {base}/docs.tsv | {b}/sh-shingle | {b}/sh-hash > {hashes}")
            sh(f"{b}/sh-df -q < {hashes} > {table}")
            cells = [score(b, f"{b}/sh-compute --bits 256 < {hashes} | {b}/sh-pairs -q", gold, gold_format)]
            for m in MIN_KEPT:
                command = (f"{b}/sh-weight -q --df {table} --min-kept {m} < {hashes} | "
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
