"""The package's build backend (pyproject.toml's build-backend): scikit-build-core's, except
that a wheel built with the GPU engine is the distribution ``opsparse-cu<major>`` of the CUDA
toolkit that compiled it (opsparse-cu12, opsparse-cu13), as RAPIDS and CuPy name theirs, so that
wheels for two CUDA versions can sit side by side on an index. The import name stays
``opsparse``; a wheel of the CPU engine alone is ``opsparse``.

CMake decides whether the GPU engine is built (python/CMakeLists.txt); when it is, it leaves the
toolkit's major version in the wheel's .dist-info folder (``opsparse-cuda-major``), and this
backend renames the wheel it finds it in: the METADATA's Name, the .dist-info folder, RECORD and
the file name. There is no prepare_metadata_for_build_wheel hook: the name is known only once
CMake has run, so pip takes the metadata from the built wheel.
"""
from __future__ import annotations

import base64
import hashlib
import os
import zipfile

from scikit_build_core import build as _scikit_build

# The hooks passed on unchanged (the sdist keeps the name opsparse).
build_sdist = _scikit_build.build_sdist
get_requires_for_build_sdist = _scikit_build.get_requires_for_build_sdist
get_requires_for_build_wheel = _scikit_build.get_requires_for_build_wheel
get_requires_for_build_editable = _scikit_build.get_requires_for_build_editable

MARKER = "opsparse-cuda-major"
BASE = "opsparse"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _scikit_build.build_wheel(wheel_directory, config_settings, None)
    return name_for_cuda(wheel_directory, name)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _scikit_build.build_editable(wheel_directory, config_settings, None)
    return name_for_cuda(wheel_directory, name)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def name_for_cuda(wheel_directory: str, filename: str) -> str:
    """Renames the wheel `filename` in `wheel_directory` to opsparse_cu<major>-... when it
    carries the marker; returns the wheel's file name."""
    path = os.path.join(wheel_directory, filename)
    with zipfile.ZipFile(path) as z:
        markers = [n for n in z.namelist() if n.endswith(".dist-info/" + MARKER)]
        if not markers:
            return filename
        major = z.read(markers[0]).decode().strip()
        if not major.isdigit():
            raise RuntimeError(f"{markers[0]} in {filename}: {major!r} is no CUDA major version")
        old_info = markers[0].split("/")[0]
        dist = f"{BASE}_cu{major}"  # the wheel file name's spelling of opsparse-cu<major>
        new_info = dist + old_info[len(BASE):]
        new_filename = dist + filename[len(BASE):]
        new_path = os.path.join(wheel_directory, new_filename)
        records = []
        with zipfile.ZipFile(new_path + ".part", "w", zipfile.ZIP_DEFLATED) as out:
            for info in z.infolist():
                name = info.filename
                if name in (markers[0], old_info + "/RECORD"):
                    continue
                data = z.read(info)
                if name == old_info + "/METADATA":
                    lines = data.decode("utf-8").split("\n")
                    lines = [f"Name: {BASE}-cu{major}" if line.startswith("Name: ") else line
                             for line in lines]
                    data = "\n".join(lines).encode("utf-8")
                if name.startswith(old_info + "/"):
                    name = new_info + name[len(old_info):]
                renamed = zipfile.ZipInfo(name, info.date_time)
                renamed.external_attr = info.external_attr  # executable bits
                renamed.compress_type = zipfile.ZIP_DEFLATED
                out.writestr(renamed, data)
                records.append(_record_line(name, data))
            records.append(f"{new_info}/RECORD,,")
            record = zipfile.ZipInfo(f"{new_info}/RECORD", (1980, 1, 1, 0, 0, 0))
            record.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(record, "\n".join(records) + "\n")
    os.replace(new_path + ".part", new_path)
    if new_path != path:
        os.remove(path)
    return new_filename
