"""Everything a benchmark run needs: an in-memory DynamoDB Local, a seeded table, the site under daphne."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

PROJECT_DIR = Path(__file__).resolve().parent.parent
# Counters the scenarios write to; `welcome` and the polls come from the demo seed.
BENCH_PAGE = "welcome"


@dataclass
class BenchEnvironment:
    """Handles to the running parts: the store (in this process), the site URL and the pids."""

    local: Any  # counters.embedded.dynamodb_local.LocalDynamo
    table: str
    store: Any  # counters.store.CounterStore
    site: Any | None  # tests.support.processes.SiteProcess
    results_dir: Path
    run_name: str

    @property
    def base_url(self) -> str:
        """The site's URL."""
        if self.site is None:
            raise RuntimeError("This run did not start the site.")
        return self.site.url

    def pids(self) -> dict[str, int]:
        """Process ids to account CPU time to, by role."""
        pids = {"load generator + bench": os.getpid(), "DynamoDB Local": self.local.pid}
        if self.site is not None and self.site.process is not None:
            pids["site"] = self.site.process.pid
        return pids

    def raw_client(self, *, pool: int) -> Any:
        """A plain boto3 client on the same DynamoDB Local with the app's settings, pooled for `pool`."""
        import boto3

        from counters.store.dynamodb.clients import single_shot_config

        session = boto3.session.Session(
            aws_access_key_id=self.local.access_key_id,
            aws_secret_access_key=self.local.secret_access_key,
            region_name=self.local.region,
        )
        # The app's own settings (timeouts, no resend), so the baseline is what the site could reach.
        config = single_shot_config(pool=pool)
        return session.client("dynamodb", endpoint_url=self.local.endpoint_url, config=config)

    def csrf_token(self) -> str:
        """A csrftoken cookie value from a GET of a page (the beacon and votes are CSRF-protected)."""
        response = requests.get(f"{self.base_url}/bench/uncounted/{BENCH_PAGE}/", timeout=10)
        response.raise_for_status()
        return response.cookies["csrftoken"]


