#!/usr/bin/env python3
"""Runs driver.py several times in one SparkContext (one JVM start instead of one per run), for
ci-test.sh: each argument is one run's driver flags, as a single shell-quoted string.

    spark-submit ci_runs.py "--input docs.txt -k 3 -b 6 --output out1" "--input ... --output out2"
"""

import os
import shlex
import sys
import time

from pyspark import SparkConf, SparkContext


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sc = SparkContext.getOrCreate(SparkConf().setAppName("sh-tools ci"))
    sc.setLogLevel("WARN")
    # The driver's functions are pickled by reference: the executors import it too.
    sc.addPyFile(os.path.join(here, "driver.py"))
    import driver

    try:
        for flags in sys.argv[1:]:
            started = time.time()
            driver.main(shlex.split(flags), sc=sc)
            print("  %.1f s: driver.py %s" % (time.time() - started, flags), file=sys.stderr)
    finally:
        sc.stop()


if __name__ == "__main__":
    main()
