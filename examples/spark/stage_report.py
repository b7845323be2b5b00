#!/usr/bin/env python3
"""Sums a Spark event log by step of the driver (the job descriptions driver.py sets: fingerprints,
pairs, clusters: ...), for docs/SCALE.md:

    python3 stage_report.py EVENT_LOG_FILE

For each step: wall time (first stage submitted to last stage completed), executor run time
(summed over tasks, so up to cores x wall time), shuffle bytes written, shuffle
bytes read, bytes spilled to disk (Spark's shuffle records are PySpark's pickled batches, not
lines, so they are left out). A stage counts once, for the step that ran it (a stage that
an earlier job already computed is skipped and has no completion event). Rounds of the
connected components are summed into one line and counted.
"""

import collections
import json
import re
import sys

METRICS = {
    "internal.metrics.executorRunTime": "run_ms",
    "internal.metrics.shuffle.write.bytesWritten": "shuffle_write",
    "internal.metrics.shuffle.write.recordsWritten": "shuffle_records",
    "internal.metrics.shuffle.read.remoteBytesRead": "shuffle_read",
    "internal.metrics.shuffle.read.localBytesRead": "shuffle_read",
    "internal.metrics.diskBytesSpilled": "spilled",
    "internal.metrics.input.bytesRead": "input",
}


def main():
    path = sys.argv[1]
    description = {}  # stage id -> the step that submitted it
    steps = collections.OrderedDict()
    rounds = set()
    stages = []  # outside the rounds: (step, stage name, wall s, shuffle bytes, shuffle records)
    with open(path, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            kind = event.get("Event")
            if kind == "SparkListenerStageSubmitted":
                props = event.get("Properties") or {}
                desc = props.get("spark.job.description", "(no description)")
                m = re.match(r"clusters: connected components, round (\d+)", desc)
                if m:
                    rounds.add(int(m.group(1)))
                    desc = "clusters: connected components, all rounds"
                description[event["Stage Info"]["Stage ID"]] = desc
            elif kind == "SparkListenerStageCompleted":
                info = event["Stage Info"]
                desc = description.get(info["Stage ID"], "(no description)")
                values = {acc.get("Name"): int(acc.get("Value", 0)) for acc in info.get("Accumulables", [])}
                if not desc.startswith("clusters: connected components"):
                    stages.append((desc, info["Stage Name"], (info.get("Completion Time", 0) - info.get("Submission Time", 0)) / 1000.0,
                                   values.get("internal.metrics.shuffle.write.bytesWritten", 0),
                                   values.get("internal.metrics.shuffle.write.recordsWritten", 0)))
                step = steps.setdefault(desc, collections.Counter(first=None, last=None, stages=0))
                start, end = info.get("Submission Time"), info.get("Completion Time")
                if start is not None and (step["first"] is None or start < step["first"]):
                    step["first"] = start
                if end is not None and (step["last"] is None or end > step["last"]):
                    step["last"] = end
                step["stages"] += 1
                for acc in info.get("Accumulables", []):
                    key = METRICS.get(acc.get("Name"))
                    if key:
                        step[key] += int(acc.get("Value", 0))
    print("| step | stages | wall s | executor run s | shuffle written | shuffle read | spilled |")
    print("|---|---|---|---|---|---|---|")
    total = collections.Counter()
    for desc, s in steps.items():
        wall = (s["last"] - s["first"]) / 1000.0 if s["first"] is not None else 0.0
        total["wall"] += wall
        for key in ("run_ms", "shuffle_write", "shuffle_records", "shuffle_read", "spilled", "stages"):
            total[key] += s[key]
        print("| %s | %d | %.1f | %.1f | %s | %s | %s |" % (
            desc, s["stages"], wall, s["run_ms"] / 1000.0, size(s["shuffle_write"]),
            size(s["shuffle_read"]), size(s["spilled"])))
    print("| total | %d | %.1f | %.1f | %s | %s | %s |" % (
        total["stages"], total["wall"], total["run_ms"] / 1000.0, size(total["shuffle_write"]),
        size(total["shuffle_read"]), size(total["spilled"])))
    if rounds:
        print("\nconnected components: %d rounds" % max(rounds))
    print("\n| step | stage | wall s | shuffle written |")
    print("|---|---|---|---|")
    for desc, name, wall, written, _ in stages:
        print("| %s | %s | %.1f | %s |" % (desc, re.sub(r" at /.*/", " at ", name), wall, size(written)))


def size(n):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1000.0


if __name__ == "__main__":
    main()
