#!/usr/bin/env bash
# The commands of docs/troubleshooting.md (and docs/issuer.md's `admin reset-secret`), run as written
# against the built CLI. troubleshooting.test.ts runs this script in a process group of its own (killed
# afterwards) with:
#   CLI           the built gatehouse-issuer (dist/cli.js), run by NODE
#   WORK          a scratch directory: the docs' /home/you/project
#   TAKEN_PORT    a port the test holds: the docs' 3001
#   FREE_PORT     a free port: the docs' 3002
#   DATABASE_URL  an empty PostgreSQL schema
# Each case prints "=== <case>" and what the commands printed; the test compares it with the page's
# output blocks. Lines between the docs' commands are glue: ports, waiting, checks.
set -euo pipefail
cd "$WORK"
pg_url=$DATABASE_URL
unset DATABASE_URL GATEHOUSE_CONFIG GATEHOUSE_DATABASE GATEHOUSE_DATA_DIR GATEHOUSE_BASE_URL
unset GATEHOUSE_ADMIN_CLIENT_ID GATEHOUSE_ADMIN_CLIENT_SECRET
export GATEHOUSE_LOG_LEVEL=warn

# The docs' ports: 3001 (the default) is taken, 3002 is free.
port_of() { case $1 in 3001) echo "$TAKEN_PORT" ;; 3002) echo "$FREE_PORT" ;; *) echo "$1" ;; esac; }
# The CLI. Run in the background (`gatehouse-issuer start … &`), SIGTERM to the job reaches node, and the
# job ends only once node has (so its port is free again).
gatehouse-issuer() {
  local args=() arg node status=0
  for arg in "$@"; do args+=("$(port_of "$arg")"); done
  GATEHOUSE_PORT=$(port_of "${GATEHOUSE_PORT:-3001}") "$NODE" "$CLI" "${args[@]}" &
  node=$!
  trap 'kill -TERM $node 2>/dev/null; wait $node' TERM
  wait $node || status=$?
  trap - TERM
  return $status
}
# Whatever happens, no issuer outlives the script.
trap 'for job in $(jobs -p); do kill -TERM "$job" 2>/dev/null || true; done; wait' EXIT
case_() { echo "=== $1"; }
# Wait until start.txt holds $1 (a started issuer's banner); print it.
banner() {
  for _ in $(seq 1 150); do
    if grep -q "$1" start.txt 2>/dev/null; then cat start.txt; return 0; fi
    sleep 0.1
  done
  cat start.txt
  return 1
}
stop() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
# Status of a Management API call with a client-credentials token of <client id> <secret>.
management_status() {
  "$NODE" -e '
    const [id, secret, port] = process.argv.slice(1);
    const base = `http://127.0.0.1:${port}`;
    const res = await fetch(`${base}/oidc/token`, { method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}` },
      body: new URLSearchParams({ grant_type: "client_credentials", resource: `http://localhost:${port}/api` }) });
    if (res.status !== 200) { console.log(res.status); process.exit(0); }
    const { access_token } = await res.json();
    console.log((await fetch(`${base}/api/applications`, { headers: { authorization: `Bearer ${access_token}` } })).status);
  ' "$1" "$2" "$FREE_PORT"
}
client_id() { sed -n 's/^  Client ID: *//p' "$1" | tail -1; }
client_secret() { sed -n 's/^  Client secret: *//p' "$1" | tail -1; }

# ---- The port is already in use --------------------------------------------------------------------
case_ port-in-use
gatehouse-issuer start 2>&1 || echo "exit code $?"
[ ! -e .data ] && echo "nothing created"

case_ port-fixed
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 2>start.txt &
pid=$!
banner 'Get a Management API token' >/dev/null
head -1 start.txt
cp start.txt first.txt
stop $pid
rm -f start.txt # so that banner waits for this start's, not an earlier one's
GATEHOUSE_PORT=3002 gatehouse-issuer start 2>start.txt &
pid=$!
banner 'Gatehouse issuer listening' >/dev/null
echo "GATEHOUSE_PORT works too"
stop $pid

# ---- The administrator secret is lost --------------------------------------------------------------
# The secret printed by first.txt was never used: the starts above replaced it, and this one does again.
case_ secret-never-used
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 2>start.txt &
pid=$!
banner 'Get a Management API token'
cp start.txt reissued.txt
echo "the secret printed first: $(management_status "$(client_id first.txt)" "$(client_secret first.txt)")"
echo "the secret printed now: $(management_status "$(client_id reissued.txt)" "$(client_secret reissued.txt)")"
stop $pid

case_ reset-secret
gatehouse-issuer admin reset-secret --data-dir ./.data 2>&1 | tee reset.txt
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 2>start.txt &
pid=$!
banner 'Administrator:' >/dev/null
echo "the old secret: $(management_status "$(client_id reissued.txt)" "$(client_secret reissued.txt)")"
echo "the new secret: $(management_status "$(client_id reset.txt)" "$(client_secret reset.txt)")"
stop $pid

case_ secret-never-used-postgres
export DATABASE_URL=$pg_url
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 2>start.txt &
pid=$!
banner 'Get a Management API token' >/dev/null
cp start.txt pg-first.txt
stop $pid
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 2>start.txt &
pid=$!
banner 'Administrator:'

case_ reset-secret-postgres
# While the instance runs.
gatehouse-issuer admin reset-secret --database-url "$DATABASE_URL" 2>&1 | tee reset.txt
echo "the old secret: $(management_status "$(client_id pg-first.txt)" "$(client_secret pg-first.txt)")"
echo "the new secret: $(management_status "$(client_id reset.txt)" "$(client_secret reset.txt)")"
stop $pid
unset DATABASE_URL

# ---- Node.js is too old ----------------------------------------------------------------------------
# As the page's Node 20 would run it: this Node, reporting version 20.20.2 (a preload sets it).
case_ old-node
"$NODE" --import 'data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });' \
  "$CLI" start 2>&1 || echo "exit code $?"

# ---- A mistyped option, flag or setting ------------------------------------------------------------
case_ unknown-flag
gatehouse-issuer start --prot 3002 2>&1 || echo "exit code $?"

case_ unknown-setting
echo '{ "keys": { "graceperiod": 3600 } }' >gatehouse-issuer.json
gatehouse-issuer start 2>&1 || echo "exit code $?"
rm gatehouse-issuer.json

case_ unknown-env
GATEHOUSE_PROT=3005 gatehouse-issuer migrate >/dev/null 2>warned.txt
head -1 warned.txt && rm warned.txt

case_ malformed-database-url
DATABASE_URL='postgres//gatehouse@localhost/gatehouse' gatehouse-issuer migrate 2>&1 || echo "exit code $?"
[ ! -e postgres ] || echo "a file named postgres was created"

# ---- The PostgreSQL database cannot be reached -----------------------------------------------------
# The test cluster's URL with another port (nothing listens on the free port now) or database name.
url_with() { "$NODE" -e 'const u = new URL(process.argv[1]); u[process.argv[2]] = process.argv[3]; console.log(u.href)' "$pg_url" "$1" "$2"; }
case_ pg-refused
DATABASE_URL=$(url_with port "$FREE_PORT") gatehouse-issuer migrate 2>&1 || echo "exit code $?"

case_ pg-database-missing
DATABASE_URL=$(url_with pathname /gatehous) gatehouse-issuer migrate 2>&1 || echo "exit code $?"

# ---- A bad environment variable --------------------------------------------------------------------
case_ bad-env
GATEHOUSE_ADMIN_CLIENT_ID=ci-admin GATEHOUSE_ADMIN_CLIENT_SECRET=too-short gatehouse-issuer start 2>&1 ||
  echo "exit code $?"

# ---- A setting of an earlier version is refused ----------------------------------------------------
case_ replaced-setting
GATEHOUSE_SIGN_IN_MAX_FAILURES=10 gatehouse-issuer start 2>&1 || echo "exit code $?"

# ---- Behind a proxy that is not configured ------------------------------------------------------------
case_ proxy-not-trusted
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 >issuer.log 2>start.txt &
pid=$!
banner 'listening on' >/dev/null
# A token request as a load balancer forwards it, with X-Forwarded-For.
"$NODE" -e 'await fetch(`http://127.0.0.1:${process.argv[1]}/oidc/token`, { method: "POST",
  headers: { "x-forwarded-for": "203.0.113.7" }, body: new URLSearchParams({ grant_type: "client_credentials" }) })' "$FREE_PORT"
