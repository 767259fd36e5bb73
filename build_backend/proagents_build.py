"""The build backend of proagents-bench (PEP 517 and PEP 660), standard library only.

``pip install .`` builds the wheel with this module, found through ``backend-path`` in
pyproject.toml. It needs nothing to be downloaded or present beyond Python and pip: no
setuptools, no wheel package. So installing works the same offline, in an air-gapped CI and
in a fresh virtual environment of any Python from 3.9 (whose ``venv`` may hold pip alone).

The project's metadata is declared once, in :data:`PROJECT` below; the version is read from
``proagents_bench/version.py``, the one place it is written. The wheel holds the package's
modules (every subpackage), its shipped JSON Schemas (``contract/schemas/*.schema.json``), its
``py.typed`` marker (PEP 561: the package's type hints are meant to be read) and the
``proagents-bench`` console script.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "proagents_bench"

PROJECT = {
    "name": "proagents-bench",
    "summary": "Release gate for AI agents: validate a benchmark package, grade every trial, "
               "compare baseline and candidate, and decide PASS, REVIEW, BLOCK or "
               "INCOMPARABLE.",
    "requires_python": ">=3.9",
    "license": "MIT",
    "classifiers": (
        "License :: OSI Approved :: MIT License",
        "Operating System :: OS Independent",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: Implementation :: CPython",
        "Programming Language :: Python :: Implementation :: PyPy",
    ),
    "scripts": {"proagents-bench": "proagents_bench.cli:run"},
}

# What an sdist holds besides the package: enough to build the wheel again.
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE", "build_backend/proagents_build.py")

# Zip entries get one fixed date, so the same sources give the same wheel bytes.
_ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def version():
    with open(os.path.join(ROOT, PACKAGE, "version.py"), "rb") as handle:
        text = handle.read().decode("utf-8")
    match = re.search(r'^VERSION = "([^"]+)"$', text, re.MULTILINE)
    if not match:
        raise RuntimeError("no VERSION = \"...\" line in %s/version.py" % PACKAGE)
    return match.group(1)


def _distribution():
    return "%s-%s" % (PROJECT["name"].replace("-", "_"), version())


def _package_files():
    """(path in the archive, path on disk) of every module, shipped schema and the py.typed
    marker, sorted."""
    found = []
    for folder, subfolders, files in os.walk(os.path.join(ROOT, PACKAGE)):
        subfolders[:] = sorted(name for name in subfolders
                               if not name.startswith((".", "__pycache__")))
        for name in sorted(files):
            if name.endswith((".py", ".schema.json")) or name == "py.typed":
                disk = os.path.join(folder, name)
                found.append((os.path.relpath(disk, ROOT).replace(os.sep, "/"), disk))
    return sorted(found)


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def metadata():
    """The core metadata (METADATA in a wheel, PKG-INFO in an sdist), as bytes."""
    lines = ["Metadata-Version: 2.1", "Name: %s" % PROJECT["name"], "Version: %s" % version(),
             "Summary: %s" % PROJECT["summary"], "License: %s" % PROJECT["license"],
             "Requires-Python: %s" % PROJECT["requires_python"]]
    lines += ["Classifier: %s" % classifier for classifier in PROJECT["classifiers"]]
    lines += ["Description-Content-Type: text/markdown", "", ""]
    readme = _read(os.path.join(ROOT, "README.md")).decode("utf-8")
    return ("\n".join(lines) + readme).encode("utf-8")


def _entry_points():
    lines = ["[console_scripts]"] + ["%s = %s" % item for item in sorted(
        PROJECT["scripts"].items())]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _wheel_file():
    return (b"Wheel-Version: 1.0\nGenerator: proagents_build\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n")


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (name, digest.decode("ascii"), len(data))


def _write_wheel(wheel_directory, contents):
    """Write a wheel of ``contents`` (archive name -> bytes) plus its dist-info; return its
    file name."""
    info = _distribution() + ".dist-info"
    entries = dict(contents)
    entries[info + "/METADATA"] = metadata()
    entries[info + "/WHEEL"] = _wheel_file()
    entries[info + "/entry_points.txt"] = _entry_points()
    entries[info + "/LICENSE"] = _read(os.path.join(ROOT, "LICENSE"))
    record_name = info + "/RECORD"
    record = [_record_line(name, data) for name, data in sorted(entries.items())]
    entries[record_name] = ("\n".join(record + [record_name + ",,"]) + "\n").encode("utf-8")
    file_name = _distribution() + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, file_name), "w",
                         zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(entries, key=lambda entry: (entry == record_name, entry)):
            item = zipfile.ZipInfo(name, _ZIP_DATE)
            item.external_attr = 0o644 << 16
            item.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(item, entries[name])
    return file_name


# -- PEP 517 ---------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, {name: _read(disk) for name, disk in _package_files()})


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth file puts this source tree on sys.path."""
    return _write_wheel(wheel_directory, {
        "_%s_editable.pth" % PACKAGE: (ROOT + "\n").encode("utf-8")})


def build_sdist(sdist_directory, config_settings=None):
    base = _distribution()
    names = [(name, disk) for name, disk in _package_files()]
    names += [(name, os.path.join(ROOT, *name.split("/"))) for name in SDIST_FILES]
    file_name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, file_name), "w:gz",
                      format=tarfile.PAX_FORMAT) as archive:
        for name, data in [("PKG-INFO", metadata())] + [(name, _read(disk))
                                                          for name, disk in sorted(names)]:
            item = tarfile.TarInfo("%s/%s" % (base, name))
            item.size = len(data)
            item.mtime = int(time.mktime(_ZIP_DATE + (0, 0, -1)))
            item.mode = 0o644
            archive.addfile(item, io.BytesIO(data))
    return file_name
