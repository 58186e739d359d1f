"""The wheel holds the app alone, and a new project set up as docs/add-to-your-project.md says runs it.

The steps come from the document itself: its shell blocks run as written (in a fresh virtualenv
that sees nothing of this repository) and its file blocks are written into a new project, so the
document cannot drift from what works. Dependencies are pinned to requirements.txt through
PIP_CONSTRAINT, so the new project runs the versions the rest of the tests run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from tests.support.live import receive_until, site_socket
from tests.support.processes import PROJECT_DIR, SiteProcess

BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}

DOCS = PROJECT_DIR / "docs" / "add-to-your-project.md"
WHEEL = "django_live_counters-0.1.0-py3-none-any.whl"
# A fenced block: "```sh" for commands, "```python mysite/urls.py" for a file of the new project.
BLOCK = re.compile(
    r"^(?P<indent> *)```(?P<lang>\w+)(?: (?P<path>\S+))?\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S
)
# Settings are added to the end of startproject's file; every other file is written whole.
APPENDED = {"mysite/settings.py"}
# What a copy of the repository leaves out: caches, local data, other builds.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "var", "build", "dist", "*.egg-info", "__pycache__",
    ".pytest_cache", ".ruff_cache", ".hypothesis", "test-artifacts",
)  # fmt: skip
# Seconds each step may take (the install downloads the dependencies on a cold pip cache).
INSTALL_TIMEOUT = 600
STEP_TIMEOUT = 180


def doc_blocks() -> tuple[list[str], dict[str, str]]:
    """The document's shell blocks in order, and its file blocks by path."""
    commands, files = [], {}
    for match in BLOCK.finditer(DOCS.read_text()):
        body = textwrap.dedent(match["body"])
        if match["path"]:
            files[match["path"]] = body
        else:
            commands.append(body)
    return commands, files


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


def clean_environment(venv: Path, **settings: str) -> dict[str, str]:
    """This machine's environment with the new virtualenv active and nothing of this repository's."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "DJANGO_", "COUNTERS_", "PYTHON")) and key != "VIRTUAL_ENV"
    }
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PIP_CONSTRAINT=str(PROJECT_DIR / "requirements.txt"),
        PYTHONUNBUFFERED="1",
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


def test_the_document_has_every_step():
    commands, files = doc_blocks()

    assert len(commands) == 3, "install, prepare, run"
    assert set(files) == {
        "mysite/settings.py",
        "mysite/urls.py",
        "mysite/asgi.py",
        "mysite/views.py",
        "templates/about.html",
    }
    assert "mysite.asgi:application" in commands[2]


@pytest.mark.processes
def test_a_new_project_runs_the_app_from_its_wheel(dynamodb_local, tmp_path):
    commands, files = doc_blocks()
    install, prepare, _ = commands
    venv = tmp_path / "venv"
    env = clean_environment(
        venv,
        DYNAMODB_ENDPOINT_URL=dynamodb_local.endpoint_url,
        AWS_ACCESS_KEY_ID=dynamodb_local.access_key_id,
        AWS_SECRET_ACCESS_KEY=dynamodb_local.secret_access_key,
        AWS_REGION=dynamodb_local.region,
        COUNTERS_TABLE=f"wheel-{uuid.uuid4().hex[:12]}",
    )
    # A copy, so the build writes nothing into the work tree and no earlier build/ leaks in.
    source = tmp_path / "source"
    shutil.copytree(PROJECT_DIR, source, ignore=NOT_COPIED)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=STEP_TIMEOUT)

    started = time.monotonic()
    run(install, cwd=source, env=env, timeout=INSTALL_TIMEOUT)
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
    ):
        assert shipped in names

    run("django-admin startproject mysite", cwd=tmp_path, env=env)
    project = tmp_path / "mysite"
    for path, body in files.items():
        target = project / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a" if path in APPENDED else "w") as out:
            out.write(("\n" if path in APPENDED else "") + body)

    where = run('python -c "import counters; print(counters.__file__)"', cwd=project, env=env)
    assert where.startswith(str(venv)), f"counters imported from {where} instead of the wheel"
    run(prepare, cwd=project, env=env)
    found = run(
        "python manage.py findstatic counters/live.js counters/votes.js counters/counters.css",
        cwd=project,
        env=env,
    )
    assert str(venv) in found

    with (
        SiteProcess(
            env=env,
            log_path=tmp_path / "daphne.log",
            python=str(venv / "bin" / "python"),
            cwd=project,
            application="mysite.asgi:application",
        ) as site,
        site_socket(site.url) as socket,
        site_log_on_failure(site),
    ):
        snapshot = json.loads(socket.recv(timeout=10))
        assert snapshot["type"] == "snapshot"
        assert {"dashboard", "welcome", "about", "lunch.pizza", "lunch.soup"} <= {
            counter["name"] for counter in snapshot["counters"]
        }

        # The app's own counted page, drawn by the app's templates alone. Browsed with a browser's user
        # agent: the app counts a script's views as a bot's, apart from the views.
        page = requests.get(f"{site.url}/pages/welcome/", headers=BROWSER, timeout=30)
        assert page.status_code == 200
        assert '<p class="views">Viewed <span class="count"' in page.text
        assert "/static/counters/live.js" in page.text
        assert requests.get(f"{site.url}/api/counters/welcome", timeout=30).json()["value"] == 1
        receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] == 1)

        # The project's own counted view, with the counter and poll template tags.
        session = requests.Session()
        session.headers.update(BROWSER)
        first = session.get(f"{site.url}/about/", timeout=30)
        assert first.status_code == 200
        assert '<p id="about-views">Viewed 1 times.</p>' in first.text
        assert 'data-poll="lunch"' in first.text and 'data-vote="pizza"' in first.text
        assert '<script src="/static/counters/votes.js" defer></script>' in first.text
        assert "Viewed 2 times." in session.get(f"{site.url}/about/", timeout=30).text

        vote = session.post(
            f"{site.url}/api/polls/lunch/vote",
            json={"option": "pizza"},
            headers={"X-CSRFToken": session.cookies["csrftoken"]},
            timeout=30,
        )
        assert vote.status_code == 200, vote.text
        receive_until(socket, lambda known: known.get("lunch.pizza", (0, 0))[0] == 1)

        dashboard = requests.get(f"{site.url}/", timeout=30)
        assert dashboard.status_code == 200
        assert 'data-poll="lunch"' in dashboard.text and "/static/counters/charts.js" in dashboard.text