stop $pid
"$NODE" -e 'for (const line of require("node:fs").readFileSync(0, "utf8").split("\n")) {
  try { const j = JSON.parse(line); if (j.event === "proxy.untrusted_forwarded_for") console.log(j.msg); } catch {}
}' <issuer.log

# ---- The data directory is readable by other users ----------------------------------------------
case_ data-dir-permissions
chmod 755 .data && chmod 644 .data/issuer.sqlite # as if made by another tool, or a umask of 022
rm -f start.txt # so that banner waits for this start's, not an earlier one's
gatehouse-issuer start --port 3002 >issuer.log 2>start.txt &
pid=$!
banner 'listening on' >/dev/null
stop $pid
# The warnings are log lines (JSON, event "store.file_mode"); their msg is what the page shows.
"$NODE" -e 'for (const line of require("node:fs").readFileSync(0, "utf8").split("\n")) {
  try { const j = JSON.parse(line); if (j.event === "store.file_mode") console.log(j.msg); } catch {}
}' <issuer.log
chmod 700 .data && chmod 600 .data/issuer.sqlite

# ---- The readiness probe answers 503 ------------------------------------------------------------------
# The newest migration missing from the database, as after restoring a backup made by an older version.
case_ readiness-migration-pending
rm -f start.txt # so that banner waits for this start's, not an earlier one's
DATABASE_URL=$pg_url gatehouse-issuer start --port 3002 >issuer.log 2>start.txt &
pid=$!
banner 'listening on' >/dev/null
# (libpq reads "+" in a URL as itself, not as a space.)
psql -q "${pg_url//+/%20}" -c 'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)'
curl -s "http://127.0.0.1:$FREE_PORT/health/ready"
echo
stop $pid
"$NODE" -e 'for (const line of require("node:fs").readFileSync(0, "utf8").split("\n")) {
  try { const j = JSON.parse(line); if (j.event?.startsWith("health.")) console.log(`${j.msg} (${JSON.stringify({ database: j.database, migrations: j.migrations })})`); } catch {}
}' <issuer.log
# (The schema is not used again: no need to put the row back.)

