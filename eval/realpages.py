"""Builds the real-pages evaluation sets of eval/run.sh: HTML pages from Debian documentation
packages, with the text a naive crawler would keep (navigation, sidebars, headers and footers
included), each page with a copy whose main content carries word edits.

Sources (one HTML generator each, so that no choice is tuned to one template):

- sphinx: python3.11-doc (the Python 3.11 documentation: sidebar, "Previous topic / Next topic",
  "This Page", footers; genindex-* and py-modindex are generated lists). Main content:
  `div role="main"`.
- docbook: postgresql-doc-15 (DocBook XSL, chunked: navigation header and footer tables).
  Main content: the first top-level `div` that is neither `navheader` nor `navfooter`.
- mdbook: the mdBook books of rust-doc (The Rust Programming Language, the Reference, the
  Rustonomicon, Rust by Example, ...: every page carries the whole book's table of contents).
  Main content: `main`.
- rustdoc: the API pages of rust-doc (std, core, alloc, proc_macro, test; core::arch left out:
  17,000 generated intrinsics pages). Main content: `section id="main-content"`.
- asciidoc: git-doc (AsciiDoc manual pages: a header and a "Last updated" footer, little
  navigation). Main content: `div id="content"`.

Text: every text node outside script, style and head, in document order, a space at every
block-level tag, whitespace collapsed. A page whose main content has fewer than MIN_MAIN_WORDS
words is left out (redirect stubs, and pages that are only a title under the whole table of
contents), and so is every page whose main content is a near duplicate of a page already kept
(NEAR_JACCARD, NEAR_CONTAINMENT: std and core re-export the same items, rustdoc's iterator pages
repeat the Iterator trait's documentation), so that the corpus's own near duplicates do not count
as false positives. Pages are taken in a seeded random order until a source has its number. The
navigation is NOT considered there: pages that share only their template are exactly the
negatives this set is for.

For each rate in RATES a set realpages-N (N = the rate in percent): every sampled page and a copy
of it with max(1, round(rate * words)) word edits (insert, delete or substitute, as in
datasets.py) in its main content only; the text around it is kept byte for byte. Gold: labels
(a page and its copy are one family). categories.tsv names each document's source. Everything
is seeded: the same packages give the same sets.
"""

import argparse
import html.parser
import os
import random
import sys

from collections import Counter, defaultdict

from datasets import edit_units, shingle_set, write_meta, write_set

RATES = [0.02, 0.05]
MIN_MAIN_WORDS = 50
# A page is left out when its main content is a near duplicate of an already kept page's: word
# 5-gram Jaccard at least NEAR_JACCARD, or NEAR_CONTAINMENT of the smaller one's 5-grams in the
# other (as datasets.drop_near_duplicates, without its cap on common 5-grams: rustdoc's iterator
# pages share the Iterator trait's documentation, hundreds of pages of it).
NEAR_JACCARD = 0.2
NEAR_CONTAINMENT = 0.5
# source: (package, directory under usr/share/doc, pages sampled (None: all))
SOURCES = {
    "sphinx": ("python3.11-doc", "python3.11/html", None),
    "docbook": ("postgresql-doc-15", "postgresql-doc-15/html", 600),
    "mdbook": ("rust-doc", "rust-doc/html", 600),
    "rustdoc": ("rust-doc", "rust-doc/html", 600),
    "asciidoc": ("git-doc", "git-doc", None),
}
MDBOOKS = ("book", "edition-guide", "embedded-book", "nomicon", "reference", "rust-by-example",
           "rustc", "rustdoc", "unstable-book")
# The Rust book's old editions: 300 pages of one "no longer distributed" notice under its title.
OLD_EDITIONS = tuple(f"book{os.sep}{e}" for e in ("first-edition", "second-edition", "2018-edition"))
RUSTDOC_CRATES = ("std", "core", "alloc", "proc_macro", "test")
# Pages larger than this are left out (a few rustdoc pages of generated impls run to megabytes).
MAX_PAGE_BYTES = 400_000

BLOCK = {"address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div",
         "dl", "dt", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
         "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
         "tbody", "td", "tfoot", "th", "thead", "tr", "ul"}
