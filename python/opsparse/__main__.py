"""The command-line programs from the package: ``python -m opsparse PROGRAM [ARGUMENTS...]``,
and the console scripts ``opsparse-mcl``, ``opsparse-triangle``, ``opsparse-msbfs``,
``opsparse-mcx`` and ``opsparse-clm`` that pip installs. Each runs the C++ program the wheel
carries in ``opsparse/bin`` (the same program the CMake build makes), in place of the Python
process: the same options, output, messages, exit statuses and signals. For example::

    python -m opsparse triangle graph.mtx
    opsparse-mcl graph.abc -I 2.0 -o out.txt
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys

PROGRAMS = ("mcl", "triangle", "msbfs", "mcx", "clm")

USAGE = """\
Usage: python -m opsparse PROGRAM [ARGUMENTS...]
Runs one of OpSparse's command-line programs, as the console script opsparse-PROGRAM does:
  mcl       Markov clustering, as mcl 22-282 (opsparse-mcl --help)
  triangle  triangle counting (opsparse-triangle --help)
  msbfs     multi-source breadth-first search (opsparse-msbfs --help)
  mcx       ABC <-> mcl's native matrix, as mcxload and mcxdump (opsparse-mcx --help)
  clm       clm dist and clm info over clusterings (opsparse-clm --help)
"""

_NAME = "python -m opsparse"
_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def program_path(program: str) -> str:
    """The executable of ``opsparse-<program>`` that came with the package."""
    if program not in PROGRAMS:
        raise ValueError(f"unknown program {program!r} ({', '.join(PROGRAMS)})")
    path = os.path.join(_BIN, f"opsparse-{program}")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"opsparse-{program} is not installed with this package (no "
                                f"{path}): build it with pip, or the CMake target "
                                "opsparse_python_programs")
    return path


def _native_signals():
    # Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored in the program it
    # starts: a program writing into a closed pipe would then fail with an error instead of
    # ending quietly, as it does when run from a shell.
    for name in ("SIGPIPE", "SIGXFSZ"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)


def run(program: str, args) -> int:
    """Runs ``opsparse-<program> ARGS...`` as a child process and returns its exit status
    (negative: the signal that ended it), for use from Python."""
    path = program_path(program)
    return subprocess.call([path, *map(str, args)], restore_signals=True)


def exec_program(program: str, args):
    """Replaces this process with ``opsparse-<program> ARGS...`` (never returns)."""
    path = program_path(program)
    sys.stdout.flush()
    sys.stderr.flush()
    _native_signals()
    os.execv(path, [path, *map(str, args)])


def _usage_error(message: str) -> int:
    print(f"{_NAME}: error: {message}\nTry '{_NAME} --help'.", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    """``python -m opsparse PROGRAM [ARGUMENTS...]``: runs the program in place of this process;
    returns an exit status only for its own options and mistakes."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return _usage_error(f"a program is needed: {', '.join(PROGRAMS)}")
    first = argv[0]
    if first in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if first == "--version":
        from . import __version__
        print(f"opsparse (OpSparse) {__version__}")
        return 0
    program = first[len("opsparse-"):] if first.startswith("opsparse-") else first
    if program not in PROGRAMS:
        return _usage_error(f"unknown program '{first}' ({', '.join(PROGRAMS)})")
    try:
        exec_program(program, argv[1:])
    except OSError as e:
        print(f"{_NAME}: error: {e}", file=sys.stderr)
        return 1
    return 1  # not reached: exec_program does not return


def _console_script(program: str):
    def entry():
        try:
            exec_program(program, sys.argv[1:])
        except OSError as e:
            print(f"opsparse-{program}: error: {e}", file=sys.stderr)
            sys.exit(1)
    entry.__name__ = program
    entry.__doc__ = f"The console script opsparse-{program}."
    return entry


# The console scripts' entry points ([project.scripts] in pyproject.toml).
mcl = _console_script("mcl")
triangle = _console_script("triangle")
msbfs = _console_script("msbfs")
mcx = _console_script("mcx")
clm = _console_script("clm")

if __name__ == "__main__":
    sys.exit(main())
