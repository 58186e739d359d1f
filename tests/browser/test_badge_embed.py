"""A badge shown in an <img>, in a real Chromium: the image loads and its answer carries no cookie."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.browser import chromium
from tests.support.http_origin import serving
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

PAGE = '<!doctype html><html lang="en"><title>Our docs</title><img id="badge" src="{src}" alt="Views">'
SHOW_BADGE = """src => {
  const img = Object.assign(document.createElement("img"), {id: "badge", alt: "Views", src});
  document.body.append(img);
}"""


@contextmanager
def another_site(badge_url: str) -> Iterator[str]:
    """Another site (its own origin) whose page shows the badge, as a README or a blog would."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = PAGE.format(src=badge_url).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            """Quiet."""

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as port:
        # `localhost`, not 127.0.0.1: another site to the browser (the site's cookies are third-party).
        yield f"http://localhost:{port}/"


def badge_headers(page, badge_url: str, show) -> dict[str, str]:
    """Show the badge (`show()` opens or changes the page) and return its answer's headers once drawn."""
    with page.expect_response(lambda response: response.url.startswith(badge_url)) as answer:
        show()
    page.wait_for_function("document.getElementById('badge')?.complete")
    assert page.evaluate("document.getElementById('badge').naturalWidth") > 60, "the badge was drawn"
    return answer.value.all_headers()


def cookies_of(context, url: str) -> list[tuple[str, str]]:
    return sorted((cookie["name"], cookie["value"]) for cookie in context.cookies(url))


@pytest.mark.browser
@pytest.mark.processes
def test_a_badge_in_an_img_carries_no_cookie(demo_store, dynamodb_local, tmp_path):
    demo_store.increment("docs", kind="views", by=12_345)
    demo_store.set_badge_counts("docs", enabled=True)  # even a fetch that counts a view sets nothing
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        badge_url = f"{site.url}/badge/docs.svg"
        with another_site(badge_url) as elsewhere:
            ways = {
                "another site's page, by a stranger": (False, lambda page: page.goto(elsewhere)),
                "another site's page, by a visitor": (True, lambda page: page.goto(elsewhere)),
                # The site's own page: the request carries its session, CSRF and voter cookies.
                "the site's own page": (True, lambda page: page.evaluate(SHOW_BADGE, badge_url)),
            }
            for where, (has_visited, show) in ways.items():
                context = browser.new_context()
                page = context.new_page()
                if has_visited:
                    page.goto(f"{site.url}/")  # the dashboard sets the CSRF and voter cookies
                held = cookies_of(context, site.url)
                assert bool(held) == has_visited, where

                headers = badge_headers(page, badge_url, lambda page=page, show=show: show(page))
                assert "set-cookie" not in headers, (where, headers.get("set-cookie"))
                assert "cookie" not in headers.get("vary", "").lower(), where
                assert headers["cache-control"] == "public, no-cache" and headers["etag"], where
                assert cookies_of(context, site.url) == held, f"{where}: no cookie added or changed"
                context.close()
        assert demo_store.get("docs").value == 12_345 + 3, "each fetch counted once, as the counter asked"
