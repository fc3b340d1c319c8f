#!/usr/bin/env python3
"""Paired runs of two engine builds (scripts/bench-ab's engine case): per matrix, the median over
A's runs of opsparse-bench's ms_median against B's, B/A, every run's value, and the products'
checks; below, the geometric mean of B/A. Markdown on standard output.

Usage: bench/ab_table.py A_RUN.csv [A_RUN.csv ...] -- B_RUN.csv [B_RUN.csv ...]

Rows are matched by matrix and variant; a matrix missing on one side is listed as such. A
product whose check is not "ok ..." on either side is named below the table, and the exit
status is then 1.
"""
import csv
import math
import statistics
import sys


def load(paths):
    runs = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                variant = r.get("variant", "")
                key = r["matrix"] if variant in ("", "opsparse") else r["matrix"] + " " + variant
                runs.setdefault(key, []).append((float(r["ms_median"]), r.get("check", "")))
    return runs


def main(argv):
    if "--" not in argv or argv.index("--") == 0 or argv.index("--") == len(argv) - 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cut = argv.index("--")
    a, b = load(argv[:cut]), load(argv[cut + 1:])
    print("| matrix | A ms | B ms | B/A | A runs | B runs |")
    print("|---|---:|---:|---:|---|---|")
    logs, bad = [], []
    for key in list(a) + [k for k in b if k not in a]:
        if key not in a or key not in b:
            print(f"| {key} | {'missing' if key not in a else ''} | "
                  f"{'missing' if key not in b else ''} | | | |")
            continue
        ma = statistics.median(ms for ms, _ in a[key])
        mb = statistics.median(ms for ms, _ in b[key])
        for side, runs in (("A", a[key]), ("B", b[key])):
            bad += [f"{key} ({side}): {c or 'no check'}" for _, c in runs if not c.startswith("ok")]
        ratio = mb / ma if ma > 0 else float("nan")
        if ma > 0 and mb > 0:
            logs.append(math.log(ratio))
        runs_a = " ".join(f"{ms:.4f}" for ms, _ in a[key])
        runs_b = " ".join(f"{ms:.4f}" for ms, _ in b[key])
        print(f"| {key} | {ma:.4f} | {mb:.4f} | {ratio:.3f} | {runs_a} | {runs_b} |")
    if logs:
        print(f"\nGeometric mean of B/A: {math.exp(sum(logs) / len(logs)):.4f} over {len(logs)} "
              f"matrices.")
    for line in sorted(set(bad)):
        print(f"Not checked ok: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
