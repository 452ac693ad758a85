#!/usr/bin/env bash
# Benchmark: two builds of the gateway compared side by side, for hosts whose speed drifts from run to run (the
# reference machine is a virtual machine; on one evening it ran 2.5 times slower than on the days before).
# Both builds run at the same time, each on its own embedded PostgreSQL, in front of one mock upstream; sequential
# probes (bench/LatencyProbe.java, concurrency 1) alternate between them, so a slow spell of the host falls on
# both. Per build it reports the probe's p50 / p99 (median over the rounds) and the CPU time per request of the
# gateway process and of its PostgreSQL (from /proc/<pid>/stat), which drifts less than latency does.
# Usage: bench/pair.sh JAR_A JAR_B [rounds, default 6]
#   REQUESTS (per probe, default 5000; each probe also sends PROBE_WARMUP uncounted ones first, default 10,000),
#   PROBE_MODE (json, the default: whole answers; ttft: time to first token of streams),
#   WARMUP_SECONDS (per build, default 60), C32=1 to add two alternating 10 s wrk runs at concurrency 32 per build.
set -euo pipefail
cd "$(dirname "$0")/.."
JAR_A=$(realpath "$1")
JAR_B=$(realpath "$2")
ROUNDS=${3:-6}
REQUESTS=${REQUESTS:-5000}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

java -Dsun.net.httpserver.nodelay=true bench/MockUpstream.java 18500 >"$WORK/mock.log" 2>&1 & PIDS+=($!)
export TOLLGATE_CATALOG=$PWD/bench/catalog.yml
# shellcheck source=bench/limits-raised.sh
. bench/limits-raised.sh

declare -A JAR PORT PID KEY
JAR[A]=$JAR_A; JAR[B]=$JAR_B; PORT[A]=18600; PORT[B]=18601
for side in A B; do
  TOLLGATE_DATA_DIR=$WORK/$side MICRONAUT_SERVER_PORT=${PORT[$side]} java -jar "${JAR[$side]}" \
    >"$WORK/gateway-$side.log" 2>&1 & PIDS+=($!); PID[$side]=$!
done
for side in A B; do
  for _ in $(seq 1 180); do curl -s -o /dev/null "http://127.0.0.1:${PORT[$side]}/health" && break; sleep 0.5; done
  TOLLGATE_DATA_DIR=$WORK/$side java -jar "${JAR[$side]}" admin account create --email bench@example.test \
    --verified --credit 1000000 >/dev/null
  KEY[$side]=$(TOLLGATE_DATA_DIR=$WORK/$side java -jar "${JAR[$side]}" admin api-key create \
    --email bench@example.test --name bench)
done
for _ in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:18500/ && break; sleep 0.5; done
url() { echo "http://127.0.0.1:${PORT[$1]}/v1/chat/completions"; }
for side in A B; do # the JIT compiler needs about a minute of traffic on two cores
  KEY=${KEY[$side]} MODEL=bench/mock wrk -t2 -c8 -d"${WARMUP_SECONDS:-60}s" -s bench/post.lua "$(url $side)" >/dev/null
done

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system CPU, in clock ticks
pg_ticks() { # every process of the build's embedded PostgreSQL (its working directory is the data directory)
  local total=0 p
  for p in $(pgrep postgres); do
    [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$WORK/$1/postgres" ] && total=$((total + $(ticks "$p")))
  done
  echo $total
}
HZ=$(getconf CLK_TCK)
declare -A GW PG P50 P99
echo "| Round | Build | p50 / p99 (ms) | gateway CPU / request (ms) | PostgreSQL CPU / request (ms) |"
echo "|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
  for side in A B; do
    g0=$(ticks "${PID[$side]}"); p0=$(pg_ticks $side)
    read -r p50 p99 < <(java bench/LatencyProbe.java "${PROBE_MODE:-json}" "$(url $side)" "${KEY[$side]}" bench/mock "$REQUESTS")
    g1=$(ticks "${PID[$side]}"); p1=$(pg_ticks $side)
    n=$((REQUESTS + ${PROBE_WARMUP:-10000}))
    gw=$(awk -v t=$((g1 - g0)) -v n=$n -v hz="$HZ" 'BEGIN{printf "%.3f", t * 1000 / hz / n}')
    pg=$(awk -v t=$((p1 - p0)) -v n=$n -v hz="$HZ" 'BEGIN{printf "%.3f", t * 1000 / hz / n}')
    GW[$side]="${GW[$side]:-} $gw"; PG[$side]="${PG[$side]:-} $pg"; P50[$side]="${P50[$side]:-} $p50"
    P99[$side]="${P99[$side]:-} $p99"
    echo "| $round | $side | $p50 / $p99 | $gw | $pg |"
  done
done
median() { echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| Build | p50 / p99, median of $ROUNDS (ms) | gateway CPU / request, median (ms) | PostgreSQL CPU / request, median (ms) |"
echo "|---|---|---|---|"
for side in A B; do
  echo "| $side: ${JAR[$side]} | $(median ${P50[$side]}) / $(median ${P99[$side]}) | $(median ${GW[$side]}) | $(median ${PG[$side]}) |"
done
if [ "${C32:-0}" = 1 ]; then
  echo
  for round in 1 2; do
    for side in A B; do
      out=$(KEY=${KEY[$side]} MODEL=bench/mock wrk -t2 -c32 -d10s --latency -s bench/post.lua "$(url $side)")
      echo "concurrency 32, $side: $(echo "$out" | awk '/Requests\/sec/{print $2}') req/s, p99 $(echo "$out" | awk '$1=="99%"{print $2}')"
    done
  done
fi
