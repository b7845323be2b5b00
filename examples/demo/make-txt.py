#!/usr/bin/env python3
"""Regenerate docs.txt (ID<TAB>TEXT, one document per line) from docs.jsonl.

Usage: python3 make-txt.py [docs.jsonl [docs.txt]]
Defaults to the files beside this script. Standard library only; the output
depends only on the input (same order, UTF-8, LF line endings). Any TAB, CR or
LF inside an id is an error; inside a text it becomes a single space.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    src = argv[1] if len(argv) > 1 else os.path.join(HERE, "docs.jsonl")
    dst = argv[2] if len(argv) > 2 else os.path.join(HERE, "docs.txt")
    lines = []
    with open(src, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            doc = json.loads(line)
            doc_id, text = str(doc["id"]), doc["text"]
            if re.search(r"[\t\r\n]", doc_id):
                sys.exit(f"make-txt.py: {src}: line {n}: id contains TAB or newline: {doc_id!r}")
            text = re.sub(r"[\t\r\n]+", " ", text)
            lines.append(f"{doc_id}\t{text}\n")
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    os.replace(tmp, dst)


if __name__ == "__main__":
    main(sys.argv)