def _configure_django(local: Any, table: str, data_dir: Path) -> None:
    """Point this process's Django at the bench store before setup."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.settings",
            "DYNAMODB_ENDPOINT_URL": local.endpoint_url,
            "AWS_ACCESS_KEY_ID": local.access_key_id,
            "AWS_SECRET_ACCESS_KEY": local.secret_access_key,
            "AWS_REGION": local.region,
            "COUNTERS_TABLE": table,
            "COUNTERS_DATA_DIR": str(data_dir),
            "COUNTERS_VOTE_RATE": "0",
            "DJANGO_DEBUG": "false",
        }
    )
    import django

    django.setup()


@contextlib.contextmanager
def bench_environment(*, with_site: bool, results_dir: Path, run_name: str) -> Iterator[BenchEnvironment]:
    """Start DynamoDB Local in memory (and the site if asked), seed a fresh table, stop all on exit."""
    from counters.embedded.dynamodb_local import InMemoryDynamo

    with (
        tempfile.TemporaryDirectory(prefix="counters-bench-") as tmp,
        InMemoryDynamo(base_dir=PROJECT_DIR) as local,
    ):
        table = f"bench-{uuid.uuid4().hex[:8]}"
        _configure_django(local, table, Path(tmp))
        from counters.services.setup import store_prepare
        from counters.store import get_store

        store_prepare(demo=True)
        store = get_store()
        site = None
        try:
            if with_site:
                site = _start_site(Path(tmp))
            yield BenchEnvironment(local, table, store, site, results_dir, run_name)
        finally:
            if site is not None:
                site.stop()


def _start_site(
    tmp: Path,
    *,
    name: str = "site",
    cwd: Path = PROJECT_DIR,
    server: str = "daphne",
    quiet: bool = False,
    application: str = "counters_site.asgi:application",
    **extra_env: str,
) -> Any:
    """Serve the site (of the project at `cwd`) under `server` on a free loopback port, bench settings.

    `quiet`: no access log, as the deployment guide runs workers.
    """
    from tests.support.processes import SiteProcess, site_environment

    env = site_environment(**{key: os.environ[key] for key in _SITE_KEYS}, **extra_env)
    env["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    # The log lives as long as the run; a site that fails to start shows its tail in the error.
    site = SiteProcess(
        env=env, log_path=tmp / f"{name}.log", cwd=cwd, server=server, quiet=quiet, application=application
    )
    site.migrate()
    return site.start()


@dataclass
class SiteWorkers:
    """Several daphne workers of one site on the same store, sharing a Redis channel layer and cache."""

    sites: list[Any]  # tests.support.processes.SiteProcess
    store_pid: int

    @property
    def urls(self) -> list[str]:
        """Each worker's URL (a load balancer's upstreams)."""
        return [site.url for site in self.sites]

    def pids(self) -> dict[str, list[int]]:
        """CPU roles as BenchEnvironment.pids() names them, the workers summed as the site."""
        return {
            "load generator + bench": [os.getpid()],
            "DynamoDB Local": [self.store_pid],
            "site": [pid for site in self.sites for pid in site.pids()],
        }


@contextlib.contextmanager
def site_at(env: BenchEnvironment, ref: str) -> Iterator[SiteWorkers]:
    """The site as it was at git `ref`, on the bench store, as one worker; RuntimeError if unavailable."""
    with tempfile.TemporaryDirectory(prefix="counters-bench-before-") as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(PROJECT_DIR), "archive", "--format=tar", ref], capture_output=True, check=False
        )
        if archive.returncode != 0:
            raise RuntimeError(f"git archive {ref} failed: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        site = _start_site(Path(tmp), name=f"site-at-{ref}", cwd=tree)
        try:
            yield SiteWorkers([site], env.local.pid)
        finally:
            site.stop()


@contextlib.contextmanager
def site_servers(env: BenchEnvironment, servers: list[str]) -> Iterator[dict[str, SiteWorkers]]:
    """The site under each of `servers` at once, one process each, on the bench store, as deployed."""
    sites: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="counters-bench-servers-") as tmp:
        try:
            for server in servers:
                sites[server] = _start_site(Path(tmp), name=server, server=server, quiet=True)
            yield {server: SiteWorkers([site], env.local.pid) for server, site in sites.items()}
        finally:
            for site in sites.values():
                site.stop()


@contextlib.contextmanager
def bench_asgi_site(env: BenchEnvironment, server: str, **extra_env: str) -> Iterator[SiteWorkers]:
    """The site under `server` with the benchmark's own endpoints (bench/asgi.py), one process."""
    with tempfile.TemporaryDirectory(prefix=f"counters-bench-{server}-") as tmp:
        site = _start_site(
            Path(tmp),
            name=server,
            server=server,
            quiet=True,
            application="bench.asgi:application",
            **extra_env,
        )
        try:
            yield SiteWorkers([site], env.local.pid)
        finally:
            site.stop()


def redis_url() -> str:
    """The Redis the multi-worker runs share: REDIS_URL, or the local default."""
    return os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


@dataclass
class BehindNginx(SiteWorkers):
    """The same workers reached through nginx (deploy/nginx.conf.template), which balances them."""

    nginx: Any = None  # tests.support.nginx.Nginx

    @property
    def urls(self) -> list[str]:
        """The one address clients use: nginx's."""
        return [self.nginx.url]

    def pids(self) -> dict[str, list[int]]:
        """The workers' roles plus nginx (master and workers), whose CPU is not the site's."""
        return {**super().pids(), "nginx": self.nginx.worker_pids()}


@contextlib.contextmanager
def site_workers(env: BenchEnvironment, count: int) -> Iterator[tuple[SiteWorkers, BehindNginx]]:
    """Start `count` daphne workers sharing Redis and nginx in front of them: (direct, through nginx)."""
    from tests.support.nginx import Nginx

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    extra = {"REDIS_URL": redis_url(), "COUNTERS_REDIS_PREFIX": prefix, "COUNTERS_PROXY_COUNT": "1"}
    sites: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="counters-bench-workers-") as tmp:
        try:
            for number in range(1, count + 1):
                sites.append(_start_site(Path(tmp), name=f"worker-{number}", **extra))
            # One nginx process: the machine's cores are for the workers and the store.
            with Nginx([f"127.0.0.1:{site.port}" for site in sites], worker_processes=1) as nginx:
                yield SiteWorkers(sites, env.local.pid), BehindNginx(sites, env.local.pid, nginx)
        finally:
            for site in sites:
                site.stop()


_SITE_KEYS = (
    "DYNAMODB_ENDPOINT_URL",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION",
    "COUNTERS_TABLE",
    "COUNTERS_DATA_DIR",
    "COUNTERS_VOTE_RATE",
)
