#!/usr/bin/env python3
"""Paired runs of two engine builds (scripts/bench-ab's engine case): per matrix, the median over
A's runs of opsparse-bench's ms_median against B's, B/A, every run's value, and the products'
checks; below, the geometric mean of B/A. Where B's runs also timed cuSPARSE (opsparse-bench
without --no-cusparse; scripts/bench-ab with CUSPARSE=1), B's speed-ups over it (the medians
over those runs of opsparse-bench's speedup and, with --cusparse-pool, speedup_pool) follow as
two more columns with their geometric means. Markdown on standard output.

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
    """Per matrix: [(ms_median, check)], and {column: [value]} of the speed-ups over cuSPARSE
    that were measured (non-zero)."""
    runs, speedups = {}, {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                variant = r.get("variant", "")
                key = r["matrix"] if variant in ("", "opsparse") else r["matrix"] + " " + variant
                runs.setdefault(key, []).append((float(r["ms_median"]), r.get("check", "")))
                for col in SPEEDUPS:
                    if float(r.get(col) or 0) > 0:
                        speedups.setdefault(key, {}).setdefault(col, []).append(float(r[col]))
    return runs, speedups


SPEEDUPS = ("speedup", "speedup_pool")  # B against cuSPARSE, and against its warm pool


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(argv):
    if "--" not in argv or argv.index("--") == 0 or argv.index("--") == len(argv) - 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cut = argv.index("--")
    (a, _), (b, b_speedups) = load(argv[:cut]), load(argv[cut + 1:])
    cols = [c for c in SPEEDUPS if any(c in v for v in b_speedups.values())]
    heads = {"speedup": "B × cuSPARSE", "speedup_pool": "B × cuSPARSE, pooled"}
    print("| matrix | A ms | B ms | B/A | A runs | B runs |"
          + "".join(f" {heads[c]} |" for c in cols))
    print("|---|---:|---:|---:|---|---|" + "---:|" * len(cols))
    logs, bad, seen = [], [], {c: [] for c in cols}
    for key in list(a) + [k for k in b if k not in a]:
        if key not in a or key not in b:
            print(f"| {key} | {'missing' if key not in a else ''} | "
                  f"{'missing' if key not in b else ''} | | | |" + " |" * len(cols))
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
        extra = ""
        for c in cols:
            xs = b_speedups.get(key, {}).get(c, [])
            if xs:
                seen[c].append(statistics.median(xs))
            extra += f" {statistics.median(xs):.2f} |" if xs else " |"
        print(f"| {key} | {ma:.4f} | {mb:.4f} | {ratio:.3f} | {runs_a} | {runs_b} |" + extra)
    if logs:
        print(f"\nGeometric mean of B/A: {math.exp(sum(logs) / len(logs)):.4f} over {len(logs)} "
              f"matrices.")
    for c in cols:
        print(f"{heads[c]}: geometric mean {geomean(seen[c]):.2f} over {len(seen[c])} matrices, "
              f"lowest {min(seen[c]):.2f}.")
    for line in sorted(set(bad)):
        print(f"Not checked ok: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