# ---- The shutdown was cut short -----------------------------------------------------------------------
case_ shutdown-cut
rm -f start.txt # so that banner waits for this start's, not an earlier one's
# node directly (not the wrapper above), so that its exit code is the one waited for.
GATEHOUSE_SHUTDOWN_DRAIN_TIMEOUT=1 "$NODE" "$CLI" start --port "$FREE_PORT" >issuer.log 2>start.txt &
pid=$!
banner 'listening on' >/dev/null
# A request in flight that never ends: a token request whose body never arrives.
"$NODE" -e 'const s = require("node:net").connect(process.argv[1], "127.0.0.1", () => {
  s.write("POST /oidc/token HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\ngrant_type=");
  console.log("sent");
}); s.on("close", () => process.exit(0)); setTimeout(() => process.exit(0), 10000);' "$FREE_PORT" >holder.txt &
holder=$!
for _ in $(seq 1 50); do grep -q sent holder.txt 2>/dev/null && break; sleep 0.1; done
kill -TERM $pid
wait $pid || echo "exit code $?"
tail -1 start.txt
"$NODE" -e 'for (const line of require("node:fs").readFileSync(0, "utf8").split("\n")) {
  try { const j = JSON.parse(line); if (j.event === "shutdown.cut") console.log(j.msg); } catch {}
}' <issuer.log
wait $holder || true

case_ drain-delay-too-long
GATEHOUSE_SHUTDOWN_DRAIN_DELAY=30 gatehouse-issuer start 2>&1 || echo "exit code $?"

# ---- The metrics endpoint cannot start ---------------------------------------------------------------
case_ metrics-token-required
GATEHOUSE_TELEMETRY_PROMETHEUS=issuer-port gatehouse-issuer start 2>&1 || echo "exit code $?"

case_ metrics-port-in-use
GATEHOUSE_TELEMETRY_PROMETHEUS=own-port GATEHOUSE_TELEMETRY_PROMETHEUS_PORT=$TAKEN_PORT gatehouse-issuer start --port 3002 2>&1 || echo "exit code $?"

echo "=== done"
