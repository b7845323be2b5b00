"""Builds the evaluation sets of eval/run.sh from the fetched raw data.

Each set is a directory with docs.tsv (ID<TAB>TEXT, one document per line), gold.tsv (the gold
standard in the form sh-score reads) and meta.json (what the set is, its gold format and, for the
synthetic sets, which document was made by which edit: categories.tsv).

- synthetic: real English text (the Linux kernel documentation, scripts/fetch-linux-doc.sh),
  sampled base documents, a copy of each under every edit of EDITS, and unrelated documents as
  negatives. Gold: ID<TAB>FAMILY labels (a base and all its copies are one family).
- licenses: the full texts of the SPDX licenses (npm package spdx-license-list). Gold: every pair
  whose word sequences match at a difflib ratio of at least LICENSE_RATIO (with the ratio as a
  third field).
- cjk: Chinese manual pages (Debian's manpages-zh, zh_CN), with the same edits made on
  characters (and on the words of other scripts between them: option names and the like).
  Gold: labels, as for synthetic.

Everything is seeded: the same raw data gives the same sets.
"""

import argparse
import difflib
import gzip
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict

# The edits, in table order: (category, kind, rate).
EDITS = [
    ("edit-1", "words", 0.01),
    ("edit-5", "words", 0.05),
    ("edit-10", "words", 0.10),
    ("edit-20", "words", 0.20),
    ("reorder", "reorder", None),
    ("boiler-start", "boiler-start", None),
    ("boiler-end", "boiler-end", None),
]

LICENSE_RATIO = 0.9

HEADER_EN = (
    "Skip to main content. Home Products Solutions Documentation Blog Community Support "
    "Pricing About us Contact Sign in Create a free account. Search the documentation. "
    "You are reading the documentation for the latest stable release. Was this page helpful? "
    "Edit this page on our public repository, or report a problem with it. Last updated "
    "recently by our documentation team. Table of contents"
)
FOOTER_EN = (
    "Copyright 2024 Example Documentation Project and its contributors. All rights reserved. "
    "This site uses cookies to improve your experience and to analyse traffic; by continuing "
    "to browse you accept our cookie policy. Privacy policy. Terms of use. Accessibility. "
    "Subscribe to our newsletter for news, releases and security announcements. Follow us on "
    "social media. Back to top"
)
HEADER_ZH = (
    "跳到主要内容。首页 产品 解决方案 文档中心 技术博客 开发者社区 帮助与支持 关于我们 联系我们 "
    "登录 免费注册。搜索文档。您正在阅读最新稳定版本的文档。本页内容是否对您有帮助？"
    "欢迎在公开仓库中编辑本页或报告问题。目录"
)
FOOTER_ZH = (
    "版权所有 二〇二四 示例文档项目及其贡献者，保留所有权利。本网站使用缓存文件改善您的浏览体验"
    "并分析访问流量，继续浏览即表示您同意我们的隐私政策。使用条款。无障碍说明。订阅我们的新闻邮件，"
    "获取最新版本与安全公告。返回顶部"
)

WORD = re.compile(r"\w+")
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_UNIT = re.compile(rf"\s+|[{CJK}]|[^\s{CJK}]+")
CJK_CHAR = re.compile(rf"[{CJK}]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--linux-doc", required=True, help="ID<TAB>TEXT from fetch-linux-doc.sh")
    parser.add_argument("--licenses", required=True, help="the unpacked spdx-license-list package")
    parser.add_argument("--manpages", required=True, help="the unpacked manpages-zh package")
    parser.add_argument("--out", required=True, help="directory for the sets")
    parser.add_argument("--bases", type=int, default=2000, help="base documents (synthetic)")
    parser.add_argument("--cjk-bases", type=int, default=300, help="base documents (cjk)")
    parser.add_argument("--seed", type=int, default=20261121)
    args = parser.parse_args()

    english = read_linux_doc(args.linux_doc)
    make_synthetic(
        os.path.join(args.out, "synthetic"), english, args.bases, args.seed, language="en"
    )
    make_licenses(os.path.join(args.out, "licenses"), args.licenses)
    chinese = read_manpages(args.manpages)
    make_synthetic(os.path.join(args.out, "cjk"), chinese, args.cjk_bases, args.seed, language="zh")
    make_families(os.path.join(args.out, "families"), english, args.seed)


