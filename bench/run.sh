#!/usr/bin/env bash
# Benchmark: the latency and throughput Tollgate adds in front of an upstream, on this machine, in one go.
#   1. a fast mock upstream (MockUpstream.java) on 127.0.0.1:18500
#   2. direct-to-mock: wrk at concurrency 1 and 32; sequential requests on one connection with bench/LatencyProbe.java
#      (whole JSON answers, and time to first token of streams)
#   3. the same through Tollgate (embedded PostgreSQL, every check on: key auth, traffic limits in process, hold and
#      settle per request). The traffic-limit store alone, in process and in Redis: bench/LimiterBench.java.
# Prints a Markdown table. Usage: bench/run.sh [seconds per wrk run, default 15]  (WARMUP_SECONDS, default 60;
# GATEWAY_JAVA, the JVM that runs the gateway, default java; GATEWAY_JAVA_OPTS, its options, default none)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_RUN=${1:-15}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
[ -f bootstrap/target/tollgate.jar ] || ./mvnw -B -q package -DskipTests

WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

java -Dsun.net.httpserver.nodelay=true bench/MockUpstream.java 18500 >"$WORK/mock.log" 2>&1 & PIDS+=($!)
export TOLLGATE_DATA_DIR=$WORK/data TOLLGATE_CATALOG=$ROOT/bench/catalog.yml
# shellcheck source=bench/limits-raised.sh
. bench/limits-raised.sh
start_gateway() { # log file
  local log=$1
  # shellcheck disable=SC2086 # the options are words
  MICRONAUT_SERVER_PORT=18600 "${GATEWAY_JAVA:-java}" ${GATEWAY_JAVA_OPTS:-} -jar bootstrap/target/tollgate.jar \
    >"$log" 2>&1 & PIDS+=($!)
  for _ in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:18600/health && break; sleep 0.5; done
}
# p50 and p99 (ms) of the traffic-limit decisions the gateway measured itself (tollgate_traffic_decision_seconds)
decision_quantiles() {
  curl -s http://127.0.0.1:18600/prometheus | awk '/^tollgate_traffic_decision_seconds\{/ && /outcome="admitted"/ {
      if ($0 ~ /quantile="0.5"/) p50 = $NF * 1000; if ($0 ~ /quantile="0.99"/) p99 = $NF * 1000 }
      END { printf "%.3f %.3f\n", p50, p99 }'
}
start_gateway "$WORK/gateway.log"
for _ in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:18500/ && break; sleep 0.5; done
admin() { java -jar bootstrap/target/tollgate.jar admin "$@"; }
admin account create --email bench@example.test --verified --credit 1000000 >/dev/null
KEY=$(admin api-key create --email bench@example.test --name bench)

run_wrk() { # url key model connections -> "p50 p99 rps errors"
  local out
  out=$(KEY=$2 MODEL=$3 wrk -t"$(( $4 > 1 ? 2 : 1 ))" -c"$4" -d"${SECONDS_PER_RUN}s" --latency -s bench/post.lua "$1")
  local p50 p99 rps non2xx
  p50=$(echo "$out" | awk '$1=="50%"{print $2}')
  p99=$(echo "$out" | awk '$1=="99%"{print $2}')
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/{print $5}')
  echo "$p50 $p99 $rps ${non2xx:-0}"
}
ms() { # wrk duration (e.g. 512.00us, 1.20ms, 1.5s) -> milliseconds
  awk -v v="$1" 'BEGIN{ if (v ~ /us$/) {sub(/us$/,"",v); print v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v); print v+0} else {sub(/s$/,"",v); print v*1000} }'
}

# Warm both paths up. The gateway needs about a minute of traffic on two cores before the JIT compiler is done
# (measured with perf: until then the C2 compiler thread takes most of the CPU and doubles the latency).
WARMUP=${WARMUP_SECONDS:-60}
KEY=- MODEL=mock wrk -t2 -c8 -d10s -s bench/post.lua http://127.0.0.1:18500/v1/chat/completions >/dev/null
KEY=$KEY MODEL=bench/mock wrk -t2 -c8 -d"${WARMUP}s" -s bench/post.lua http://127.0.0.1:18600/v1/chat/completions >/dev/null
java bench/LatencyProbe.java ttft http://127.0.0.1:18600/v1/chat/completions "$KEY" bench/mock 2000 >/dev/null

