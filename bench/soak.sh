#!/usr/bin/env bash
# Soak run for G17 (bench/Soak.java): two gateway instances on one PostgreSQL database with default traffic limits,
# an open-loop load at RATE requests/s (default 25: half the account limit) for MINUTES (default 120), 70 % streams,
# 1 % chaos; a report every WINDOW minutes (default 10) and G17's soak checks at the end. Needs the machine's
# PostgreSQL on 127.0.0.1:5432 (trust auth, user postgres; a fresh database tollgate_soak) and a Java 22+ to launch
# Soak.java with Chaos.java beside it (JAVA22, default the Temurin 25 in /usr/lib/jvm); the gateways run on `java`.
# Usage: bench/soak.sh [minutes] [rate] [window-minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA22="${JAVA22:-$(ls -d /usr/lib/jvm/temurin-2[2-9]* /usr/lib/jvm/*-2[2-9]-* 2>/dev/null | head -1)/bin/java}"
[ -f bootstrap/target/tollgate.jar ] || ./mvnw -B -q package -DskipTests
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS tollgate_soak WITH (FORCE)" >/dev/null 2>&1
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE tollgate_soak" >/dev/null
"$JAVA22" -cp bootstrap/target/tollgate.jar bench/Soak.java "$PWD/bootstrap/target/tollgate.jar" \
    "jdbc:postgresql://127.0.0.1:5432/tollgate_soak" "${1:-120}" "${2:-25}" "${3:-10}"
