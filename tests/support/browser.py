"""Drive the machine's Debian Chromium through Playwright: launcher, artifacts folder, admin login."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from tests.support.processes import PROJECT_DIR

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


def launch(playwright: Playwright) -> Browser:
    """Start the machine's headless Chromium under a running Playwright."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium, closed (with Playwright) when the block ends."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


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


def admin_login(page: Page, base_url: str, *, username: str, password: str) -> None:
    """Log in through the admin's own login form and land on the admin index."""
    page.goto(f"{base_url}/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}/admin/")
