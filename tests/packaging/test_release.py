"""`python -m build` makes an sdist and a wheel an index takes: twine passes them, their metadata is whole.

The wheel `python -m build` makes is built from the sdist, so it is compared with one built straight
from the repository: the same files, byte for byte, show that the sdist holds all the wheel needs.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

from tests.support.processes import PROJECT_DIR
from tests.support.source_copy import copy_of_repository

PROJECT = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())["project"]
NAME, VERSION = PROJECT["name"], PROJECT["version"]
STEM = f"{NAME.replace('-', '_')}-{VERSION}"
SDIST, WHEEL = f"{STEM}.tar.gz", f"{STEM}-py3-none-any.whl"
BUILD_TIMEOUT = 240


def build(source: Path, *args: str) -> None:
    """Run `python -m build` in `source` as a developer would, failing with its output."""
    done = subprocess.run(
        [sys.executable, "-m", "build", *args, str(source)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}{done.stderr[-3000:]}"


def wheel_files(path: Path) -> dict[str, str]:
    """Each file of a wheel, by name, with the SHA-256 of its content."""
    with zipfile.ZipFile(path) as wheel:
        return {name: hashlib.sha256(wheel.read(name)).hexdigest() for name in wheel.namelist()}


def metadata(text: str) -> Message:
    """Core metadata (a wheel's METADATA, an sdist's PKG-INFO) as headers and a body."""
    return Parser().parsestr(text)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """`dist/` after `python -m build` in a copy of the repository: the sdist, and the wheel built from it."""
    source = copy_of_repository(tmp_path_factory.mktemp("release") / "source")
    build(source)
    return source


@pytest.mark.timeout(2 * BUILD_TIMEOUT + 60)
def test_build_makes_an_sdist_and_a_wheel_that_twine_passes(built):
    assert sorted(path.name for path in (built / "dist").iterdir()) == sorted([SDIST, WHEEL])
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *sorted((built / "dist").iterdir())],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


@pytest.mark.timeout(2 * BUILD_TIMEOUT + 60)
def test_the_wheel_names_its_licence_classifiers_addresses_and_readme(built):
    with zipfile.ZipFile(built / "dist" / WHEEL) as wheel:
        meta = metadata(wheel.read(f"{STEM}.dist-info/METADATA").decode())
        licence = wheel.read(f"{STEM}.dist-info/licenses/LICENSE").decode()
    assert (meta["Name"], meta["Version"]) == (NAME, VERSION)
    assert meta["Summary"] and meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "MIT" and licence.startswith("MIT License")
    assert {
        "Environment :: Web Environment",
        "Framework :: Django",
        "Framework :: Django :: 5.2",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
    } <= set(meta.get_all("Classifier"))
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}
    assert all(url.startswith("https://") for url in urls.values())
    # The package's page: the guide a developer follows, then what this version changed.
    assert meta["Description-Content-Type"] == "text/markdown"
    readme = meta.get_payload()
    assert readme.startswith((PROJECT_DIR / "docs" / "add-to-your-project.md").read_text())
    assert readme.endswith((PROJECT_DIR / "CHANGELOG.md").read_text())


@pytest.mark.timeout(2 * BUILD_TIMEOUT + 60)
def test_the_sdist_has_the_same_metadata_and_the_apps_files_only(built):
    with tarfile.open(built / "dist" / SDIST) as sdist:
        names = {name.removeprefix(f"{STEM}/") for name in sdist.getnames()}
        pkg_info = metadata(sdist.extractfile(f"{STEM}/PKG-INFO").read().decode())
    with zipfile.ZipFile(built / "dist" / WHEEL) as wheel:
        meta = metadata(wheel.read(f"{STEM}.dist-info/METADATA").decode())
    for field in ("Name", "Version", "License-Expression", "Summary", "Description-Content-Type"):
        assert pkg_info[field] == meta[field], field
    assert pkg_info.get_all("Classifier") == meta.get_all("Classifier")
    assert {"LICENSE", "CHANGELOG.md", "pyproject.toml", "docs/add-to-your-project.md"} <= names
    assert {
        "counters/templates/counters/base.html",
        "counters/static/counters/live.js",
        "counters/migrations/0001_admin_permissions.py",
    } <= names
    assert not {name.split("/")[0] for name in names} & {"tests", "counters_site", "bench", "deploy"}


@pytest.mark.timeout(3 * BUILD_TIMEOUT + 60)
def test_the_sdist_builds_the_wheel_the_repository_builds(built, tmp_path):
    straight = tmp_path / "straight"
    build(built, "--wheel", "--outdir", str(straight))
    from_sdist, from_tree = wheel_files(built / "dist" / WHEEL), wheel_files(straight / WHEEL)
    assert set(from_sdist) == set(from_tree)
    assert from_sdist == from_tree, [name for name in from_tree if from_sdist[name] != from_tree[name]]


def test_the_changelog_has_this_version():
    assert f"\n## {VERSION} (" in (PROJECT_DIR / "CHANGELOG.md").read_text()