# --- reading the raw data ------------------------------------------------------------------


def read_linux_doc(path):
    """The English documents: everything but the translations, as (id, text)."""
    docs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            doc_id, _, text = line.rstrip("\n").partition("\t")
            if not doc_id.startswith("translations/"):
                docs.append((doc_id, text))
    return docs


ROFF_COMMENT = re.compile(r'^\.\s*\\".*$|^\'\\".*$', re.M)
ROFF_REQUEST = re.compile(r"^[.'][ \t]*([A-Za-z]{1,3})\b[ \t]*", re.M)
ROFF_ESCAPE = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\[*n]\(..|\\[*n].|\\s[+-]?\d|\\[&/,:^|%]|\\\(..")


def roff_to_text(source):
    """The text of a manual page: comments and requests dropped, arguments and escapes kept as
    text. Rough, but it keeps every word and character a reader sees."""
    text = ROFF_COMMENT.sub("", source)
    text = re.sub(r"^\.(?:so|de|ds|nr|if|ie|el|ig|tr|ta|in|ti|ne|sp|br|fi|nf|ad|na|hy|nh)\b.*$",
                  "", text, flags=re.M)
    text = ROFF_REQUEST.sub("", text)
    text = ROFF_ESCAPE.sub("", text)
    text = text.replace("\\-", "-").replace("\\e", "\\").replace('"', "")
    return " ".join(text.split())


def read_manpages(tree):
    """The Chinese (zh_CN) manual pages as (id, text), id the page's path under man/zh_CN."""
    root = os.path.join(tree, "usr", "share", "man", "zh_CN")
    docs = []
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rb") as f:
                source = f.read().decode("utf-8", errors="replace")
            doc_id = os.path.relpath(path, root)
            docs.append((doc_id.removesuffix(".gz"), roff_to_text(source)))
    docs.sort()
    return docs


# --- the synthetic sets --------------------------------------------------------------------


def units(text, language):
    """What an edit works on: words (English); CJK characters, other words and the spaces
    between them (Chinese: spaces are kept, never edited)."""
    if language == "en":
        return text.split(" ")
    return CJK_UNIT.findall(text)


def editable(unit, language):
    return language == "en" or not unit.isspace()


def size(text, language):
    """Words; in Chinese text, CJK characters and the words of other scripts between them."""
    if language == "en":
        return len(text.split())
    return sum(1 for u in CJK_UNIT.findall(text) if not u.isspace())


def shingle_set(text, language, n=5):
    tokens = WORD.findall(text.lower()) if language == "en" else CJK_CHAR.findall(text)
    return {" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def drop_near_duplicates(docs, language):
    """Leaves out every document that is already a near duplicate of an earlier one (5-gram
    Jaccard >= 0.2, or half of the smaller one's 5-grams in the other), so that the corpus's own
    near duplicates do not count as false positives. Returns the kept documents and how many
    were dropped."""
    sets = [shingle_set(text, language) for _, text in docs]
    postings = defaultdict(list)
    for i, s in enumerate(sets):
        for g in s:
            postings[g].append(i)
    shared = Counter()
    for members in postings.values():
        if 1 < len(members) <= 50:  # very common 5-grams are boilerplate, not evidence
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    shared[members[x], members[y]] += 1
    dropped = set()
    for (i, j), common in sorted(shared.items()):
        if i in dropped:
            continue
        a, b = len(sets[i]), len(sets[j])
        if common / (a + b - common) >= 0.2 or common / min(a, b) >= 0.5:
            dropped.add(j)
    return [doc for k, doc in enumerate(docs) if k not in dropped], len(dropped)


def edit_units(text, rate, vocabulary, rng, language):
    """Inserts, deletes or substitutes (each equally likely) max(1, round(rate * n)) units at
    random places, n the document's size in units (see size)."""
    us = units(text, language)
    count = max(1, round(rate * size(text, language)))

    def place():
        """A random editable unit (rejection sampling: most units are)."""
        for _ in range(10000):
            k = rng.randrange(len(us))
            if editable(us[k], language):
                return k
        return None

    for _ in range(count):
        op = rng.choice(("insert", "delete", "substitute"))
        k = place() if us else None
        if k is None or (op == "delete" and len(us) < 2):
            op = "insert"
        if op == "insert":
            us.insert(rng.randrange(len(us) + 1), rng.choice(vocabulary))
        elif op == "delete":
            del us[k]
        else:
            us[k] = rng.choice(vocabulary)
    separator = " " if language == "en" else ""
    return " ".join(separator.join(us).split())


SENTENCE_END = {
    "en": re.compile(r"(?<=[.!?])\s+"),
    "zh": re.compile(r"(?<=[。！？])|(?<=[.!?])\s+"),
}


def reorder(text, rng, language):
    """The sentences in a random order."""
    sentences = [s for s in SENTENCE_END[language].split(text) if s.strip()]
    rng.shuffle(sentences)
    return " ".join(" ".join(sentences).split())


def make_synthetic(out, docs, wanted, seed, language):
    rng = random.Random(seed)
    minimum = 100 if language == "en" else 200
    docs = [(i, t) for i, t in docs if size(t, language) >= 20]
    docs, dropped = drop_near_duplicates(docs, language)
    long_enough = [d for d in docs if size(d[1], language) >= minimum]
    bases = rng.sample(long_enough, min(wanted, len(long_enough)))
    base_ids = {i for i, _ in bases}
    negatives = [d for d in docs if d[0] not in base_ids]
    vocabulary = []
    for _, text in bases:
        vocabulary.extend(u for u in units(text, language) if u and editable(u, language))
    header, footer = (HEADER_EN, FOOTER_EN) if language == "en" else (HEADER_ZH, FOOTER_ZH)

    os.makedirs(out, exist_ok=True)
    rows, labels, categories = [], [], []
    for doc_id, text in bases:
        rows.append((doc_id, text))
        labels.append((doc_id, doc_id))
        categories.append((doc_id, "base"))
        for category, kind, rate in EDITS:
            if kind == "words":
                copy = edit_units(text, rate, vocabulary, rng, language)
            elif kind == "reorder":
                copy = reorder(text, rng, language)
            elif kind == "boiler-start":
                copy = header + " " + text
            else:
                copy = text + " " + footer
            copy_id = f"{doc_id}#{category}"
            rows.append((copy_id, copy))
            labels.append((copy_id, doc_id))
            categories.append((copy_id, category))
    for doc_id, text in negatives:
        rows.append((doc_id, text))
        categories.append((doc_id, "negative"))
    write_set(out, rows, labels, categories, rng)
    meta = {
        "kind": "synthetic",
        "language": language,
        "gold_format": "labels",
        "categories": [c for c, _, _ in EDITS],
        "bases": len(bases),
        "negatives": len(negatives),
        "documents": len(rows),
        "corpus_near_duplicates_dropped": dropped,
        "median_size": sorted(size(t, language) for _, t in bases)[len(bases) // 2],
        "size_unit": "words" if language == "en" else "CJK characters and other words",
    }
    write_meta(out, meta)


# Families of near duplicates of many sizes: for each size, two bases with that many copies.
# The largest are beyond both the --df-floor (50) and 2% of the set's documents, so that the
# text each family shares is what corpus statistics would leave out as common.
FAMILY_COPIES = [3, 6, 12, 25, 50, 75, 100, 150]
FAMILY_EDIT_RATES = [0.01, 0.02, 0.05]
FAMILY_NEGATIVES = 2500


def make_families(out, docs, seed):
    """English documents, FAMILY_NEGATIVES of them alone and two bases for each size in
    FAMILY_COPIES with that many copies, each copy with word edits at a rate drawn from
    FAMILY_EDIT_RATES. Categories: the copies of the "small" families (up to 25 copies) and of
    the "large" ones (50 and more)."""
    rng = random.Random(seed + 7)
    docs = [(i, t) for i, t in docs if size(t, "en") >= 20]
    docs, dropped = drop_near_duplicates(docs, "en")
    long_enough = [d for d in docs if size(d[1], "en") >= 100]
    bases = rng.sample(long_enough, 2 * len(FAMILY_COPIES))
    base_ids = {i for i, _ in bases}
    negatives = rng.sample([d for d in docs if d[0] not in base_ids], FAMILY_NEGATIVES)
    vocabulary = [u for _, text in bases for u in units(text, "en") if u and editable(u, "en")]
    rows, labels, categories = [], [], []
    for n, (doc_id, text) in enumerate(bases):
        copies = FAMILY_COPIES[n // 2]
        category = "small" if copies <= 25 else "large"
        rows.append((doc_id, text))
        labels.append((doc_id, doc_id))
        categories.append((doc_id, "base"))
        for c in range(copies):
            copy_id = f"{doc_id}#{c}"
            rows.append((copy_id, edit_units(text, rng.choice(FAMILY_EDIT_RATES), vocabulary, rng, "en")))
            labels.append((copy_id, doc_id))
            categories.append((copy_id, category))
    for doc_id, text in negatives:
        rows.append((doc_id, text))
        categories.append((doc_id, "negative"))
    write_set(out, rows, labels, categories, rng)
    write_meta(out, {
        "kind": "synthetic",
        "language": "en",
        "gold_format": "labels",
        "categories": ["small", "large"],
        "bases": len(bases),
        "negatives": len(negatives),
        "documents": len(rows),
        "family_copies": FAMILY_COPIES,
        "edit_rates": FAMILY_EDIT_RATES,
        "corpus_near_duplicates_dropped": dropped,
        "median_size": sorted(size(t, "en") for _, t in bases)[len(bases) // 2],
        "size_unit": "words",
    })


# --- the license set -----------------------------------------------------------------------


def make_licenses(out, package):
    with open(os.path.join(package, "spdx-full.json"), encoding="utf-8") as f:
        full = json.load(f)
    docs = []
    for license_id in sorted(full):
        text = " ".join((full[license_id].get("licenseText") or "").split())
        if text:
            docs.append((license_id, text))
    words = [WORD.findall(text.lower()) for _, text in docs]
    vocab = [set(w) for w in words]
    gold = []
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            a, b = words[i], words[j]
            if not a or not b:
                continue
            # difflib's ratio is 2M / (|a| + |b|) <= 2 min / (|a| + |b|): skip pairs that
            # cannot reach it, and pairs whose vocabularies are too far apart to.
            if 2 * min(len(a), len(b)) / (len(a) + len(b)) < LICENSE_RATIO:
                continue
            union = len(vocab[i] | vocab[j])
            if union and len(vocab[i] & vocab[j]) / union < 0.5:
                continue
            if a == b:
                ratio = 1.0
            else:
                matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
                if matcher.quick_ratio() < LICENSE_RATIO:
                    continue
                ratio = matcher.ratio()
            if ratio >= LICENSE_RATIO:
                gold.append((docs[i][0], docs[j][0], f"{ratio:.4f}"))
    os.makedirs(out, exist_ok=True)
    write_tsv(os.path.join(out, "docs.tsv"), docs)
    write_tsv(os.path.join(out, "gold.tsv"), gold)
    with open(os.path.join(package, "package.json"), encoding="utf-8") as f:
        version = json.load(f)["version"]
    meta = {
        "kind": "licenses",
        "gold_format": "pairs",
        "documents": len(docs),
        "gold_pairs": len(gold),
        "identical_pairs": sum(1 for g in gold if g[2] == "1.0000"),
        "ratio": LICENSE_RATIO,
        "package": f"spdx-license-list {version}",
        "median_size": sorted(len(w) for w in words)[len(words) // 2],
        "size_unit": "words",
    }
    write_meta(out, meta)


# --- output --------------------------------------------------------------------------------


def write_set(out, rows, labels, categories, rng):
    """A set's files in `out`: docs.tsv (the documents in an order shuffled by `rng`, so that
    a family does not sit together in the input), gold.tsv and categories.tsv."""
    order = list(range(len(rows)))
    rng.shuffle(order)
    os.makedirs(out, exist_ok=True)
    write_tsv(os.path.join(out, "docs.tsv"), [rows[k] for k in order])
    write_tsv(os.path.join(out, "gold.tsv"), labels)
    write_tsv(os.path.join(out, "categories.tsv"), categories)


def write_tsv(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write("\t".join(row) + "\n")


def write_meta(out, meta):
    with open(os.path.join(out, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    print(f"{out}: {json.dumps(meta)}", file=sys.stderr)


if __name__ == "__main__":
    main()
