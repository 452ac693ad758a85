#!/usr/bin/env bash
# Reliability run for G3, G13 and G14 (bench/Chaos.java): two gateway instances on one PostgreSQL database, a chaos
# upstream, REQUESTS streaming completions (default 5000) at CONCURRENCY (default 50), one instance killed with
# SIGKILL and restarted part-way, then checks in the database. Needs the machine's PostgreSQL on 127.0.0.1:5432
# (trust auth, user postgres); uses a fresh database tollgate_chaos.
# With "aborts" as third argument: the G13 recipe (every request a 2,000-token stream aborted at a random time in
# [0, 20 s]; no kill). Usage: bench/chaos.sh [requests] [concurrency] [chaos|aborts]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bootstrap/target/tollgate.jar ] || ./mvnw -B -q package -DskipTests
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS tollgate_chaos" >/dev/null 2>&1
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE tollgate_chaos" >/dev/null
java -cp bootstrap/target/tollgate.jar bench/Chaos.java "$PWD/bootstrap/target/tollgate.jar" \
    "jdbc:postgresql://127.0.0.1:5432/tollgate_chaos" "${1:-5000}" "${2:-50}" "${3:-chaos}"
