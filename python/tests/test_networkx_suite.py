"""NetworkX's own tests of the functions the opsparse backend implements, run against the backend
in NetworkX's backend test mode: NETWORKX_TEST_BACKEND=opsparse sends every call of a
dispatchable function to the backend (graphs converted on the way in, results compared on the
way out), and NETWORKX_FALLBACK_TO_NX=True lets the calls it cannot take (other functions, or
arguments it leaves to NetworkX) run in NetworkX. Each suite runs in a subprocess of pytest on
the installed NetworkX's test files; a suite must pass with no failure, with at least as many
passing tests and tests that called the backend as docs/python.md records (fewer means that
tests were lost, or that calls no longer reach the backend)."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

nx = pytest.importorskip("networkx")
if "opsparse" not in getattr(nx.utils.backends, "backends", {}):
    pytest.skip("opsparse's NetworkX entry point not installed (pip install .) or NetworkX "
                "without backend dispatching", allow_module_level=True)

NX_DIR = pathlib.Path(nx.__file__).parent

# NetworkX's test file (under networkx/), the fewest tests that must pass there, and the fewest
# of them that must have called the backend (docs/python.md lists them): NetworkX 3.6.1 gave
# these counts
SUITES = {
    "cluster": ("algorithms/tests/test_cluster.py", 56, 19),
    "core": ("algorithms/tests/test_core.py", 25, 2),
    "unweighted": ("algorithms/shortest_paths/tests/test_unweighted.py", 17, 2),
    "link_prediction": ("algorithms/tests/test_link_prediction.py", 97, 14),
}


def run_suite(path):
    """pytest on one of NetworkX's test files in its backend test mode, with NetworkX's debug
    log (which names the backend of every call) on the output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETWORKX_")}
    env.update(NETWORKX_TEST_BACKEND="opsparse", NETWORKX_FALLBACK_TO_NX="True")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-rfE",
         f"--rootdir={NX_DIR}", "-o", "log_cli=true", "--log-cli-level=DEBUG",
         str(NX_DIR / path)],
        env=env, cwd=NX_DIR.parent, capture_output=True, text=True, timeout=600)


def counts(output):
    last = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    found = dict((w, int(n)) for n, w in re.findall(r"(\d+) (\w+)", last[-1] if last else ""))
    return {w: found.get(w, 0) for w in ("passed", "failed", "skipped", "xfailed", "errors")}


def backend_tests(output):
    """The tests during which NetworkX sent a call to opsparse."""
    current, used = None, set()
    for line in output.splitlines():
        if "Using backend 'opsparse' for call to" in line:
            if current:
                used.add(current)
        elif (m := re.search(r"\.py::(\S+)", line)):
            current = m.group(1)
    return used


@pytest.mark.parametrize("suite", SUITES)
def test_networkx_suite_passes_on_the_backend(suite):
    path, fewest, fewest_on_backend = SUITES[suite]
    if not (NX_DIR / path).is_file():
        pytest.skip(f"NetworkX's tests are not installed ({NX_DIR / path} missing)")
    r = run_suite(path)
    c = counts(r.stdout)
    failures = "\n".join(line for line in r.stdout.splitlines()
                         if line.startswith(("FAILED", "ERROR")))
    assert c["failed"] == 0 and c["errors"] == 0, failures + r.stderr[-2000:]
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert c["passed"] >= fewest, f"{c}: fewer than {fewest} passed"
    used = backend_tests(r.stdout)
    assert len(used) >= fewest_on_backend, f"only these called opsparse: {sorted(used)}"
