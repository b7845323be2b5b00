"""The peers section of bench.py (issue #15, item 2): a per-document stage split across cores
by GNU parallel (`parallel --pipepart -a FILE --block SIZE -k -j N 'stages'`), against the
four-stage pipeline and sh-fingerprint -j 1 and -j N on the same corpus (and sh-fingerprint -j 1,
a stage that is one single-threaded process, split the same way), each configuration
once a round, in turn; every run's output compared with the pipeline's, byte for byte.

--pipepart cuts the file itself at line ends into blocks (--block 10M: about 10 MB each; -1:
one block per job slot), runs the stages on N blocks at a time, and -k writes the outputs in
the order of the blocks: the fingerprints come out in the input's order, one per line, as
the pipeline writes them (an sh-pairs behind it that names records by line number sees the
same lines).
"""

import shutil

STAGES = "sh-tokenize --with-id | sh-shingle | sh-hash | sh-compute"


def configurations(threads):
    return {
        "sh-tokenize | sh-shingle | sh-hash | sh-compute":
            "sh-tokenize --with-id < {corpus} | sh-shingle | sh-hash | sh-compute > {out}",
        f"parallel --pipepart --block 10M -k -j {threads} '…'":
            f"parallel --pipepart -a {{corpus}} --block 10M -k -j {threads} '{STAGES}' > {{out}}",
        f"parallel --pipepart --block -1 -k -j {threads} '…'":
            f"parallel --pipepart -a {{corpus}} --block -1 -k -j {threads} '{STAGES}' > {{out}}",
        "sh-fingerprint -j 1": "sh-fingerprint --with-id -q -j 1 < {corpus} > {out}",
        # A stage that is one single-threaded process, split the same way.
        f"parallel --pipepart --block -1 -k -j {threads} 'sh-fingerprint --with-id -q -j 1'":
            f"parallel --pipepart -a {{corpus}} --block -1 -k -j {threads} "
            f"'sh-fingerprint --with-id -q -j 1' > {{out}}",
        f"sh-fingerprint -j {threads}":
            f"sh-fingerprint --with-id -q -j {threads} < {{corpus}} > {{out}}",
    }


def run(bench, corpus, threads=2):
    """None when GNU parallel is not installed."""
    if not shutil.which("parallel", path=bench.env["PATH"]):
        return None
    out = bench.work / "pipepart-out.tsv"
    commands = {name: command.format(corpus=corpus, out=out)
                for name, command in configurations(threads).items()}
    runs, identical = bench.alternating(commands, out)
    return dict(corpus=corpus, bytes=corpus.stat().st_size, runs=runs, threads=threads,
                identical=identical)


def print_results(r, measure):
    print("\n## Splitting a per-document stage across cores: parallel --pipepart\n")
    if r is None:
        print("Not run: GNU parallel is not installed (bench/run installs the Debian package "
              "`parallel` when it runs as root with apt-get).")
        return
    print(f"Corpus: {r['corpus'].name}, {r['bytes'] / 1e6:.1f} MB; '…' is `{STAGES}`. Each "
          "configuration once a round, in turn.\n")
    print("| what | time (median, min–max) | MB/s | CPU s (median) | peak RSS | speed ÷ pipeline |")
    print("|---|---|---|---|---|---|")
    m = {name: measure([x.seconds[0] for x in rs], max(x.rss_kib for x in rs),
                       [x.cpu[0] for x in rs]) for name, rs in r["runs"].items()}
    pipeline = next(iter(m.values())).median
    for name, x in m.items():
        cpu = sorted(x.cpu)[len(x.cpu) // 2]
        print(f"| {name.replace('|', chr(92) + '|')} | {x.spread()} | "
              f"{r['bytes'] / x.median / 1e6:.0f} | {cpu:.2f} | {x.rss()} | "
              f"{pipeline / x.median:.2f}× |")
    print(f"\nOutput identical to the pipeline's in every run: {'yes' if r['identical'] else 'NO'}")