SKIP = {"script", "style", "head", "template"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def is_main(source, tag, attrs, div_depth):
    """Whether this start tag opens the page's main content, for the source's generator."""
    if source == "sphinx":
        return tag == "div" and attrs.get("role") == "main"
    if source == "docbook":
        return tag == "div" and div_depth == 0 and attrs.get("class") not in ("navheader", "navfooter")
    if source == "mdbook":
        return tag == "main"
    if source == "rustdoc":
        return tag == "section" and attrs.get("id") == "main-content"
    return tag == "div" and attrs.get("id") == "content"


class PageText(html.parser.HTMLParser):
    """The visible text of a page in three parts: before the main content, the main content,
    after it."""

    def __init__(self, source):
        super().__init__(convert_charrefs=True)
        self.source = source
        self.parts = ([], [], [])
        self.part = 0  # 0 before, 1 inside, 2 after the main content
        self.skip = 0
        self.div_depth = 0
        self.main_tag, self.main_depth = None, 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self.skip += 1
            return
        if tag in BLOCK:
            self.parts[self.part].append(" ")
        if self.part == 0 and not self.skip and is_main(self.source, tag, dict(attrs), self.div_depth):
            self.part, self.main_tag, self.main_depth = 1, tag, 0
        if self.part == 1 and tag == self.main_tag and tag not in VOID:
            self.main_depth += 1
        if tag == "div":
            self.div_depth += 1

    def handle_endtag(self, tag):
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag == "div":
            self.div_depth = max(0, self.div_depth - 1)
        if self.part == 1 and tag == self.main_tag:
            self.main_depth -= 1
            if self.main_depth == 0:
                self.part = 2
        if tag in BLOCK:
            self.parts[self.part].append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts[self.part].append(data)

    def text(self):
        return tuple(" ".join("".join(p).split()) for p in self.parts)


def page_text(path, source):
    with open(path, "rb") as f:
        raw = f.read()
    parser = PageText(source)
    parser.feed(raw.decode("utf-8", errors="replace"))
    parser.close()
    return parser.text()


def candidates(doc_root, source):
    """The HTML files of a source, as paths relative to its directory, sorted."""
    _, directory, _ = SOURCES[source]
    root = os.path.join(doc_root, directory)
    found = []
    for current, dirs, files in os.walk(root):
        dirs.sort()
        rel_dir = os.path.relpath(current, root)
        top = rel_dir.split(os.sep)[0]
        if source == "sphinx" and top.startswith("_"):
            continue
        if source == "mdbook" and (top not in MDBOOKS or rel_dir.startswith(OLD_EDITIONS)):
            continue
        if source == "rustdoc" and (top not in RUSTDOC_CRATES or "arch" in rel_dir.split(os.sep)):
            continue
        if source == "asciidoc" and rel_dir != ".":
            continue
        for name in sorted(files):
            path = os.path.join(current, name)
            if name.endswith(".html") and not os.path.islink(path) and os.path.getsize(path) <= MAX_PAGE_BYTES:
                found.append(os.path.relpath(path, root))
    return sorted(found)


def read_source(doc_root, source, seed):
    """The pages of one source: [(id, (before, main, after))], sampled, stubs and near
    duplicates of the main content left out. Returns the pages and a count of what was left out."""
    _, directory, wanted = SOURCES[source]
    root = os.path.join(doc_root, directory)
    found = candidates(doc_root, source)
    pages = []
    for rel in found:
        parts = page_text(os.path.join(root, rel), source)
        if len(parts[1].split()) >= MIN_MAIN_WORDS:
            pages.append((f"{source}:{rel}", parts))
    stubs = len(found) - len(pages)
    random.Random(f"{seed}-{source}").shuffle(pages)
    kept, near = [], 0
    postings = defaultdict(list)  # main-content 5-gram -> positions in kept
    sizes = []
    for doc_id, parts in pages:
        if wanted is not None and len(kept) == wanted:
            break
        grams = shingle_set(parts[1], "en")
        shared = Counter(k for g in grams for k in postings.get(g, ()))
        if any(common / (len(grams) + sizes[k] - common) >= NEAR_JACCARD
               or common / max(1, min(len(grams), sizes[k])) >= NEAR_CONTAINMENT
               for k, common in shared.items()):
            near += 1
            continue
        for g in grams:
            postings[g].append(len(kept))
        sizes.append(len(grams))
        kept.append((doc_id, parts))
    return sorted(kept), {"stubs_left_out": stubs, "near_duplicates_left_out": near}


def make_set(out, pages_by_source, rate, seed, versions, dropped):
    rows, labels, categories = [], [], []
    per_source = {}
    for source, pages in pages_by_source.items():
        rng = random.Random(f"{seed}-{source}-{rate}")
        vocabulary = [w for _, parts in pages for w in parts[1].split()]
        for doc_id, (before, main, after) in pages:
            edited = edit_units(main, rate, vocabulary, rng, "en")
            copy = " ".join(p for p in (before, edited, after) if p)
            copy_id = f"{doc_id}#edit-{round(rate * 100)}"
            rows.append((doc_id, " ".join(p for p in (before, main, after) if p)))
            rows.append((copy_id, copy))
            labels += [(doc_id, doc_id), (copy_id, doc_id)]
            categories += [(doc_id, source), (copy_id, source)]
        words = sorted(len(" ".join(parts).split()) for _, parts in pages)
        main_words = sorted(len(parts[1].split()) for _, parts in pages)
        per_source[source] = {
            "package": versions.get(SOURCES[source][0], SOURCES[source][0]),
            "pages": len(pages),
            "median_words": words[len(words) // 2],
            "median_main_words": main_words[len(main_words) // 2],
            "main_share": round(sum(main_words) / max(1, sum(words)), 3),
            **dropped[source],
        }
    write_set(out, rows, labels, categories, random.Random(f"{seed}-order-{rate}"))
    write_meta(out, {
        "kind": "realpages",
        "language": "en",
        "gold_format": "labels",
        "rate": rate,
        "categories": list(pages_by_source),
        "documents": len(rows),
        "pages": len(rows) // 2,
        "sources": per_source,
        "size_unit": "words",
    })


def read_versions(path):
    """`PACKAGE VERSION` lines (dpkg-deb -W) as a dict of 'PACKAGE VERSION' strings."""
    versions = {}
    if path and os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            if line.strip():
                package, version = line.split()
                versions[package] = f"{package} {version}"
    return versions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", required=True, help="the packages unpacked (dpkg-deb -x) into one tree")
    parser.add_argument("--versions", help="PACKAGE VERSION lines of the packages")
    parser.add_argument("--out", required=True, help="directory for the sets")
    parser.add_argument("--seed", type=int, default=20261123)
    args = parser.parse_args()
    doc_root = os.path.join(args.tree, "usr", "share", "doc")
    versions = read_versions(args.versions)
    pages_by_source, dropped = {}, {}
    for source in SOURCES:
        pages_by_source[source], dropped[source] = read_source(doc_root, source, args.seed)
        print(f"realpages: {source}: {len(pages_by_source[source])} pages {dropped[source]}",
              file=sys.stderr)
    for rate in RATES:
        make_set(os.path.join(args.out, f"realpages-{round(rate * 100)}"), pages_by_source, rate,
                 args.seed, versions, dropped)


if __name__ == "__main__":
    main()
