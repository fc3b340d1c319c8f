#!/usr/bin/env python3
"""The results page's SpGEMM tables from opsparse-bench's CSV files (scripts/bench-gpu writes them).

Usage: bench/results_table.py RUN.csv [MORE_RUNS.csv ...]

The first file gives the table (its medians, GFLOPS and share of the traffic bound); every file
adds its ratio over cuSPARSE measured in that run, so that repeated runs show how the ratio moves.
Below the table: the geometric mean of each run's ratios and their range. With ablation variants
in the first file (opsparse-bench --ablation), a second table gives each variant's time relative
to all optimisations on. Markdown on standard output, as docs/benchmarks.md has it.
"""
import csv
import math
import sys


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs = [read_rows(p) for p in argv[1:]]
    first = [r for r in runs[0] if r["variant"] == "opsparse"]
    if not first:
        print(f"{argv[1]}: no 'opsparse' rows (is it opsparse-bench's CSV?)", file=sys.stderr)
        return 1
    # each run's ratio over cuSPARSE by matrix
    ratios = [{r["matrix"]: number(r["speedup"]) for r in run if r["variant"] == "opsparse"}
              for run in runs]
    head = "| matrix | rows | products | nnz(C) | ms | GFLOPS | × cuSPARSE"
    head += " (runs: " + ", ".join(f"{i + 1}" for i in range(len(runs))) + ")" if len(runs) > 1 else ""
    print(head + " | % of bound | check |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in first:
        m = r["matrix"]
        speed = " / ".join(f"{ratio.get(m, 0):.2f}" for ratio in ratios)
        print(f"| {m} | {int(number(r['rows'])):,} | {number(r['products']) / 1e6:.1f}M "
              f"| {number(r['nnz_c']) / 1e6:.2f}M | {number(r['ms_median']):.3f} "
              f"| {number(r['gflops']):.1f} | {speed} | {100 * number(r['of_bound']):.1f} "
              f"| {r['check']} |")
    means = [geomean(list(ratio.values())) for ratio in ratios]
    print()
    print("Geometric mean over cuSPARSE, end to end: " +
          ", ".join(f"{g:.2f}×" for g in means) +
          (f" (runs {min(means):.2f}–{max(means):.2f}×)" if len(means) > 1 else "") +
          f", over {len(first)} matrices.")
    variants = [r for r in runs[0] if r["variant"] != "opsparse"]
    if variants:
        names = sorted({r["variant"] for r in variants})
        print()
        print("| variant (one optimisation off) | geometric mean of time off / time on | range |")
        print("|---|---:|---|")
        for v in names:
            # opsparse-bench's ablation "speedup" is time(all on) / time(off): invert it
            slow = [1 / number(r["speedup"]) for r in variants
                    if r["variant"] == v and number(r["speedup"]) > 0]
            if slow:
                print(f"| {v} | {geomean(slow):.3f} | {min(slow):.3f}–{max(slow):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
