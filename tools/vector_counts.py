#!/usr/bin/env python3
# Counts the tests, `invalid` tests and tests flagged `tie` in vector files, as a Markdown table.
#
#   python3 tools/vector_counts.py vectors/ops/qlinear/add/*.json ...
#
# The figures a change note quotes for its new families ("N tests, M with exact ties") come from
# here: it reads the files as shipped (every test of every testGroup), never the generator's notes.
import json
import sys


def main(paths):
    if not paths:
        print(__doc__ or "usage: vector_counts.py FILE...", file=sys.stderr)
        return 2
    total = [0, 0, 0]
    print("| op | convention | tests | invalid | tests flagged tie |\n|---|---|---|---|---|")
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            tests = [t for g in doc["testGroups"] for t in g["tests"]]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"{path}: not a vector file ({e})", file=sys.stderr)
            return 1
        row = [len(tests), sum(t.get("result") == "invalid" for t in tests),
               sum("tie" in t.get("flags", []) for t in tests)]
        total = [a + b for a, b in zip(total, row)]
        print(f"| {doc.get('op')} | {doc.get('convention')} | {row[0]} | {row[1]} | {row[2]} |")
    print(f"| **total** | | {total[0]} | {total[1]} | {total[2]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
