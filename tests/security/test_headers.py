"""Security headers on real responses of a real site, and templates a strict CSP can serve."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests
from django.http import HttpResponse

from counters.web.http.content_policy import WebsocketHostCSPMiddleware
from tests.support.processes import PROJECT_DIR, SiteProcess
from tests.support.site import site_env_for

PATHS = ["/", "/pages/docs/", "/api/counters", "/api/polls", "/api/nowhere", "/pages/nowhere/"]


@pytest.fixture
def site(demo_store, dynamodb_local, tmp_path) -> Iterator[SiteProcess]:
    """The real site under daphne on the demo table."""
    with SiteProcess(
        env=site_env_for(demo_store, dynamodb_local, tmp_path), log_path=tmp_path / "site.log"
    ) as s:
        yield s


def csp_directives(header: str) -> dict[str, list[str]]:
    """A Content-Security-Policy header as {directive: sources}."""
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


@pytest.mark.processes
def test_every_response_carries_the_security_headers(site):
    for path in PATHS:
        response = requests.get(f"{site.url}{path}", timeout=30)
        headers = response.headers
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "same-origin", path
        assert headers["X-Frame-Options"] == "DENY", path
        csp = csp_directives(headers["Content-Security-Policy"])
        assert "'unsafe-inline'" not in headers["Content-Security-Policy"], path
        assert "'unsafe-eval'" not in headers["Content-Security-Policy"], path
        assert csp["script-src"] == ["'self'"], path
        assert csp["style-src"] == ["'self'"], path
        assert csp["default-src"] == ["'self'"], path
        host = f"127.0.0.1:{site.port}"
        assert csp["connect-src"] == ["'self'", f"ws://{host}", f"wss://{host}"], path
        assert csp["frame-ancestors"] == ["'none'"], path


def test_the_whole_policy_names_the_pages_own_websocket_host(rf):
    middleware = WebsocketHostCSPMiddleware(lambda request: HttpResponse())

    header = middleware(rf.get("/", HTTP_HOST="localhost:8000"))["Content-Security-Policy"]

    assert csp_directives(header) == {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'", "ws://localhost:8000", "wss://localhost:8000"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }


@pytest.mark.processes
def test_a_rejected_host_gets_the_policy_without_naming_that_host(site):
    response = requests.get(f"{site.url}/", headers={"Host": "attacker.example"}, timeout=30)

    assert response.status_code == 400
    csp = csp_directives(response.headers["Content-Security-Policy"])
    assert csp["connect-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert "attacker.example" not in response.headers["Content-Security-Policy"]


@pytest.mark.processes
def test_static_files_carry_them_too(site):
    response = requests.get(f"{site.url}/static/counters/charts.js", timeout=30)

    assert response.status_code == 200
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "Content-Security-Policy" in response.headers


class InlineFinder(HTMLParser):
    """Collect what a CSP without 'unsafe-inline' would block: inline scripts, styles, handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        kind = dict(attrs).get("type") or ""
        if tag == "script" and "src" not in names and kind != "application/json":
            self.found.append("<script> without src")
        if tag == "style":
            self.found.append("<style>")
        self.found.extend(f"{tag} {name}=" for name in names if name == "style" or name.startswith("on"))
        self.found.extend(
            f"{tag} {name}=javascript:"
            for name, value in attrs
            if (value or "").lower().startswith("javascript:")
        )


def inline_code(html: str) -> list[str]:
    """What a strict CSP would block in `html`."""
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


@pytest.mark.processes
def test_rendered_pages_have_no_inline_scripts_styles_or_handlers(site):
    for path in ["/", "/pages/docs/", "/pages/nowhere/"]:
        assert inline_code(requests.get(f"{site.url}{path}", timeout=30).text) == [], path


TEMPLATE_DIRS = [PROJECT_DIR / "templates", PROJECT_DIR / "counters" / "templates"]
# Template tags may hide a tag's end from HTMLParser, so the sources get a plain pattern check too.
INLINE_PATTERN = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>|<style\b|\sstyle=|\son[a-z]+=", re.I
)


def template_files() -> list[Path]:
    """Every HTML template of the project."""
    return sorted(path for folder in TEMPLATE_DIRS if folder.is_dir() for path in folder.rglob("*.html"))


def test_templates_have_no_inline_scripts_styles_or_handlers():
    files = template_files()
    assert files, "the project has templates"
    offenders = {
        str(path.relative_to(PROJECT_DIR)): INLINE_PATTERN.findall(path.read_text()) for path in files
    }
    assert {path: found for path, found in offenders.items() if found} == {}


def test_the_inline_check_catches_what_csp_blocks():
    assert inline_code('<p style="color:red" onclick="x()">x</p><script>alert(1)</script><style></style>')
    assert INLINE_PATTERN.search('<button onclick="go()">')
    assert not inline_code(
        '<script src="/static/a.js" defer></script><script type="application/json">{}</script>'
    )
