#!/usr/bin/env python3
"""Summaries of Nsight Compute CSV exports, for scripts/gpu-profile.

  ncu_summary.py details FILE   per kernel launch: time, throughputs, occupancy, issue
  ncu_summary.py raw FILE       per kernel launch: the raw metrics that are not zero
  ncu_summary.py sass FILE [N]  per kernel: its N (default 40) SASS lines with the most warp
                                stall samples, with how many times each was executed
"""
import csv
import sys

DETAILS = ["Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
           "Compute (SM) Throughput", "Issue Slots Busy", "Executed Ipc Active",
           "Warp Cycles Per Issued Instruction", "Avg. Active Threads Per Warp",
           "Theoretical Occupancy", "Achieved Occupancy", "Registers Per Thread", "Block Size",
           "Grid Size", "Dynamic Shared Memory Per Block", "L1/TEX Hit Rate", "L2 Hit Rate",
           "Executed Instructions", "SM Frequency"]


def rows_of(path):
    with open(path, errors="replace") as f:
        return list(csv.reader(f))


def details(path):
    rows = rows_of(path)
    hdr = rows[0]
    idx = {h: i for i, h in enumerate(hdr)}
    current = None
    for r in rows[1:]:
        if len(r) <= idx["Metric Value"]:  # the rule columns are left off where empty
            continue
        launch = (r[idx["ID"]], r[idx["Kernel Name"]][:100])
        if launch != current:
            current = launch
            print("== launch %s: %s" % launch)
        if r[idx["Metric Name"]] in DETAILS:
            print("   %-40s %s %s" % (r[idx["Metric Name"]], r[idx["Metric Value"]], r[idx["Metric Unit"]]))


def raw(path):
    rows = rows_of(path)
    hdr = rows[0]
    for r in rows[2:]:  # row 1 holds the units
        if len(r) < len(hdr):
            continue
        print("== launch %s: %s" % (r[hdr.index("ID")], r[hdr.index("Kernel Name")][:100]))
        for i, name in enumerate(hdr):
            if name.startswith(("gpu__", "smsp__", "l1tex__")) and r[i] not in ("0", "n/a", ""):
                print("   %-60s %s" % (name, r[i]))


def number(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


def sass(path, top):
    rows = rows_of(path)
    heads = [i for i, r in enumerate(rows) if "Source" in r]
    seen = []
    for n, h in enumerate(heads):
        hdr = rows[h]
        end = heads[n + 1] if n + 1 < len(heads) else len(rows)
        body = [r for r in rows[h + 1:end] if len(r) == len(hdr)]
        samples = [i for i, x in enumerate(hdr) if "Sampling (All" in x]
        executed = [i for i, x in enumerate(hdr) if x.startswith("Instructions Executed")]
        if not samples or body in seen:  # (the export may repeat a kernel's table)
            continue
        seen.append(body)
        si, src = samples[0], hdr.index("Source")
        total = sum(number(r[si]) for r in body) or 1.0
        print("== kernel %d: %d SASS lines, %d stall samples" % (n, len(body), total))
        for r in sorted(body, key=lambda r: -number(r[si]))[:top]:
            ex = r[executed[0]] if executed else ""
            print("%6.1f%%  %12s  %s" % (100 * number(r[si]) / total, ex, r[src][:100]))
    if not seen:
        print("== no SASS: no profiled launch matches SASS_OF (raise LAUNCHES: the symbolic "
              "kernels come first)")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("details", "raw", "sass"):
        sys.exit(__doc__)
    if sys.argv[1] == "details":
        details(sys.argv[2])
    elif sys.argv[1] == "raw":
        raw(sys.argv[2])
    else:
        sass(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 40)
