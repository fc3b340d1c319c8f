"""The build backend's renaming of GPU wheels (python/backend/opsparse_build_backend.py), on
small stand-in wheels: with CMake's marker a wheel becomes opsparse-cu<major>, without it it is
left as it is."""
import base64
import hashlib
import importlib.util
import pathlib
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def backend():
    pytest.importorskip("scikit_build_core")
    spec = importlib.util.spec_from_file_location(
        "opsparse_build_backend", ROOT / "python" / "backend" / "opsparse_build_backend.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stand_in_wheel(folder, marker):
    name = "opsparse-0.1.0-cp311-cp311-linux_x86_64.whl"
    info = "opsparse-0.1.0.dist-info"
    files = {
        "opsparse/__init__.py": b"x = 1\n",
        "opsparse/_opsparse.so": b"\x7fELF stand-in",
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: opsparse\nVersion: 0.1.0\n\nText\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\n",
        f"{info}/entry_points.txt": b"[console_scripts]\nopsparse-mcl = opsparse.__main__:mcl\n",
    }
    if marker is not None:
        files[f"{info}/opsparse-cuda-major"] = marker
    with zipfile.ZipFile(folder / name, "w") as z:
        for n, data in files.items():
            z.writestr(n, data)
        z.writestr(f"{info}/RECORD", "")
    return name


def test_gpu_wheel_is_renamed(tmp_path, backend):
    name = stand_in_wheel(tmp_path, b"12\n")
    new = backend.name_for_cuda(str(tmp_path), name)
    assert new == "opsparse_cu12-0.1.0-cp311-cp311-linux_x86_64.whl"
    assert [p.name for p in tmp_path.iterdir()] == [new]
    with zipfile.ZipFile(tmp_path / new) as z:
        names = set(z.namelist())
        info = "opsparse_cu12-0.1.0.dist-info"
        assert f"{info}/METADATA" in names and not any(n.startswith("opsparse-0.1.0") for n in names)
        assert not any(n.endswith("opsparse-cuda-major") for n in names)
        assert "Name: opsparse-cu12\n" in z.read(f"{info}/METADATA").decode()
        assert "opsparse/__init__.py" in names  # the import name stays
        record = z.read(f"{info}/RECORD").decode().splitlines()
        assert f"{info}/RECORD,," in record
        for line in record:
            path, digest, size = line.rsplit(",", 2)
            if not digest:
                continue
            data = z.read(path)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == f"sha256={want}" and int(size) == len(data)
        assert len(record) == len(names)


def test_cpu_wheel_keeps_its_name(tmp_path, backend):
    name = stand_in_wheel(tmp_path, None)
    before = (tmp_path / name).read_bytes()
    assert backend.name_for_cuda(str(tmp_path), name) == name
    assert (tmp_path / name).read_bytes() == before


def test_bad_marker(tmp_path, backend):
    name = stand_in_wheel(tmp_path, b"twelve")
    with pytest.raises(RuntimeError, match="no CUDA major"):
        backend.name_for_cuda(str(tmp_path), name)
