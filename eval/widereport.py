"""Tables of the wide-fingerprint evaluation (eval/wide.py): written to --report."""


def write(wide, report, names):
    with open(report, "w", encoding="utf-8") as f:
        f.write(f"pair finder: {wide.backend}\n")
