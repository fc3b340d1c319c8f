"""Runs the ```python blocks of Markdown files, each in a fresh namespace, and says which
failed: scripts/lib/python-wheel.sh checks that the documented examples work against an
installed wheel. Usage: python run-md-examples.py FILE.md [FILE.md...]; exits 1 when an example
failed or none was found."""
import pathlib
import re
import sys
import traceback

BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def main(paths):
    ran = failed = 0
    for path in paths:
        text = pathlib.Path(path).read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 2  # the block's first line of code
            where = f"{path}:{line}"
            ran += 1
            try:
                exec(compile(m.group(1), where, "exec"), {"__name__": "__example__"})
                print(f"[opsparse] example {where}: ok", flush=True)
            except Exception:  # noqa: BLE001 (every failure is reported)
                failed += 1
                print(f"[opsparse] example {where}: FAILED", flush=True)
                traceback.print_exc()
    if ran == 0:
        print("[opsparse] no ```python example found in " + " ".join(paths))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
