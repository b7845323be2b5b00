#!/usr/bin/env python3
"""The sh-tools pipeline on Apache Spark: text -> fingerprints -> pairs -> clusters -> the
deduplicated corpus.

Runs with spark-submit on any Spark cluster (or local[N]); the sh-* commands do the per-line
work, shipped to the executors with the job:

    spark-submit --files sh-tokenize,sh-shingle,sh-hash,sh-compute,sh-pairs driver.py --bin-dir . \
        --input docs.jsonl --input-format jsonl --id-field id -k 3 -b 6 --partitions 200 \
        --output out/ --labels --keep out/kept

    # 256-bit fingerprints, pairs within 32 bits in total (sh-pairs' default for that width):
    spark-submit driver.py --input docs.jsonl --input-format jsonl --id-field id \
        --output out/ --bits 256 -b 12 --partitions 200

- The per-document stages (sh-tokenize, sh-shingle, sh-hash, sh-compute) are line maps, piped
  with RDD.pipe through each partition of the input; Spark keeps the partitions in input order.
- Each fingerprint line gets its line number in the whole input (zipWithIndex), which names a
  record without an id and orders a pair's two records, as in a local run.
- sh-pairs --map --numbered writes one line per record and table (per word and table for wide
  fingerprints, --bits 128 or 256); Spark shuffles the lines by key and sorts each partition by
  key (repartitionAndSortWithinPartitions); sh-pairs --reduce --numbered reads each partition's
  runs of equal keys and writes the pairs that the first-table rule (and, for wide
  fingerprints, the first-word rule) gives each group. Every pair comes out exactly once:
  nothing is de-duplicated.
- The pairs are sorted by the line numbers of their records (the order of a local sh-pairs)
  and written to OUTPUT/pairs.
- Clusters, on the executors, never on the driver: every id becomes a node named by its first
  occurrence in the sorted pairs (the order in which sh-cluster meets the ids); the connected
  components come from rounds of large-star and small-star (each one shuffle and a sort) until
  no edge moves; every node is labelled with its component's least node, the cluster's first
  member. A sort by (label, node) gives the clusters in sh-cluster's order, members and
  clusters alike.
- --keep: the documents' ids are joined with the duplicates, and the input lines, marked, are
  sorted back into input order (one shuffle of the corpus).

Outputs (part files: concatenated in order they are byte for byte what the local commands
print): OUTPUT/fingerprints, OUTPUT/pairs (sh-pairs), OUTPUT/clusters (sh-cluster, one cluster
a line), OUTPUT/duplicates (sh-cluster --duplicates: the documents to drop), with --labels
OUTPUT/labels (ID<TAB>LABEL, LABEL the id of the cluster's first member, the one kept), with
--df OUTPUT/df (the table sh-df writes for the whole input), with --keep DIR the input lines of
the documents kept (as Spark reads them: without a byte-order mark at the start of a file,
which its reader drops). --clusters FILE, for small runs only, also streams the clusters to one file
on the driver: the one path that brings clusters (or pairs) to the driver.

Corpus statistics (--df): sh-df runs on each partition of the hashes, the tables are added up
by item in a shuffle (reduceByKey), so no vocabulary is gathered on the driver beyond the table
itself (at most --df-capacity items); the table is broadcast, and each partition runs
sh-weight with it between sh-hash and sh-compute.

The commands must be on every executor: shipped with the job, `spark-submit --files
sh-tokenize,...` and `--bin-dir .` (standalone, YARN and Kubernetes executors find such files in
their working directory; `--archives sh.tar.gz#sh` with `--bin-dir sh` unpacks a tarball
there), or installed at one path on every machine (--bin-dir, by default the directory of the
sh-pairs on the driver's PATH). The driver itself runs none of them.
"""

import argparse
import bisect
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib

from pyspark import SparkConf, SparkContext, StorageLevel

