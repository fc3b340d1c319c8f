#!/usr/bin/env python3
"""bench/ab_table.py on opsparse-bench's CSV (its header from bench/report.cpp): per matrix the
median of each side's runs and B/A, their geometric mean, a matrix missing on one side listed,
B's speed-ups over cuSPARSE where its runs timed it, a product not checked ok named with exit
status 1, and the usage with exit status 2."""
import csv
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
script = os.path.join(root, "bench", "ab_table.py")


def write(path, rows, speedups=None):
    """rows: (matrix, ms_median, check); speedups: {matrix: (speedup, speedup_pool)}."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for matrix, ms, check in rows:
            s, sp = (speedups or {}).get(matrix, (0, 0))
            w.writerow({k: "" for k in fields} | {"matrix": matrix, "variant": "opsparse",
                                                  "ms_median": ms, "check": check,
                                                  "speedup": s, "speedup_pool": sp})


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def table(out):
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0] not in ("matrix", "---"):
            rows[cells[0]] = cells
    return rows


ok = "ok vs CPU engine"
with tempfile.TemporaryDirectory() as d:
    p = {name: os.path.join(d, name + ".csv") for name in ("a1", "a2", "a3", "b1", "b2", "b3")}
    # m1: A 1.0, 1.2, 5.0 (median 1.2), B 0.9, 0.6, 1.0 (median 0.9); m2: A 2, 2, 2, B 3, 3, 3
    for name, m1, m2 in (("a1", 1.0, 2.0), ("a2", 1.2, 2.0), ("a3", 5.0, 2.0),
                         ("b1", 0.9, 3.0), ("b2", 0.6, 3.0), ("b3", 1.0, 3.0)):
        rows = [("m1", m1, ok), ("m2", m2, ok)]
        if name.startswith("a"):
            rows.append(("only_a", 1.0, ok))
        write(p[name], rows)
    r = run(p["a1"], p["a2"], p["a3"], "--", p["b1"], p["b2"], p["b3"])
    assert r.returncode == 0, r.stderr
    t = table(r.stdout)
    assert t["m1"][1:4] == ["1.2000", "0.9000", "0.750"], t["m1"]
    assert t["m1"][4] == "1.0000 1.2000 5.0000", t["m1"]
    assert t["m2"][1:4] == ["2.0000", "3.0000", "1.500"], t["m2"]
    assert t["only_a"][2] == "missing", t["only_a"]
    want = math.exp((math.log(0.75) + math.log(1.5)) / 2)
    assert f"Geometric mean of B/A: {want:.4f} over 2 matrices." in r.stdout, r.stdout
    assert "cuSPARSE" not in r.stdout, r.stdout  # no B run timed it
    # B's runs that timed cuSPARSE: their speed-ups' medians and geometric means
    write(p["b1"], [("m1", 0.9, ok), ("m2", 3.0, ok)], {"m1": (4.0, 2.0), "m2": (2.0, 1.0)})
    write(p["b2"], [("m1", 0.6, ok), ("m2", 3.0, ok)], {"m1": (6.0, 3.0), "m2": (8.0, 1.5)})
    r = run(p["a1"], p["a2"], p["a3"], "--", p["b1"], p["b2"], p["b3"])
    assert r.returncode == 0, r.stderr
    t = table(r.stdout)
    assert t["m1"][6:8] == ["5.00", "2.50"], t["m1"]
    assert t["m2"][6:8] == ["5.00", "1.25"], t["m2"]
    assert t["only_a"][6:8] == ["", ""], t["only_a"]
    assert "B × cuSPARSE: geometric mean 5.00 over 2 matrices, lowest 5.00." in r.stdout, r.stdout
    want = math.sqrt(2.5 * 1.25)
    assert (f"B × cuSPARSE, pooled: geometric mean {want:.2f} over 2 matrices, lowest 1.25."
            in r.stdout), r.stdout
    # a product that failed its check on one side
    write(p["b3"], [("m1", 1.0, "MISMATCH vs CPU engine: row 3"), ("m2", 3.0, ok)])
    r = run(p["a1"], "--", p["b3"])
    assert r.returncode == 1, (r.returncode, r.stdout)
    assert "Not checked ok: m1 (B): MISMATCH vs CPU engine: row 3" in r.stdout, r.stdout
    # no separator, or an empty side: the usage
    for args in ((p["a1"], p["b1"]), ("--", p["b1"]), (p["a1"], "--")):
        r = run(*args)
        assert r.returncode == 2 and "Usage" in r.stderr, (args, r.returncode, r.stderr)
print("ab_table: medians, ratios, geometric means, speed-ups over cuSPARSE, missing rows, failed "
      "checks and usage as expected")
