"""Drive the machine's Debian Chromium through Playwright: launcher, artifacts folder, admin login."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from tests.support.processes import PROJECT_DIR, SiteProcess
from tests.support.timing import scaled

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = PROJECT_DIR / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Playwright's own default is 5 s per wait; Chromium, the JVM and daphne share two cores here.
DEFAULT_TIMEOUT_MS = 15_000


def launch(playwright: Playwright) -> Browser:
    """Start the machine's headless Chromium under a running Playwright, its waits stretched by the factor."""
    timeout_ms = scaled(DEFAULT_TIMEOUT_MS)
    expect.set_options(timeout=timeout_ms)
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    new_context, new_page = browser.new_context, browser.new_page

    def context_with_timeout(*args, **kwargs) -> BrowserContext:
        context = new_context(*args, **kwargs)
        context.set_default_timeout(timeout_ms)
        return context

    def page_with_timeout(*args, **kwargs) -> Page:
        page = new_page(*args, **kwargs)
        page.context.set_default_timeout(timeout_ms)
        return page

    # Every context and page the tests open waits as long, whichever way it was opened.
    browser.new_context, browser.new_page = context_with_timeout, page_with_timeout
    return browser


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium, closed (with Playwright) when the block ends."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


def watched(context: BrowserContext, *, console: bool = True) -> Page:
    """A new page collecting its script errors (and, with `console`, console errors) in `page.problems`."""
    page = context.new_page()
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(str(exc)))
    if console:
        # A refused inline style or script (the site's Content-Security-Policy) shows as a console error.
        page.on("console", lambda msg: page.problems.append(msg.text) if msg.type == "error" else None)
    return page


def screenshot(page: Page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def create_superuser(env: Mapping[str, str], *, username: str, password: str) -> None:
    """Create a staff superuser in the database the site process uses (migrate it first)."""
    subprocess.run(
        [sys.executable, "manage.py", "createsuperuser", "--noinput", "--username", username, "--email", ""],
        cwd=PROJECT_DIR,
        env={**env, "DJANGO_SUPERUSER_PASSWORD": password},
        check=True,
        capture_output=True,
    )


# Run by `manage.py shell`: a staff user holding some `counters.*` permissions, named in the environment.
CREATE_STAFF = """
import os
from tests.support.admin_users import make_user
user = make_user(os.environ["STAFF_USERNAME"], *os.environ["STAFF_PERMISSIONS"].split())
user.set_password(os.environ["STAFF_PASSWORD"])
user.save()
"""


def create_staff(
    env: Mapping[str, str], *, username: str, password: str, permissions: tuple[str, ...]
) -> None:
    """Create a staff user (not a superuser) with these `counters.*` permissions in the site's database."""
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", CREATE_STAFF],
        cwd=PROJECT_DIR,
        env={
            **env,
            "STAFF_USERNAME": username,
            "STAFF_PASSWORD": password,
            "STAFF_PERMISSIONS": " ".join(permissions),
        },
        check=True,
        capture_output=True,
    )


def staff_site(env: Mapping[str, str], log_path: Path, *, username: str, password: str) -> SiteProcess:
    """A site process, not started yet, whose migrated database holds a staff superuser."""
    site = SiteProcess(env=env, log_path=log_path)
    site.migrate()
    create_superuser(env, username=username, password=password)
    return site


def admin_login(page: Page, base_url: str, *, username: str, password: str) -> None:
    """Log in through the admin's own login form and land on the admin index."""
    page.goto(f"{base_url}/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}/admin/")


# axe-core from npm (package.json pins it), injected into pages whose context has bypass_csp=True: the
# site's own policy rightly refuses a script that is not one of its files.
AXE_SCRIPT = PROJECT_DIR / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").slice(0, 200)),
  }));
}"""


def axe_violations(page: Page) -> list[dict]:
    """Every WCAG rule axe-core finds broken on the page as it is now (empty when it finds none)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_SCRIPT))
    return page.evaluate(AXE_RUN)


def sideways_overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when nothing scrolls sideways)."""
    return page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