COMMANDS = (
    "sh-tokenize", "sh-shingle", "sh-hash", "sh-df", "sh-weight", "sh-compute", "sh-pairs", "sh-cluster",
)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Near-duplicate pairs and clusters of a corpus with sh-tools on Spark.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--input", required=True, help="input path (local, hdfs://, s3a://, ...)")
    p.add_argument(
        "--input-format",
        choices=("text", "tsv", "jsonl", "fingerprints"),
        default="text",
        help="text: one document per line, named by line number; tsv: ID<TAB>TEXT; "
        "jsonl: one JSON object per line (--text-field, --id-field); fingerprints: "
        "[ID<TAB>]FINGERPRINT lines as sh-compute writes them (the pairs and clusters of "
        "fingerprints computed elsewhere)",
    )
    p.add_argument("--text-field", default="text", help="jsonl: the field holding the text")
    p.add_argument("--id-field", help="jsonl: the field holding the id (default: line numbers)")
    p.add_argument("--tokenize-args", default="", help="more flags for sh-tokenize, e.g. '--mode ascii'")
    p.add_argument("-w", "--window", type=int, default=2, help="sh-shingle window (its default)")
    p.add_argument("--bits", type=int, choices=(64, 128, 256), default=64,
                   help="sh-compute --bits: the fingerprints' width")
    p.add_argument("-k", "--distance", type=int,
                   help="K: pairs within K bits, in total for wide fingerprints (default: sh-pairs' "
                        "for the width, %s; for billions of 64-bit fingerprints use 3, see the README)"
                        % ", ".join("%d for %d bits" % (DEFAULT_RULE[b][0], b) for b in sorted(DEFAULT_RULE)))
    p.add_argument("--word-k", type=int,
                   help="sh-pairs --word-k: wide fingerprints, only pairs with some 64-bit word within "
                        "this many bits (approximate; default: sh-pairs' without -k, 8 for 128 bits and "
                        "8 for 256; exact, floor(K / words), with -k)")
    p.add_argument("--word-bytes", type=int,
                   help="sh-pairs --word-bytes: with --word-k, a word counts only if at most this many "
                        "of its 8 bytes differ, and each word is searched over its bytes (B = 8; "
                        "default: sh-pairs' without -k and --word-k, 6 for 256 bits)")
    p.add_argument("-b", "--blocks", type=int,
                   help="B: blocks of each word's search, C(B, k) tables, k = K for 64 bits and "
                        "floor(K / words) or --word-k for wide ones (each record is shuffled once per "
                        "table and word); default: 8, or k + 2 when that is more (8 for the 256-bit "
                        "defaults, whose words are searched by their 8 bytes)")
    p.add_argument("--sparse", action="store_true", help="sh-pairs --sparse: only enough pairs to form the clusters")
    p.add_argument("--df", action="store_true",
                   help="corpus statistics: count document frequencies over the whole input (sh-df on "
                        "each partition, added up by a shuffle), broadcast the table, and run sh-weight "
                        "between sh-hash and sh-compute; the table is written to OUTPUT/df/")
    p.add_argument("--max-df", type=float, help="sh-weight --max-df (with --df)")
    p.add_argument("--df-floor", type=int, help="sh-weight --df-floor (with --df)")
    p.add_argument("--idf", action="store_true", help="sh-weight --idf (with --df)")
    p.add_argument("--max-tf", type=int, help="sh-weight --max-tf (with --df)")
    p.add_argument("--min-kept", type=float, help="sh-weight --min-kept (with --df)")
    p.add_argument("--min-run", type=int, help="sh-weight --min-run (with --df)")
    p.add_argument("--df-capacity", type=int, default=1000000,
                   help="sh-df --capacity: the most items in the table (with --df)")
    p.add_argument("--partitions", type=int, help="input and shuffle partitions (default: Spark's)")
    p.add_argument("--output", required=True, help="directory for fingerprints/ and pairs/ (must not exist)")
    p.add_argument("--labels", action="store_true",
                   help="also write OUTPUT/labels/: ID<TAB>LABEL for every member of every cluster, "
                        "LABEL the id of the cluster's first member")
    p.add_argument("-m", "--min-size", type=int, default=2,
                   help="sh-cluster --min-size: leave out clusters with fewer members (a cluster of "
                        "one comes only from an id paired with itself)")
    p.add_argument("--keep",
                   help="write the deduplicated corpus to this directory: the input lines of every "
                        "document that is not in OUTPUT/duplicates, untouched, in input order, "
                        "one part file per input partition")
    p.add_argument("--checkpoint-dir",
                   help="reliable checkpoints of the connected-components rounds in this directory "
                        "(shared by all machines: hdfs://, s3a://); default: local checkpoints, "
                        "which an executor lost mid-job cannot recompute")
    p.add_argument("--clusters", metavar="FILE",
                   help="small runs only: also write the clusters to FILE on the driver, one file "
                        "(they stream to the driver, one partition at a time)")
    p.add_argument(
        "--bin-dir",
        default=os.environ.get("SH_TOOLS_BIN"),
        help="where the sh-* commands are on the workers: an absolute path, or '.' for files "
        "shipped with spark-submit --files (default: $SH_TOOLS_BIN, else the directory of the "
        "sh-pairs on the driver's PATH)",
    )
    args = p.parse_args(argv)
    if args.distance is None:
        # As sh-pairs without -k: the width's K, and its --word-k (and --word-bytes) unless
        # --word-k is given.
        args.distance, default_word_k, default_word_bytes = DEFAULT_RULE[args.bits]
        if args.word_k is None:
            args.word_k = default_word_k
            if args.word_bytes is None:
                args.word_bytes = default_word_bytes
    if not 0 <= args.distance < args.bits:
        p.error("need 0 <= K < %d for %d-bit fingerprints" % (args.bits, args.bits))
    if args.word_k is not None and not 0 <= args.word_k <= 63:
        p.error("need 0 <= --word-k <= 63")
    args.k_per_word = word_k(args)
    args.tables_k = args.k_per_word  # the k of each word's tables
    if args.word_bytes is not None and not 0 <= args.word_bytes <= 7:
        p.error("need 0 <= --word-bytes <= 7")
    if args.bits == 64 or args.word_bytes is None or args.word_bytes >= args.k_per_word:
        args.word_bytes = None  # as sh-pairs: it narrows nothing
    else:
        # The tables are those of a search within --word-bytes over the 8 bytes of each word.
        if args.blocks not in (None, 8):
            p.error("--word-bytes searches each word by its 8 bytes: -b must be 8")
        args.blocks = 8
        args.tables_k = args.word_bytes
    if args.blocks is None:
        args.blocks = max(8, args.tables_k + 2)
    if not args.tables_k < args.blocks <= 64:
        if args.bits == 64:
            p.error("need 0 <= K < B <= 64")
        p.error("need k < B <= 64, k = %d the k of each word's search (floor(K/%d) or --word-k)"
                % (args.tables_k, args.bits // 64))
    if (args.max_df is not None or args.df_floor is not None or args.idf or args.max_tf is not None
            or args.min_kept is not None or args.min_run is not None) and not args.df:
        p.error("--max-df, --df-floor, --idf, --max-tf, --min-kept and --min-run go with --df")
    if args.min_run is not None and not 1 <= args.min_run <= 1000:
        p.error("need 1 <= --min-run <= 1000")
    if args.df and args.input_format == "fingerprints":
        p.error("--df needs documents, not --input-format fingerprints")
    if args.min_size < 1:
        p.error("need --min-size >= 1")
    if args.bin_dir is None:
        found = shutil.which("sh-pairs")
        if found is None:
            p.error("sh-pairs is not on PATH: give --bin-dir or set SH_TOOLS_BIN")
        args.bin_dir = os.path.dirname(os.path.abspath(found))
    return args


# sh-pairs' default K, --word-k and --word-bytes for each width (crates/sh-pairs/src/wide.rs,
# default_rule).
DEFAULT_RULE = {64: (6, None, None), 128: (20, 8, None), 256: (44, 8, 6)}


def word_k(args):
    """The k of each word's search, as sh-pairs takes it: K for 64 bits (or --word-k if less),
    floor(K / words) or --word-k if less for wide fingerprints."""
    k = args.distance // (args.bits // 64)
    return k if args.word_k is None else min(k, args.word_k)


def command_argv(args, name, *flags):
    """A command as an argument list, for the executors: in --bin-dir, or relative to the
    executor's working directory, where --files puts shipped files."""
    path = os.path.join(args.bin_dir, name)
    if not os.path.isabs(path):
        path = os.path.join(".", os.path.normpath(path))
    return [path, *flags]


def command(args, name, *flags):
    """A command line for RDD.pipe, which runs it without a shell and with an empty environment."""
    return " ".join(shlex.quote(word) for word in command_argv(args, name, *flags))


def key_partition(key):
    """The reduce partition of a key: any function of the key keeps each group in one task."""
    return zlib.crc32(key.encode("ascii"))


def split_key(line):
    key, _, value = line.partition("\t")
    return key, value


def join_key(pair):
    return pair[0] + "\t" + pair[1]


def by_line_numbers(line):
    """LINE_A<TAB>LINE_B<TAB>PAIR as ((LINE_A, LINE_B), PAIR)."""
    a, b, pair = line.split("\t", 2)
    return (int(a), int(b)), pair


def pipe(rdd, cmd):
    # checkCode: a failing command fails the task (and the job) instead of cutting its output.
    return rdd.pipe(cmd, checkCode=True)


def document_frequencies(sc, args, hashes, partitions):
    """The table of sh-df over the whole input, computed on the executors: sh-df on each
    partition, the counts added up by item in a shuffle, and, when more items remain than the
    capacity, the Misra-Gries cut that sh-df --merge makes (every count lowered by the
    (capacity + 1)-th largest). Only the table itself, at most --df-capacity items, comes to the
    driver. Returns its text, byte for byte what sh-df writes for the same input."""
    tables = pipe(hashes, command(args, "sh-df", "--quiet", "--capacity", str(args.df_capacity)))
    tables = tables.persist(StorageLevel.MEMORY_AND_DISK)

    def header(lines):
        first = next(iter(lines), None)
        if first is not None:
            fields = first.split("\t")
            yield int(fields[1]), int(fields[2]) if len(fields) > 2 else 0

    def items(lines):
        it = iter(lines)
        next(it, None)  # the partition's header
        for line in it:
            item, _, count = line.rpartition("\t")
            yield item, int(count)

    headers = tables.mapPartitions(header).collect()  # one small tuple per partition
    documents = sum(n for n, _ in headers)
    undercount = sum(e for _, e in headers)
    counts = tables.mapPartitions(items).reduceByKey(lambda a, b: a + b, numPartitions=partitions)
    counts = counts.persist(StorageLevel.MEMORY_AND_DISK)
    if counts.count() > args.df_capacity:
        cut = counts.map(lambda kv: kv[1]).takeOrdered(args.df_capacity + 1, key=lambda c: -c)[-1]
        undercount += cut
        counts = counts.mapValues(lambda c: c - cut).filter(lambda kv: kv[1] > 0)
    table = counts.collect()
    table.sort(key=lambda kv: (-kv[1], kv[0].encode("utf-8", "surrogateescape")))
    first = "#documents\t%d" % documents + ("\t%d" % undercount if undercount else "")
    tables.unpersist()
    return "".join([first + "\n"] + ["%s\t%d\n" % kv for kv in table])


def weigh(argv, table):
    """A partition function: sh-weight (argv) over the partition's lines, with the broadcast
    table written once to a temporary file of the executor."""

    def run(lines):
        fd, path = tempfile.mkstemp(suffix=".df")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(table.value)
            proc = subprocess.Popen(argv + ["--df", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

            def feed():
                try:
                    for line in lines:
                        proc.stdin.write(line.encode("utf-8") + b"\n")
                finally:
                    proc.stdin.close()

            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
            for out in proc.stdout:
                yield out.decode("utf-8").rstrip("\n")
            feeder.join()
            if proc.wait() != 0:
                raise RuntimeError("sh-weight failed with status %d" % proc.returncode)
        finally:
            os.unlink(path)

    return run


def id_partition(key):
    """The partition of an (ID, ...) key: all records of one id in one task."""
    return zlib.crc32(key[0].encode("utf-8", "surrogatepass"))


def node_partition(key):
    """The partition of a (NODE, ...) key, NODE an integer: all edges of one node in one task."""
    return key[0] * 0x9E3779B97F4A7C15 >> 40


def occurrences(ranked):
    """((ID_A<TAB>ID_B<TAB>DISTANCE), R), R the pair's rank in sh-pairs' order, as its two
    occurrences ((ID, 2R), None) and ((ID, 2R + 1), None): an id's occurrence number is its place
    in the stream of ids that sh-cluster reads."""
    pair, r = ranked
    a, b, _ = pair.split("\t", 2)
    return ((a, 2 * r), None), ((b, 2 * r + 1), None)


def number_nodes(records):
    """A partition function over occurrences sorted by (ID, occurrence): every id becomes a node
    named by its first occurrence, the order in which sh-cluster first meets its ids. Yields
    (0, NODE, ID) once for every id and (1, R, NODE) for every occurrence in pair R."""
    current = None
    for (ident, occurrence), _ in records:
        if ident != current:
            current, node = ident, occurrence
            yield 0, node, ident
        yield 1, occurrence >> 1, node


def large_star(changes):
    """A partition function over the edges, both ways, sorted as (U, V): connects every
    neighbour V > U of U to the least of U and its neighbours, M, instead of to U. Yields the new
    edges as (V, M), V > M; counts in `changes` the nodes whose edges moved (U has neighbours
    both below and above)."""

    def run(records):
        u = last = None
        for (a, b), _ in records:
            if a != u:
                u, least, last, moved = a, min(a, b), None, False  # sorted: b is the least neighbour
            if b == last:
                continue
            last = b
            if b > u:
                if least < u and not moved:
                    changes.add(1)
                    moved = True
                yield b, least

    return run


def small_star(changes):
    """A partition function over the edges sorted as (U, V), V < U: connects U and all its
    neighbours below it to the least of them, M. Yields the new edges as (V, M), V > M; counts in
    `changes` the nodes with more than one neighbour below."""

    def run(records):
        u = last = None
        for (a, b), _ in records:
            if a != u:
                u, least, last, below = a, b, None, 0  # sorted: b is the least neighbour
                yield u, least
            if b == last:
                continue
            last = b
            below += 1
            if below == 2:
                changes.add(1)
            if b != least:
                yield b, least

    return run


def connected_components(sc, args, edges, partitions):
    """The connected components of a graph of integer nodes, on the executors: large-star and
    small-star rounds (Kiveris et al., "Connected Components in MapReduce and Beyond", 2014)
    until neither moves an edge. Each step shuffles the edges once and sorts each partition, so
    that a node's neighbours arrive in order and are read as a stream (no node's neighbours are
    held in memory). At the end every component is a star: every node but the least has one
    edge, to the least. edges: (HIGH, LOW) pairs, HIGH > LOW, duplicates allowed. Returns the
    star's edges as (NODE, LEAST) for every node that is not the least of its component, and the
    number of rounds."""
    rounds = 0
    while True:
        rounds += 1
        large_changes, small_changes = sc.accumulator(0), sc.accumulator(0)
        sc.setJobDescription("clusters: connected components, round %d" % rounds)
        both = edges.flatMap(lambda e: (((e[0], e[1]), None), ((e[1], e[0]), None)))
        large = both.repartitionAndSortWithinPartitions(
            numPartitions=partitions, partitionFunc=node_partition
        ).mapPartitions(large_star(large_changes))
        small = (
            large.map(lambda e: (e, None))
            .repartitionAndSortWithinPartitions(numPartitions=partitions, partitionFunc=node_partition)
            .mapPartitions(small_star(small_changes))
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
        # Cut the lineage each round: reliable checkpoints with --checkpoint-dir, else local ones.
        if args.checkpoint_dir:
            small.checkpoint()
        else:
            small.localCheckpoint()
        small.count()
        edges.unpersist()
        edges = small
        if large_changes.value == 0 and small_changes.value == 0:
            return edges, rounds


def range_partitioner(keys, partitions):
    """A partition function that cuts the sorted keys into about equal ranges, from a sample of
    them (as sortByKey does): partition i holds smaller keys than partition i + 1."""
    if partitions <= 1:
        return lambda key: 0
    size = keys.count()
    fraction = min(20.0 * partitions / max(size, 1), 1.0)
    sample = sorted(keys.sample(False, fraction, 1).collect())  # about 20 keys a partition
    bounds = [sample[len(sample) * (i + 1) // partitions] for i in range(partitions - 1)] if sample else []
    return lambda key: bisect.bisect_left(bounds, key)


def cluster_runs(min_size):
    """A partition function over ((LABEL, NODE), ID) sorted by label, then node: the runs of one
    label, the ids of a cluster in sh-cluster's order, as lists of at least min_size ids."""

    def run(records):
        label, members = None, []
        for (node_label, _), ident in records:
            if node_label != label:
                if len(members) >= min_size:
                    yield members
                label, members = node_label, []
            members.append(ident)
        if len(members) >= min_size:
            yield members

    return run


def clusters(sc, args, pairs, partitions):
    """The clusters of the pairs, as sh-cluster forms them, computed on the executors. Returns an
    RDD of clusters, each a list of ids: the members in sh-cluster's order (of first appearance in
    the pairs), the clusters in sh-cluster's order (of their first member's first appearance)
    across the partitions; the number of rounds of the components algorithm; and the persisted
    RDDs it rests on, to unpersist when done."""
    # Each id is a node named by its first occurrence in the stream of pairs (ranked in sh-pairs'
    # order): the order of the nodes is the order in which sh-cluster first meets the ids.
    sc.setJobDescription("clusters: ids to nodes")
    numbered = (
        pairs.zipWithIndex()
        .flatMap(occurrences)
        .repartitionAndSortWithinPartitions(numPartitions=partitions, partitionFunc=id_partition)
        .mapPartitions(number_nodes)
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    numbered.count()
    nodes = numbered.filter(lambda r: r[0] == 0).map(lambda r: (r[1], r[2]))
    # The two nodes of each pair, as (HIGH, LOW); an id paired with itself has no edge.
    edges = (
        numbered.filter(lambda r: r[0] == 1)
        .map(lambda r: (r[1], (r[2], r[2])))
        .reduceByKey(lambda x, y: (max(x[0], y[0]), min(x[1], y[1])), numPartitions=partitions)
        .values()
        .filter(lambda e: e[0] != e[1])
    )
    stars, rounds = connected_components(sc, args, edges, partitions)
    # Each node's label is the least node of its component: the cluster's first member.
    sc.setJobDescription("clusters: labels and cluster lines")
    labelled = (
        nodes.leftOuterJoin(stars, numPartitions=partitions)
        .map(lambda kv: ((kv[0] if kv[1][1] is None else kv[1][1], kv[0]), kv[1][0]))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    by_label = range_partitioner(labelled.map(lambda kv: kv[0][0]), partitions)
    runs = (
        labelled.repartitionAndSortWithinPartitions(
            numPartitions=partitions, partitionFunc=lambda key: by_label(key[0])
        )
        .mapPartitions(cluster_runs(args.min_size))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    runs.count()
    return runs, rounds, (numbered, stars, labelled)


def document_id(record):
    """((FINGERPRINT LINE, INDEX)) as (ID, INDEX): the id, or the 1-based line number that names
    a record without one, as sh-pairs names it (a byte-order mark at the line's start is no
    part of the id: sh-pairs drops it)."""
    line, index = record
    line = line.removeprefix("\ufeff")
    ident, tab, _ = line.partition("\t")
    return (ident if tab else str(index + 1)), index


def kept_lines(records):
    """A partition function over ((INDEX, TAG), LINE) sorted by index and tag: the lines whose
    index has no drop mark (TAG 0) before them."""
    dropped = None
    for (index, tag), line in records:
        if tag == 0:
            dropped = index
        elif index != dropped:
            yield line


def keep(sc, args, docs, fingerprints, duplicates):
    """Writes the input lines of the documents that are not duplicates to --keep, in input order,
    one part file per input partition. A duplicate id drops every line with that id (as
    `grep -vxFf duplicates` on the ids). Reads the input once more and shuffles it once."""
    sc.setJobDescription("keep: the deduplicated corpus")
    # Line numbers without another pass over the input: each partition's first line number from
    # the counts of the (persisted) fingerprint lines, one line per document.
    counts = fingerprints.mapPartitions(lambda it: [sum(1 for _ in it)]).collect()  # one int a partition
    starts = [sum(counts[:i]) for i in range(len(counts))]

    def number(partition, lines):
        return enumerate(lines, starts[partition])

    dropped = (
        fingerprints.mapPartitionsWithIndex(number)
        .map(lambda r: document_id((r[1], r[0])))
        .join(duplicates.map(lambda ident: (ident, None)), numPartitions=len(counts))
        .map(lambda kv: ((kv[1][0], 0), None))
    )
    # The documents beside their fingerprint lines: the per-document stages keep every
    # partition's lines one for one, and zip fails if they do not.
    lines = docs.zip(fingerprints).mapPartitionsWithIndex(number).map(lambda r: ((r[0], 1), r[1][0]))
    # Partition i of the output holds the lines of input partition i.
    lines.union(dropped).repartitionAndSortWithinPartitions(
        numPartitions=len(counts), partitionFunc=lambda key: bisect.bisect_right(starts, key[0]) - 1
    ).mapPartitions(kept_lines).saveAsTextFile(args.keep)


def run(sc, args):
    """Runs the pipeline; returns (documents, pairs, clusters, rounds)."""
    partitions = args.partitions or sc.defaultParallelism
    table = ["-b", str(args.blocks), "-k", str(args.distance), "--quiet"]
    if args.word_k is not None:
        table += ["--word-k", str(args.word_k)]
    if args.word_bytes is not None:
        table += ["--word-bytes", str(args.word_bytes)]
    compute_flags = [] if args.bits == 64 else ["--bits", str(args.bits)]

    # 1. text -> fingerprints, one line per document, in input order.
    sc.setJobDescription("fingerprints")
    docs = sc.textFile(args.input, minPartitions=partitions)
    if args.input_format == "fingerprints":
        fingerprints = docs.persist(StorageLevel.MEMORY_AND_DISK)
    else:
        tokenize_flags = {
            "text": [],
            "tsv": ["--with-id"],
            "jsonl": ["--json", "--text-field", args.text_field]
            + (["--id-field", args.id_field] if args.id_field else []),
        }[args.input_format] + shlex.split(args.tokenize_args)
        tokens = pipe(docs, command(args, "sh-tokenize", "--quiet", *tokenize_flags))
        shingles = pipe(tokens, command(args, "sh-shingle", "-w", str(args.window)))
        hashes = pipe(shingles, command(args, "sh-hash"))
        if args.df:
            sc.setJobDescription("fingerprints: document frequencies")
            hashes = hashes.persist(StorageLevel.MEMORY_AND_DISK)
            df_table = document_frequencies(sc, args, hashes, partitions)
            sc.parallelize([df_table.rstrip("\n")], 1).saveAsTextFile(os.path.join(args.output, "df"))
            weight_flags = ["--quiet"] + (["--max-df", repr(args.max_df)] if args.max_df is not None else [])
            weight_flags += ["--df-floor", str(args.df_floor)] if args.df_floor is not None else []
            weight_flags += ["--idf"] if args.idf else []
            weight_flags += ["--max-tf", str(args.max_tf)] if args.max_tf is not None else []
            weight_flags += ["--min-kept", repr(args.min_kept)] if args.min_kept is not None else []
            weight_flags += ["--min-run", str(args.min_run)] if args.min_run is not None else []
            broadcast = sc.broadcast(df_table)
            hashes = hashes.mapPartitions(weigh(command_argv(args, "sh-weight", *weight_flags), broadcast))
        sc.setJobDescription("fingerprints")
        fingerprints = pipe(hashes, command(args, "sh-compute", *compute_flags)).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        fingerprints.saveAsTextFile(os.path.join(args.output, "fingerprints"))
    documents = fingerprints.count()

    # 2. fingerprints -> pairs: map, shuffle and sort by key, reduce.
    sc.setJobDescription("pairs")
    numbered = fingerprints.zipWithIndex().map(lambda fp_i: "%d\t%s" % (fp_i[1] + 1, fp_i[0]))
    mapped = pipe(numbered, command(args, "sh-pairs", "--map", "--numbered", *table))
    groups = mapped.map(split_key).repartitionAndSortWithinPartitions(
        numPartitions=partitions, partitionFunc=key_partition
    )
    reduce_flags = ["--reduce", "--numbered", *table] + (["--sparse"] if args.sparse else [])
    # Persisted: sortByKey reads it twice (to sample the range bounds, then to sort).
    found = pipe(groups.map(join_key), command(args, "sh-pairs", *reduce_flags)).persist(
        StorageLevel.MEMORY_AND_DISK
    )
    pairs = (
        found.map(by_line_numbers)
        .sortByKey(numPartitions=partitions)
        .map(lambda kv: kv[1])
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    pairs.saveAsTextFile(os.path.join(args.output, "pairs"))
    pair_count = pairs.count()

    # 3. pairs -> clusters, on the executors.
    if args.checkpoint_dir:
        sc.setCheckpointDir(args.checkpoint_dir)
    runs, rounds, held = clusters(sc, args, pairs, partitions)
    sc.setJobDescription("clusters: output")
    runs.map(lambda ids: "\t".join(ids)).saveAsTextFile(os.path.join(args.output, "clusters"))
    duplicates = runs.flatMap(lambda ids: ids[1:])
    duplicates.saveAsTextFile(os.path.join(args.output, "duplicates"))
    if args.labels:
        runs.flatMap(lambda ids: ("%s\t%s" % (i, ids[0]) for i in ids)).saveAsTextFile(
            os.path.join(args.output, "labels")
        )
    cluster_count = runs.count()
    if args.clusters:
        # The one path that brings clusters to the driver, asked for by name (small runs).
        with open(args.clusters, "w", encoding="utf-8", errors="surrogateescape") as f:
            for ids in runs.toLocalIterator():
                f.write("\t".join(ids) + "\n")

    # 4. The deduplicated corpus.
    if args.keep:
        keep(sc, args, docs, fingerprints, duplicates)

    for rdd in (fingerprints, found, pairs, runs, *held):
        rdd.unpersist()
    return documents, pair_count, cluster_count, rounds


def main(argv=None, sc=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    own = sc is None
    if own:
        sc = SparkContext.getOrCreate(SparkConf().setAppName("sh-tools"))
    try:
        documents, pairs, cluster_count, rounds = run(sc, args)
    finally:
        if own:
            sc.stop()
    words = args.bits // 64
    tables = binomial(args.blocks, args.tables_k)
    search = "K=%d, B=%d, %d tables" % (args.distance, args.blocks, tables)
    if words > 1:
        search = "%d-bit, K=%d in total, %d words within k=%d, B=%d, %d tables a word" % (
            args.bits, args.distance, words, args.k_per_word, args.blocks, tables)
        if args.word_bytes is not None:
            search += ", at most %d of a word's 8 bytes differing" % args.word_bytes
    print(
        "sh-tools on Spark: %d documents, %d pairs (%s), %d clusters (%d rounds of large-star and "
        "small-star), output in %s" % (documents, pairs, search, cluster_count, rounds, args.output),
        file=sys.stderr,
    )


def binomial(n, k):
    result = 1
    for i in range(min(k, n - k)):
        result = result * (n - i) // (i + 1)
    return result


if __name__ == "__main__":
    main()
