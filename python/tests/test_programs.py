"""The command-line programs from the package: `python -m opsparse PROGRAM ...` and the console
scripts pip installs (opsparse-mcl, opsparse-triangle, ...), which run the C++ programs the
package carries in opsparse/bin: the same output, messages and exit statuses."""
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import networkx as nx
import pytest

import opsparse
import opsparse.__main__ as cli

PROGRAMS = ("mcl", "triangle", "msbfs", "mcx", "clm")
# Subprocesses import the package this test imported (installed, or a CMake build's folder).
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [str(pathlib.Path(opsparse.__file__).parents[1])] +
    ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))


@pytest.fixture(autouse=True)
def programs_installed(request):
    if request.node.name.startswith("test_help") or "usage_errors" in request.node.name:
        return  # answered by python -m opsparse itself
    try:
        cli.program_path("triangle")
    except FileNotFoundError as e:
        pytest.skip(str(e))


def python_m(*args, **kw):
    return subprocess.run([sys.executable, "-m", "opsparse", *map(str, args)], env=ENV,
                          capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture
def two_triangles(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("1 2\n2 3\n3 1\n3 4\n4 5\n5 3\n")
    return p


def test_help_lists_the_programs():
    r = python_m("--help")
    assert r.returncode == 0 and r.stderr == ""
    for p in PROGRAMS:
        assert f"\n  {p} " in r.stdout


@pytest.mark.parametrize("args, says", [
    ((), "a program is needed: mcl, triangle, msbfs, mcx, clm"),
    (("bogus",), "unknown program 'bogus' (mcl, triangle, msbfs, mcx, clm)")])
def test_usage_errors(args, says):
    r = python_m(*args)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"python -m opsparse: error: {says}\nTry 'python -m opsparse --help'.\n"


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_program_answers_version(program):
    r = python_m(program, "--version")
    assert r.returncode == 0
    assert r.stdout == f"opsparse-{program} (OpSparse) {opsparse.__version__}\n"
    # the program's own name is accepted too
    assert python_m(f"opsparse-{program}", "--version").stdout == r.stdout


def test_triangle_counts(two_triangles):
    r = python_m("triangle", "--quiet", two_triangles)
    assert (r.returncode, r.stdout) == (0, "2\n"), r.stderr


def test_mcl_as_the_function(tmp_path):
    g = nx.connected_caveman_graph(6, 5)
    path = tmp_path / "caves.abc"
    path.write_text("".join(f"{u}\t{v}\t1\n" for u, v in g.edges()))
    r = python_m("mcl", path, "--abc", "-o", "-", "--backend", "cpu", "--quiet")
    assert r.returncode == 0, r.stderr
    clusters = sorted(sorted(line.split("\t")) for line in r.stdout.splitlines())
    want = sorted(sorted(c) for c in opsparse.mcl(path, backend="cpu"))
    assert clusters == want and len(clusters) == 6


def test_same_output_as_the_cxx_program(app, two_triangles):
    exe = app("msbfs")
    args = [str(two_triangles), "--sources", "1", "-u", "--backend", "cpu", "--quiet"]
    native = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
    r = python_m("msbfs", *args)
    assert (r.returncode, r.stdout) == (native.returncode, native.stdout)


@pytest.mark.parametrize("program", ["mcl", "triangle", "msbfs", "mcx", "clm"])
def test_usage_error_in_the_one_format(program):
    r = python_m(program, "--no-such-option")
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"opsparse-{program}: error: "), r.stderr
    assert lines[-1] == f"Try 'opsparse-{program} --help'.", r.stderr


def test_input_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n")
    for program in ("triangle", "msbfs", "mcl"):
        extra = ["--sources", "1"] if program == "msbfs" else []
        r = python_m(program, bad, *extra)
        assert r.returncode == 1
        assert r.stderr.splitlines()[-1].startswith(f"opsparse-{program}: error: {bad}:4: "), \
            r.stderr


def test_run_from_python(capfd, two_triangles):
    assert cli.run("triangle", ["--quiet", two_triangles]) == 0
    assert capfd.readouterr().out == "2\n"
    assert cli.run("triangle", ["--bogus"]) == 2
    with pytest.raises(ValueError, match="unknown program"):
        cli.run("nope", [])


def test_closed_pipe_ends_quietly(tmp_path):
    # a long output read only in part: the program ends on SIGPIPE as the C++ program does,
    # with no Python traceback
    g = tmp_path / "star.txt"
    g.write_text("".join(f"0 {i}\n" for i in range(1, 20000)))
    shell = (f"'{sys.executable}' -m opsparse msbfs '{g}' --sources 0 --levels - --quiet "
             "| head -c 10 >/dev/null; echo \"${PIPESTATUS[0]}\"")
    r = subprocess.run(["bash", "-c", shell], env=ENV, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
    assert r.stdout.strip() in ("0", str(128 + signal.SIGPIPE)), r.stdout


def console_script(program):
    path = shutil.which(f"opsparse-{program}", path=os.path.dirname(sys.executable))
    if path is None:
        pytest.skip(f"console script opsparse-{program} not installed beside {sys.executable} "
                    "(the package was not installed by pip)")
    return path


@pytest.mark.parametrize("program", PROGRAMS)
def test_console_scripts(program):
    r = subprocess.run([console_script(program), "--version"], capture_output=True, text=True,
                       timeout=120)
    assert (r.returncode, r.stdout) == (0, f"opsparse-{program} (OpSparse) {opsparse.__version__}\n")


def test_console_script_runs_the_program(two_triangles):
    r = subprocess.run([console_script("triangle"), "--quiet", str(two_triangles)],
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout) == (0, "2\n"), r.stderr
