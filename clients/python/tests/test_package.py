"""The package builds from pyproject.toml with setuptools' PEP 517 backend, offline: the sdist always,
the wheel too where setuptools can make one (before setuptools 70.1 that needs the ``wheel`` package).
Built in a copy of this folder, so no build state is left beside the sources."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BUILD = """
import sys
from setuptools import build_meta
out = sys.argv[1]
print(build_meta.build_sdist(out))
if sys.argv[2] == "wheel":
    print(build_meta.build_wheel(out))
"""


def _can_build_wheels() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


class PackageTest(unittest.TestCase):
    def test_the_sdist_and_where_possible_the_wheel_hold_the_package_and_its_metadata(self) -> None:
        with tempfile.TemporaryDirectory() as work:
            source = os.path.join(work, "src")
            shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist"))
            out = os.path.join(work, "out")
            os.mkdir(out)
            wheel = _can_build_wheels()
            run = subprocess.run(
                [sys.executable, "-c", BUILD, out, "wheel" if wheel else "sdist"],
                cwd=source, capture_output=True, text=True, check=False,
            )
            self.assertEqual(run.returncode, 0, run.stderr[-2000:])
            # The names the backend returns (older setuptools spell the sdist recall-client-…, newer recall_client-…).
            built = run.stdout.split()[-2:] if wheel else run.stdout.split()[-1:]
            sdist = built[0]
            root = sdist[: -len(".tar.gz")]
            with tarfile.open(os.path.join(out, sdist)) as archive:
                names = archive.getnames()
                info = archive.extractfile(f"{root}/PKG-INFO").read().decode()
            self.assertIn(f"{root}/recall_client/__init__.py", names)
            self.assertIn(f"{root}/recall_client/py.typed", names)
            self.assertIn("Name: recall-client", info)
            self.assertIn("Requires-Python: >=3.9", info)
            self.assertIn("License: Apache-2.0", info)
            if wheel:
                self.assertRegex(built[1], r"^recall_client-0\.1\.0-py3-none-any\.whl$")
                with zipfile.ZipFile(os.path.join(out, built[1])) as archive:
                    self.assertIn("recall_client/py.typed", archive.namelist())


if __name__ == "__main__":
    unittest.main()
