#!/usr/bin/env python3
"""Paper-style figures from opsparse-bench's CSV: GFLOPS per matrix for OpSparse and cuSPARSE,
speedup over cuSPARSE, and the per-phase breakdown. Usage: bench/plot.py bench.csv [outdir]"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    rows = list(csv.DictReader(open(sys.argv[1])))
    main_rows = [r for r in rows if r["variant"] == "opsparse"]
    names = [r["matrix"] for r in main_rows]
    x = range(len(names))
    ours = [float(r["gflops"]) for r in main_rows]
    cus = [float(r["cusparse_gflops"] or 0) for r in main_rows]

    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.5), 4))
    ax.bar([i - 0.2 for i in x], ours, 0.4, label="OpSparse (this project)")
    ax.bar([i + 0.2 for i in x], cus, 0.4, label="cuSPARSE SpGEMM")
    ax.set_xticks(list(x), names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("GFLOPS (2 x products / end-to-end time)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gflops.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.5), 4))
    sp = [float(r["speedup"] or 0) for r in main_rows]
    ax.bar(list(x), sp)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(list(x), names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup over cuSPARSE")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.5), 4))
    phases = ["ms_setup", "ms_symbolic_binning", "ms_symbolic", "ms_numeric_binning", "ms_numeric"]
    bottom = [0.0] * len(main_rows)
    for ph in phases:
        vals = [float(r[ph]) for r in main_rows]
        tot = [sum(float(r[p]) for p in phases) or 1.0 for r in main_rows]
        share = [100 * v / t for v, t in zip(vals, tot)]
        ax.bar(list(x), share, bottom=bottom, label=ph[3:])
        bottom = [b + s for b, s in zip(bottom, share)]
    ax.set_xticks(list(x), names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("% of time")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phases.png"), dpi=120)
    print("wrote gflops.png, speedup.png, phases.png to", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
