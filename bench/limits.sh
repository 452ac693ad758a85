#!/usr/bin/env bash
# Load and fault runs of the §8 traffic limits for reliability goals G6, G7, G9 and G16 (bench/Limits.java):
# a private Redis (port LIMITS_REDIS_PORT, default 6391; never the machine's own on 6379), a fresh PostgreSQL
# database on the machine's server (127.0.0.1:5432, trust auth, user postgres), two gateway instances sharing both
# (REDIS_URI), every limit at the spec's default. Requests alternate between the two instances and come from many
# loopback source addresses (127.0.0.0/8 only). Prints a Markdown table of what was measured, PASS/FAIL per check,
# and exits 1 if a check failed. Everything it started is stopped and the database dropped on exit; the gateway
# logs stay in the work directory it names.
#
# Usage: bench/limits.sh [g6|g7|g9|g16|all] [minutes]     minutes: length of each G6 phase and of G16(a), default 3
#   TOLLGATE_JAR=/path/to/tollgate.jar  use that jar (default: a copy of bootstrap/target/tollgate.jar, taken at
#                                       start so that a rebuild during the run does not change it)
#   LIMITS_REDIS_PORT=6391              port of the private Redis
#   LIMITS_G9_OUTAGE=30                 seconds the Redis outage of G9 lasts
#   LIMITS_CYCLES=10000                 G7 cycles
# Takes about 20 minutes for "all 3" (G6 alone: 2 phases of `minutes`, plus start-up and warm-up).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCENARIOS=${1:-all}
MINUTES=${2:-3}
case "$SCENARIOS" in g6|g7|g9|g16|all) ;; *) echo "usage: bench/limits.sh [g6|g7|g9|g16|all] [minutes]" >&2; exit 2;; esac

WORK=$(mktemp -d) # under $TMPDIR; the path is printed at the end
DB=tollgate_limits_$$
REDIS_PORT=${LIMITS_REDIS_PORT:-6391}
GATEWAYS=()
cleanup() {
  local rc=$?
  for p in "${GATEWAYS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${GATEWAYS[@]}"; do wait "$p" 2>/dev/null || true; done
  # The private Redis: the one started here, or the one Limits.java restarted (G9); both write this pid file.
  if [ -f "$WORK/redis.pid" ]; then kill "$(cat "$WORK/redis.pid")" 2>/dev/null || true; fi
  [ -n "${REDIS_PID:-}" ] && { kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true; }
  dropdb -h 127.0.0.1 -U postgres --if-exists "$DB" 2>/dev/null || true
  rm -f "$WORK/gateway.jar"
  echo "logs: $WORK" >&2
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "${TOLLGATE_JAR:-}" ]; then
  JAR=$TOLLGATE_JAR
else
  [ -f bootstrap/target/tollgate.jar ] || ./mvnw -B -q package -DskipTests
  cp bootstrap/target/tollgate.jar "$WORK/gateway.jar"
  JAR=$WORK/gateway.jar
fi

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { local p; for p in $(seq "$1" "$(( $1 + 200 ))"); do port_free "$p" && { echo "$p"; return; }; done; exit 1; }
port_free "$REDIS_PORT" || { echo "port $REDIS_PORT is taken: set LIMITS_REDIS_PORT" >&2; exit 1; }
PORT1=$(free_port 18710)
PORT2=$(free_port $(( PORT1 + 1 )))

# The private Redis: no persistence, so a restart (G9) starts it empty, as a crashed cache would.
REDIS_ARGS=(--port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no
  --pidfile "$WORK/redis.pid" --dir "$WORK" --logfile "$WORK/redis.log")
redis-server "${REDIS_ARGS[@]}" & REDIS_PID=$!
for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
createdb -h 127.0.0.1 -U postgres "$DB"
JDBC=jdbc:postgresql://127.0.0.1:5432/$DB

# Every model is priced at 0, so balances play no part; each simulator says how long its answer takes.
cat >"$WORK/catalog.yml" <<'EOF'
providers:
  instant:      # rate scenarios: the whole answer at once
    type: simulator
    time-to-first-token-ms: 0
    tokens-per-second: 0
    output-tokens: 3
  slow:         # held streams (G7): 2,000 tokens at 20 per second
    type: simulator
    time-to-first-token-ms: 0
    tokens-per-second: 20
    output-tokens: 2000
  hold:         # playground streams of about 7 s (G16 b): 14 tokens at 2 per second
    type: simulator
    time-to-first-token-ms: 0
    tokens-per-second: 2
    output-tokens: 14
  cycle:        # G7 cycles: 20 tokens at 50 per second (0.4 s)
    type: simulator
    time-to-first-token-ms: 0
    tokens-per-second: 50
    output-tokens: 20
  fail-mid:     # every call fails half-way through its stream
    type: simulator
    time-to-first-token-ms: 0
    tokens-per-second: 50
    output-tokens: 20
    fail-every: 1
    fail-mode: mid-stream
  fail-before:  # every call fails before its first byte (HTTP 503 from the upstream)
    type: simulator
    time-to-first-token-ms: 0
    fail-every: 1
    fail-mode: before-first-byte
    fail-status: 503
models:
EOF
for m in instant slow hold cycle fail-mid fail-before; do
  cat >>"$WORK/catalog.yml" <<EOF
  - id: bench/$m
    owned-by: bench
    context-length: 16384
    max-output-tokens: 4096
    routes:
      - provider: $m
        model: $m
        input-usd-per-million: "0"
        output-usd-per-million: "0"
EOF
done

start_gateway() { # port log
  env DATASOURCES_DEFAULT_URL="$JDBC" DATASOURCES_DEFAULT_USERNAME=postgres MICRONAUT_SERVER_PORT="$1" \
    TOLLGATE_CATALOG="$WORK/catalog.yml" REDIS_URI="redis://127.0.0.1:$REDIS_PORT" \
    TOLLGATE_PLAYGROUND_COOKIE_SECRET="limits-bench-$$" TOLLGATE_PLAYGROUND_MODELS="bench/instant,bench/slow,bench/hold" \
    java -Xmx2g -Xlog:gc:file="$2.gc":uptime,time -jar "$JAR" >"$2" 2>&1 & GATEWAYS+=($!)
}
start_gateway "$PORT1" "$WORK/gateway-1.log"
sleep 3 # the first instance migrates the schema; the second then only validates it
start_gateway "$PORT2" "$WORK/gateway-2.log"
for port in "$PORT1" "$PORT2"; do
  for _ in $(seq 1 240); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.5; done
  curl -sf -o /dev/null "http://127.0.0.1:$port/health" || { echo "gateway on $port did not start" >&2; exit 1; }
done

echo "jar $JAR; instances on $PORT1 and $PORT2; Redis on $REDIS_PORT; database $DB; work $WORK" >&2
# The operator CLI runs inside Limits.java (same jar on the class path, same DATASOURCES_DEFAULT_URL, which is
# also the database it reads key ids and live instances from).
env DATASOURCES_DEFAULT_URL="$JDBC" DATASOURCES_DEFAULT_USERNAME=postgres \
  java -Xss512k -Xmx3g -cp "$JAR" bench/Limits.java --scenarios "$SCENARIOS" --minutes "$MINUTES" \
  --ports "$PORT1,$PORT2" --redis-port "$REDIS_PORT" --work "$WORK" --logs "$WORK/gateway-1.log,$WORK/gateway-2.log" \
  --outage-seconds "${LIMITS_G9_OUTAGE:-30}" --cycles "${LIMITS_CYCLES:-10000}"
