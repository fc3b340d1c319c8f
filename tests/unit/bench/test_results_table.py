#!/usr/bin/env python3
"""bench/results_table.py on two runs of opsparse-bench's CSV (its header from bench/report.cpp):
the table lists each matrix with both runs' ratios, the geometric means are those of the ratios,
and an ablation variant's relative time is the inverse of its recorded speedup."""
import csv
import io
import math
import os
import re
import subprocess
import sys
import tempfile

root = sys.argv[1]
header = re.search(r'csv_header =\s*((?:"[^"]*"\s*)+);',
                   open(os.path.join(root, "bench", "report.cpp")).read()).group(1)
fields = "".join(re.findall(r'"([^"]*)"', header)).split(",")


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})


def row(matrix, variant, ms, speedup):
    return {"matrix": matrix, "variant": variant, "rows": 1000, "products": 2e6, "nnz_c": 5e5,
            "ms_median": ms, "gflops": 2 * 2e6 / (ms * 1e6), "speedup": speedup, "of_bound": 0.05,
            "check": "ok vs cuSPARSE"}


with tempfile.TemporaryDirectory() as d:
    a, b = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
    write(a, [row("m1", "opsparse", 1.0, 2.0), row("m2", "opsparse", 2.0, 8.0),
              row("m1", "no-hashing", 4.0, 0.25), row("m2", "no-hashing", 3.0, 0.5)])
    write(b, [row("m1", "opsparse", 1.1, 3.0), row("m2", "opsparse", 2.1, 3.0)])
    out = subprocess.run([sys.executable, os.path.join(root, "bench", "results_table.py"), a, b],
                         check=True, capture_output=True, text=True).stdout
    print(out)
    assert re.search(r"^\| m1 \|.*\| 2\.00 / 3\.00 \|", out, re.M), "m1's ratios of both runs"
    assert re.search(r"^\| m2 \|.*\| 8\.00 / 3\.00 \|", out, re.M), "m2's ratios of both runs"
    means = re.search(r"end to end: ([\d.]+)×, ([\d.]+)×", out)
    assert means, "the geometric means"
    assert abs(float(means.group(1)) - math.sqrt(2 * 8)) < 0.006, means.group(1)
    assert abs(float(means.group(2)) - 3.0) < 0.006, means.group(2)
    abl = re.search(r"^\| no-hashing \| ([\d.]+) \| ([\d.]+)–([\d.]+) \|", out, re.M)
    assert abl, "the ablation's line"
    assert abs(float(abl.group(1)) - math.sqrt(4 * 2)) < 0.0006, abl.group(1)
    assert (float(abl.group(2)), float(abl.group(3))) == (2.0, 4.0), abl.groups()
print("results_table: ok")
