"""docs/whole-site.md as a developer follows it: its settings exist, its imports import, its script and
addresses are served (the flow itself runs in Chromium in tests/browser/test_whole_site.py)."""

from __future__ import annotations

import re
from pathlib import Path

from channels.testing import HttpCommunicator
from django.core.asgi import get_asgi_application
from django.urls import Resolver404, resolve
from django.utils.module_loading import import_string

from counters.conf import SETTINGS

DOC = Path(__file__).resolve().parents[2] / "docs" / "whole-site.md"
BLOCK = re.compile(r"```(?P<info>[^\n]*)\n(?P<code>.*?)```", re.S)
ORIGIN = "https://docs.example.com"
STATIC = Path(__file__).resolve().parents[2] / "counters" / "static"


def blocks(info: str) -> list[str]:
    """The code of every fenced block whose info string is `info`."""
    return [match["code"] for match in BLOCK.finditer(DOC.read_text()) if match["info"].strip() == info]


def test_the_settings_it_asks_for_are_the_apps():
    names: dict = {"MIDDLEWARE": []}
    for code in blocks("python settings.py"):
        exec(code, names)
    for path in names["MIDDLEWARE"]:
        import_string(path)
    asked = {name for name in names if name.isupper() and name != "MIDDLEWARE"}
    assert asked and asked <= set(SETTINGS)


async def test_the_asgi_snippet_answers_the_beacon_of_an_allowed_origin(settings):
    settings.COUNTERS_SITE_ORIGINS = [ORIGIN]
    (code,) = blocks("python asgi.py")
    names = {"django_asgi_app": get_asgi_application()}
    exec(code, names)
    preflight = HttpCommunicator(
        names["application"], "OPTIONS", "/api/hit", headers=[(b"origin", ORIGIN.encode())]
    )
    assert (await preflight.get_response())["status"] == 204


def test_the_script_tag_names_the_apps_static_script():
    (tag,) = blocks("html")
    src = re.search(r'src="https://[^/]+/static/(?P<file>[^"]+)"', tag)["file"]
    assert (STATIC / src).is_file()


def test_every_address_it_lists_is_served():
    listed = re.findall(r"`GET (/[^`?]*)", DOC.read_text())
    assert len(listed) >= 5
    for address in listed:
        path = address.replace("<name>", "docs")
        try:
            resolve(path)
        except Resolver404:
            raise AssertionError(f"docs/whole-site.md lists {address}, which no route serves") from None
