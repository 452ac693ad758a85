#!/usr/bin/env bash
# The dashboard's browser end-to-end test: installs what it needs (Debian's chromium, playwright-core from npm),
# starts the built jar on a fresh embedded PostgreSQL with user-billed playground mode and this directory's catalog,
# walks the dashboard in headless Chromium, stops the jar. Screenshots land in bootstrap/target/browser-test/.
# Build the jar first (./mvnw -B -q package -DskipTests, or ./mvnw -B verify).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
JAR="${TOLLGATE_JAR:-$ROOT/bootstrap/target/tollgate.jar}"
PORT="${BROWSER_TEST_PORT:-18090}"
OUTPUT_DIR="${OUTPUT_DIR:-$ROOT/bootstrap/target/browser-test}"
[ -f "$JAR" ] || { echo "no jar at $JAR: build it first (./mvnw -B -q package -DskipTests)" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian's chromium (headless browser for the test)"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
(cd "$HERE" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

WORK="$(mktemp -d)"
rm -rf "$OUTPUT_DIR" && mkdir -p "$OUTPUT_DIR"
export TOLLGATE_DATA_DIR="$WORK/data"
export TOLLGATE_CATALOG="$HERE/catalog.yml"
export TOLLGATE_PLAYGROUND_USER_BILLED=true
MICRONAUT_SERVER_PORT="$PORT" java -jar "$JAR" >"$OUTPUT_DIR/server.log" 2>&1 &
SERVER=$!
stop_server() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop_server EXIT

UP=no
for _ in $(seq 1 120); do
  if curl -s -o /dev/null "http://127.0.0.1:$PORT/login"; then UP=yes; break; fi
  if ! kill -0 "$SERVER" 2>/dev/null; then break; fi
  sleep 0.5
done
if [ "$UP" != yes ]; then cat "$OUTPUT_DIR/server.log"; echo "the gateway did not start" >&2; exit 1; fi

cd "$HERE"
BASE_URL="http://127.0.0.1:$PORT" TOLLGATE_JAR="$JAR" OUTPUT_DIR="$OUTPUT_DIR" CHROMIUM=/usr/bin/chromium \
  node --test --test-reporter=spec dashboard.test.mjs