read -r d1_50 d1_99 d1_rps d1_err < <(run_wrk http://127.0.0.1:18500/v1/chat/completions - mock 1)
read -r g1_50 g1_99 g1_rps g1_err < <(run_wrk http://127.0.0.1:18600/v1/chat/completions "$KEY" bench/mock 1)
read -r d32_50 d32_99 d32_rps d32_err < <(run_wrk http://127.0.0.1:18500/v1/chat/completions - mock 32)
read -r g32_50 g32_99 g32_rps g32_err < <(run_wrk http://127.0.0.1:18600/v1/chat/completions "$KEY" bench/mock 32)
read -r lim50 lim99 < <(decision_quantiles)
read -r dt50 dt99 < <(java bench/LatencyProbe.java ttft http://127.0.0.1:18500/v1/chat/completions - mock 3000)
read -r gt50 gt99 < <(java bench/LatencyProbe.java ttft http://127.0.0.1:18600/v1/chat/completions "$KEY" bench/mock 3000)
read -r dj50 dj99 < <(java bench/LatencyProbe.java json http://127.0.0.1:18500/v1/chat/completions - mock 15000)
read -r gj50 gj99 < <(java bench/LatencyProbe.java json http://127.0.0.1:18600/v1/chat/completions "$KEY" bench/mock 15000)

added() { awk -v a="$(ms "$1")" -v b="$(ms "$2")" 'BEGIN{printf "%.2f", a-b}'; }
echo "| Measure | Direct to mock | Through Tollgate | Added |"
echo "|---|---|---|---|"
sub() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a-b}'; }
echo "| p50 latency, concurrency 1 (wrk) | $(ms "$d1_50") ms | $(ms "$g1_50") ms | $(added "$g1_50" "$d1_50") ms |"
echo "| p99 latency, concurrency 1 (wrk) | $(ms "$d1_99") ms | $(ms "$g1_99") ms | $(added "$g1_99" "$d1_99") ms |"
echo "| p50 latency, concurrency 1 (LatencyProbe, 15,000 sequential) | $dj50 ms | $gj50 ms | $(sub "$gj50" "$dj50") ms |"
echo "| p99 latency, concurrency 1 (LatencyProbe, 15,000 sequential) | $dj99 ms | $gj99 ms | $(sub "$gj99" "$dj99") ms |"
echo "| p50 latency, concurrency 32 | $(ms "$d32_50") ms | $(ms "$g32_50") ms | $(added "$g32_50" "$d32_50") ms |"
echo "| p99 latency, concurrency 32 | $(ms "$d32_99") ms | $(ms "$g32_99") ms | $(added "$g32_99" "$d32_99") ms |"
echo "| throughput, concurrency 32 (req/s) | $d32_rps | $g32_rps | |"
echo "| non-2xx answers (c=1 / c=32) | $d1_err / $d32_err | $g1_err / $g32_err | |"
echo "| time to first token p50 (streams, 3,000 sequential) | $dt50 ms | $gt50 ms | $(sub "$gt50" "$dt50") ms |"
echo "| time to first token p99 (streams, 3,000 sequential) | $dt99 ms | $gt99 ms | $(sub "$gt99" "$dt99") ms |"
echo "| traffic-limit decision p50 / p99 at concurrency 32, in process | | $lim50 / $lim99 ms | |"
PGPORT=$(sed -n 4p "$WORK/data/postgres/postmaster.pid")
export PGPASSWORD=$(cat "$WORK/data/postgres-password") # the embedded server takes password connections only
LEDGER=$(psql -h 127.0.0.1 -p "$PGPORT" -U postgres -Atc 'select count(*) from request_ledger' tollgate 2>/dev/null || echo n/a)
HOLDS=$(psql -h 127.0.0.1 -p "$PGPORT" -U postgres -Atc 'select count(*) from request_hold' tollgate 2>/dev/null || echo n/a)

echo
echo "ledger rows: $LEDGER, open holds: $HOLDS"
