"""Shared fixtures. `python -m pytest python/tests` works with opsparse installed (pip) or built
by CMake with -DOPSPARSE_PYTHON=ON: then the package in $OPSPARSE_BUILD_DIR/python (default
<root>/build/python) is used."""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("OPSPARSE_BUILD_DIR", ROOT / "build"))

try:
    import opsparse  # noqa: F401  (installed)
except ImportError:
    sys.path.insert(0, str(BUILD / "python"))
    import opsparse  # noqa: F401

DATASETS = pathlib.Path(os.environ.get("OPSPARSE_DATASETS", ROOT.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def datasets():
    if not (DATASETS / "reference" / "graph-facts.tsv").is_file():
        pytest.skip(f"shared data sets not found at {DATASETS} (set OPSPARSE_DATASETS)")
    return DATASETS


@pytest.fixture(scope="session")
def app():
    """Path of a C++ program (mcl, triangle, msbfs), for comparisons: in $OPSPARSE_BIN_DIR (a
    staged folder of programs) or the CMake build's apps/<name>/."""
    def find(name):
        candidates = [BUILD / "apps" / name / f"opsparse-{name}"]
        if os.environ.get("OPSPARSE_BIN_DIR"):
            candidates.insert(0, pathlib.Path(os.environ["OPSPARSE_BIN_DIR"]) / f"opsparse-{name}")
        for p in candidates:
            if os.access(p, os.X_OK):
                return p
        pytest.skip(f"C++ program opsparse-{name} not built (looked for {candidates[-1]}; set "
                    "OPSPARSE_BUILD_DIR to a build folder or OPSPARSE_BIN_DIR)")
    return find
    return find


def graph_facts(datasets):
    """Rows of reference/graph-facts.tsv: file, vertices, edges, triangles, BFS source, reached,
    sum of levels, max level."""
    rows = []
    for line in (datasets / "reference" / "graph-facts.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split("\t")
        rows.append((f[0], int(f[1]), int(f[2]), int(f[3]), f[4], int(f[5]), int(f[6]), int(f[7])))
    return rows
