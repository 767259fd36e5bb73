"""The build backend of proagents-bench (PEP 517 and PEP 660), standard library only.

``pip install .`` builds the wheel with this module, found through ``backend-path`` in
pyproject.toml. It needs nothing to be downloaded or present beyond Python and pip: no
setuptools, no wheel package. So installing works the same offline, in an air-gapped CI and
in a fresh virtual environment of any Python from 3.9 (whose ``venv`` may hold pip alone).

The project's metadata is the static ``[project]`` table of pyproject.toml, read here (with
``tomllib`` where Python has it, else by a small reader of the forms that file uses); its
version must equal ``proagents_bench/version.py``'s, which the package reports at run time.
The wheel holds the package's modules (every subpackage), its shipped JSON Schemas
(``contract/schemas/*.schema.json``), its ``py.typed`` marker (PEP 561: the package's type
hints are meant to be read) and the ``proagents-bench`` console script. The sdist also holds
the tests, the development package ``devtools/`` (the tests import it; the wheel never
ships it), the examples and both top-level scripts, so it can be tested as it is.
"""

import ast
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

# What an sdist holds besides the package: enough to build the wheel again and to run the
# whole test suite on the unpacked sources.
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE", "build_backend/proagents_build.py",
               "run_benchmark.py", "test_run_benchmark.py")
SDIST_FOLDERS = ("devtools", "tests", "examples", ".agents", "docs")


def _toml_value(text):
    """A TOML value of the forms pyproject.toml uses here: a basic string or an array of
    them (written like Python's, so ``ast.literal_eval`` reads them exactly)."""
    value = ast.literal_eval(text)
    if isinstance(value, str) or (isinstance(value, list)
                                  and all(isinstance(item, str) for item in value)):
        return value
    raise ValueError("pyproject.toml: unsupported value %r" % text)


def read_pyproject(text):
    """{table: {key: value}} of pyproject.toml, read with ``tomllib`` where Python has it
    (3.11+), else by the small reader below, which knows exactly the forms this file uses:
    ``[table]`` headers, comments, ``key = "string"`` and arrays of strings over several
    lines (a test holds the two readers to the same result)."""
    try:
        import tomllib
    except ImportError:
        tomllib = None
    if tomllib is not None:
        parsed = tomllib.loads(text)
        flat = {"build-system": parsed["build-system"], "project": dict(parsed["project"])}
        flat["project.scripts"] = flat["project"].pop("scripts", {})
        return flat
    tables, table, pending = {}, None, ""
    for line in text.splitlines():
        stripped = line.strip()
        if pending:
            pending += " " + stripped
        elif not stripped or stripped.startswith("#"):
            continue
        elif stripped.startswith("["):
            table = tables.setdefault(stripped.strip("[]"), {})
            continue
        else:
            pending = stripped
        if pending.count("[") == pending.count("]"):
            key, _, value = pending.partition("=")
            table[key.strip()] = _toml_value(value.strip())
            pending = ""
    return tables


def project():
    """The [project] table, with its scripts; the version checked against version.py."""
    tables = read_pyproject(_read(os.path.join(ROOT, "pyproject.toml")).decode("utf-8"))
    declared = dict(tables["project"], scripts=tables.get("project.scripts", {}))
    if declared["version"] != version():
        raise RuntimeError("pyproject.toml says version %s, %s/version.py says %s" % (
            declared["version"], PACKAGE, version()))
    return declared


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
    return "%s-%s" % (project()["name"].replace("-", "_"), version())


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


def _folder_files(folders):
    """(path in the archive, path on disk) of every file under ``folders``, bytecode and
    hidden caches left out."""
    found = []
    for top in folders:
        for folder, subfolders, files in os.walk(os.path.join(ROOT, top)):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                if not name.endswith((".pyc", ".pyo")):
                    disk = os.path.join(folder, name)
                    found.append((os.path.relpath(disk, ROOT).replace(os.sep, "/"), disk))
    return found


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def metadata():
    """The core metadata (METADATA in a wheel, PKG-INFO in an sdist), as bytes."""
    declared = project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % declared["name"],
             "Version: %s" % declared["version"], "Summary: %s" % declared["description"],
             "License: %s" % declared["license"],
             "Requires-Python: %s" % declared["requires-python"]]
    lines += ["Classifier: %s" % classifier for classifier in declared["classifiers"]]
    lines += ["Description-Content-Type: text/markdown", "", ""]
    readme = _read(os.path.join(ROOT, "README.md")).decode("utf-8")
    return ("\n".join(lines) + readme).encode("utf-8")


def _entry_points():
    lines = ["[console_scripts]"] + ["%s = %s" % item for item in sorted(
        project()["scripts"].items())]
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
    names += _folder_files(SDIST_FOLDERS)
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
