#!/usr/bin/env python3
"""Writes a deterministic test corpus with planted near-duplicates: DIR/docs.jsonl (`id` and
`text` fields) and DIR/docs.txt (the same texts, one per line).

    python3 make_corpus.py DIR [DOCUMENTS]

About DOCUMENTS documents (default 3000): unrelated documents of 3 to 200 words; variants of some
of them with one to three words replaced, dropped or added (near-duplicates a few bits apart);
exact copies; documents with no words at all (empty fingerprints); and some non-ASCII text.
"""

import json
import os
import random
import sys


def main():
    out = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = random.Random(20070508)  # the paper's conference, WWW 2007
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zu", "pe", "an", "or", "el", "ix"]
    vocabulary = sorted(
        {"".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(3000)}
    )
    vocabulary += ["école", "straße", "naïve", "Ωmega", "中文", "日本語", "1911", "x86"]

    def document(words):
        return [rng.choice(vocabulary) for _ in range(words)]

    def edit(words):
        words = list(words)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(words))
            action = rng.random()
            if action < 0.6:
                words[at] = rng.choice(vocabulary)
            elif action < 0.8 and len(words) > 1:
                del words[at]
            else:
                words.insert(at, rng.choice(vocabulary))
        return words

    base_count = total * 2 // 3
    bases = [document(rng.randint(3, 200)) for _ in range(base_count)]
    docs = [" ".join(words) for words in bases]
    # Near-duplicates: long documents, where a few edits move only a few fingerprint bits.
    long_bases = [words for words in bases if len(words) >= 80]
    while len(docs) < total * 95 // 100:
        original = rng.choice(long_bases)
        docs.append(" ".join(edit(original)))
    # Exact copies, some with other spacing and case (the same tokens).
    while len(docs) < total * 99 // 100:
        text = rng.choice(docs)
        docs.append(text.upper() if rng.random() < 0.3 else text.replace(" ", "  "))
    # Documents without a single token.
    docs += ["", "!!! ...", "  ", "—", "?"] * ((total - len(docs)) // 5 + 1)
    docs = docs[:total]
    rng.shuffle(docs)

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "docs.jsonl"), "w", encoding="utf-8") as jsonl, open(
        os.path.join(out, "docs.txt"), "w", encoding="utf-8"
    ) as txt:
        for n, text in enumerate(docs, 1):
            jsonl.write(json.dumps({"id": "doc-%05d" % n, "text": text}, ensure_ascii=False) + "\n")
            txt.write(text + "\n")


if __name__ == "__main__":
    main()
