#!/usr/bin/env bash
# The shell walkthroughs of docs/issuer.md and docs/impersonation.md, run as written against a real
# issuer started with the CLI. walkthrough.test.ts runs this script with:
#   CURL_HOME  a directory whose .curlrc maps localhost:3001 and localhost:4000 (the addresses the docs
#              use) to the test's issuer and orders API on free ports
#   ISSUER_PORT, CLI (the built gatehouse-issuer), NODE, WORK (a scratch directory)
# Lines between the docs' commands are glue: what a person does in a browser, and checks.
set -euo pipefail
cd "$WORK"
unset DATABASE_URL GATEHOUSE_DATABASE GATEHOUSE_CONFIG
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

check() { # <what> <actual> <expected>
  if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1: got '$2', expected '$3'"; exit 1; fi
}
claims() { "$NODE" -e 'console.log(Buffer.from(process.argv[1].split(".")[1], "base64url").toString())' "$1"; }
# The CLI (the docs' `gatehouse-issuer` / `npx gatehouse-issuer`); its token command reaches the issuer
# directly (Node's fetch does not read .curlrc).
gatehouse-issuer() { GATEHOUSE_BASE_URL="http://127.0.0.1:$ISSUER_PORT" "$NODE" "$CLI" "$@"; }
npx() { "$@"; }
# A person signing in in a browser: open the authorization URL, post the sign-in form, follow the
# redirects up to the application's redirect URI, and print that URL.
sign_in() { # <authorization URL> <username> <password>
  local jar page action csrf next
  jar=$(mktemp)
  page=$(curl -s -L -c "$jar" -b "$jar" "$1")
  action=$(printf '%s' "$page" | sed -n 's/.*<form method="post" action="\([^"]*\)".*/\1/p' | head -1 | sed 's/&amp;/\&/g')
  csrf=$(printf '%s' "$page" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
  next=$(curl -s -o /dev/null -w '%{redirect_url}' -c "$jar" -b "$jar" -H 'origin: http://localhost:3001' \
    --data-urlencode "csrf=$csrf" --data-urlencode "identifier=$2" --data-urlencode "password=$3" "http://localhost:3001$action")
  while [[ "$next" != http://localhost:8080/* ]]; do
    [ -n "$next" ] || { echo "sign-in of $2 failed" >&2; return 1; }
    next=$(curl -s -o /dev/null -w '%{redirect_url}' -c "$jar" -b "$jar" "$next")
  done
  rm -f "$jar"
  printf '%s\n' "$next"
}
code_of() { sed -n 's/.*[?&]code=\([^&]*\).*/\1/p'; }

# ---- docs/issuer.md: Run it ------------------------------------------------------------------------
export GATEHOUSE_ADMIN_CLIENT_ID=docs-admin GATEHOUSE_ADMIN_CLIENT_SECRET=docs-admin-secret-0123456789abcdefghij
export GATEHOUSE_DATABASE=':memory:' GATEHOUSE_LOG_LEVEL=warn
cp "$here/gatehouse-issuer.json" "$here/claims.mjs" .
npx gatehouse-issuer start --base-url http://localhost:3001 --port "$ISSUER_PORT" 2>start.txt >issuer.log &
issuer_pid=$!
# `npx` and `gatehouse-issuer` are shell functions here, so $! is a subshell whose child is the issuer:
# stop both, or the issuer outlives the test.
trap 'pkill -P "$issuer_pid" 2>/dev/null; kill "$issuer_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf http://localhost:3001/health >/dev/null && break; sleep 0.1; done
check "the issuer says where it listens" "$(head -1 start.txt)" "Gatehouse issuer listening on 127.0.0.1:$ISSUER_PORT"
ADMIN_ID=$GATEHOUSE_ADMIN_CLIENT_ID ADMIN_SECRET=$GATEHOUSE_ADMIN_CLIENT_SECRET

# ---- docs/issuer.md: Walkthrough -------------------------------------------------------------------
ADMIN=$(curl -s -u "$ADMIN_ID:$ADMIN_SECRET" -d grant_type=client_credentials \
  -d resource=http://localhost:3001/api http://localhost:3001/oidc/token | jq -r .access_token)
api() { curl -s -H "authorization: Bearer $ADMIN" -H 'content-type: application/json' "$@"; }

RES=$(api -d '{"name":"Orders API","indicator":"https://orders.example.com"}' http://localhost:3001/api/resources | jq -r .id)
SCOPE=$(api -d '{"name":"read:orders","description":"Read orders"}' http://localhost:3001/api/resources/$RES/scopes | jq -r .id)
check "a resource and a scope" "$(api http://localhost:3001/api/resources/$RES/scopes | jq -r '.items[0].name')" "read:orders"

ROLE=$(api -d '{"name":"order-reader","type":"User"}' http://localhost:3001/api/roles | jq -r .id)
api -d "{\"scopeIds\":[\"$SCOPE\"]}" http://localhost:3001/api/roles/$ROLE/scopes
USER=$(api -d '{"username":"alice","email":"alice@example.com","password":"a long passphrase"}' http://localhost:3001/api/users | jq -r .id)
api -d "{\"roleIds\":[\"$ROLE\"]}" http://localhost:3001/api/users/$USER/roles

api -d '{"name":"Orders web","type":"Traditional","redirectUris":["http://localhost:8080/callback"]}' \
  http://localhost:3001/api/applications | tee app.json >/dev/null

VERIFIER=$(openssl rand -base64 48 | tr -d '=+/\n' | cut -c1-64)
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
CLIENT=$(jq -r .clientId app.json); SECRET=$(jq -r .clientSecret app.json)
AUTH_URL=$(echo "http://localhost:3001/oidc/auth?client_id=$CLIENT&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A8080%2Fcallback&scope=openid%20read%3Aorders&resource=https%3A%2F%2Forders.example.com&code_challenge=$CHALLENGE&code_challenge_method=S256&state=xyz")
CODE=$(sign_in "$AUTH_URL" alice 'a long passphrase' | code_of)

ACCESS_TOKEN=$(curl -s -u "$CLIENT:$SECRET" -d grant_type=authorization_code -d code=$CODE -d code_verifier=$VERIFIER \
  -d redirect_uri=http://localhost:8080/callback -d resource=https://orders.example.com \
  http://localhost:3001/oidc/token | jq -r .access_token)
check "alice's token is for the orders API" "$(claims "$ACCESS_TOKEN" | jq -r '.aud + " " + .scope')" "https://orders.example.com read:orders"

curl -H "authorization: Bearer $ACCESS_TOKEN" http://localhost:4000/ 2>/dev/null > api.json
check "the API sees alice" "$(jq -r .user api.json)" "$USER"

# ---- docs/impersonation.md: Set up once ------------------------------------------------------------
CONSOLE=$(api -d '{"name":"Support console","type":"Traditional","redirectUris":["http://localhost:8080/callback"],"tokenExchangeEnabled":true}' \
  http://localhost:3001/api/applications | tee console.json | jq -r .clientId)
CONSOLE_SECRET=$(jq -r .clientSecret console.json)
CONSOLE_APP=$(jq -r .id console.json)
api -X PATCH -d '{"tokenExchangeEnabled":true}' http://localhost:3001/api/applications/$CONSOLE_APP | jq -e .tokenExchangeEnabled >/dev/null

MGMT=$(api 'http://localhost:3001/api/resources?pageSize=100' | jq -r '.items[] | select(.system) | .id')
CREATE=$(api http://localhost:3001/api/resources/$MGMT/scopes | jq -r '.items[] | select(.name=="subject-tokens:create") | .id')
ROLE=$(api -d '{"name":"impersonator","type":"MachineToMachine"}' http://localhost:3001/api/roles | jq -r .id)
api -d "{\"scopeIds\":[\"$CREATE\"]}" http://localhost:3001/api/roles/$ROLE/scopes
BACKEND=$(api -d '{"name":"Support backend","type":"MachineToMachine"}' http://localhost:3001/api/applications | tee backend.json | jq -r .id)
BACKEND_SECRET=$(jq -r .clientSecret backend.json)
api -d "{\"roleIds\":[\"$ROLE\"]}" http://localhost:3001/api/applications/$BACKEND/roles

# sam, the support engineer, and his own access token in the console (authorization code + PKCE, scope
# openid, no resource: the OpenID Connect access token is the actor token).
api -d '{"username":"sam","password":"sam passphrase 1"}' http://localhost:3001/api/users >/dev/null
CONSOLE_URL="http://localhost:3001/oidc/auth?client_id=$CONSOLE&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A8080%2Fcallback&scope=openid&code_challenge=$CHALLENGE&code_challenge_method=S256&state=xyz"
SAM_CODE=$(sign_in "$CONSOLE_URL" sam 'sam passphrase 1' | code_of)
ACTOR_TOKEN=$(curl -s -u "$CONSOLE:$CONSOLE_SECRET" -d grant_type=authorization_code -d code=$SAM_CODE -d code_verifier=$VERIFIER \
  -d redirect_uri=http://localhost:8080/callback http://localhost:3001/oidc/token | jq -r .access_token)

# ---- docs/impersonation.md: Step 1 -----------------------------------------------------------------
user_id() { api 'http://localhost:3001/api/users?pageSize=100' | jq -r ".items[] | select(.username==\"$1\") | .id"; }
ALICE=$(user_id alice); ENGINEER=$(user_id sam)   # sam: the support engineer signed in to the console

M2M=$(curl -s -u "$BACKEND:$BACKEND_SECRET" -d grant_type=client_credentials \
  -d resource=http://localhost:3001/api -d scope=subject-tokens:create \
  http://localhost:3001/oidc/token | jq -r .access_token)

SUBJECT_TOKEN=$(curl -s -H "authorization: Bearer $M2M" -H 'content-type: application/json' \
  -d "{\"userId\":\"$ALICE\",\"context\":{\"reason\":\"cannot see an order\",\"ticketId\":\"SUP-1234\"},\"actorId\":\"$ENGINEER\",\"applicationId\":\"$CONSOLE\"}" \
  http://localhost:3001/api/subject-tokens | jq -r .subjectToken)
check "a subject token" "${SUBJECT_TOKEN:0:4}" "sub_"

# ---- docs/impersonation.md: Step 2 -----------------------------------------------------------------
curl -s -u "$CONSOLE:$CONSOLE_SECRET" \
  -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \
  -d subject_token=$SUBJECT_TOKEN \
  -d subject_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d actor_token=$ACTOR_TOKEN \
  -d actor_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d resource=https://orders.example.com \
  -d scope=read:orders \
  http://localhost:3001/oidc/token > exchanged.json
ACCESS_TOKEN=$(jq -r .access_token exchanged.json)
check "the answer" "$(jq -c '[.issued_token_type, .token_type, .expires_in, .scope, has("refresh_token")]' exchanged.json)" \
  '["urn:ietf:params:oauth:token-type:access_token","Bearer",300,"read:orders",false]'
check "the token: alice, acted for by sam, with the custom claims" \
  "$(claims "$ACCESS_TOKEN" | jq -c '[.sub, .act, .aud, .scope, .tenant, .support_ticket]')" \
  "[\"$ALICE\",{\"sub\":\"$ENGINEER\"},\"https://orders.example.com\",\"read:orders\",\"acme\",\"SUP-1234\"]"

# ---- docs/impersonation.md: Step 3 -----------------------------------------------------------------
curl -H "authorization: Bearer $ACCESS_TOKEN" http://localhost:4000/orders 2>/dev/null > api.json
check "the API sees both" "$(jq -c '[.user, .actor]' api.json)" "[\"$ALICE\",\"$ENGINEER\"]"
check "a no-impersonation route refuses" \
  "$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $ACCESS_TOKEN" http://localhost:4000/payouts)" "403"
check "a replay is refused" "$(curl -s -u "$CONSOLE:$CONSOLE_SECRET" -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \
  -d subject_token=$SUBJECT_TOKEN -d subject_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d actor_token=$ACTOR_TOKEN -d actor_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d resource=https://orders.example.com http://localhost:3001/oidc/token | jq -r .error_description)" \
  "the subject token has already been used"

# ---- docs/impersonation.md: Audit trail ------------------------------------------------------------
api "http://localhost:3001/api/audit-events?actorId=$ENGINEER&since=2025-01-01T00:00:00Z" > events.json
check "the audit trail names sam" "$(jq -r '[.items[].type] | sort | join(" ")' events.json)" \
  "subject_token.created token_exchange.failed token_exchange.succeeded"

# ---- docs/impersonation.md: Personal access tokens -------------------------------------------------
SPA_ID=$(api -d '{"name":"Docs SPA","type":"SPA","redirectUris":["http://localhost:8080/callback"],"tokenExchangeEnabled":true}' \
  http://localhost:3001/api/applications | jq -r .clientId)
api -d '{"name":"laptop","expiresAt":"2030-01-01T00:00:00Z","scopes":["read:orders"]}' \
  http://localhost:3001/api/users/$ALICE/personal-access-tokens > pat.json
PAT=$(jq -r .value pat.json); PAT_ID=$(jq -r .id pat.json)
check "the PAT is shown once, and listing never shows it" \
  "$(api http://localhost:3001/api/users/$ALICE/personal-access-tokens | jq -c '[.items[0].id, (.items[0] | has("value"))]')" \
  "[\"$PAT_ID\",false]"

curl -s -d client_id=$SPA_ID \
  -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \
  -d subject_token=$PAT \
  -d subject_token_type=urn:gatehouse:params:oauth:token-type:personal_access_token \
  -d resource=https://orders.example.com -d scope=read:orders \
  http://localhost:3001/oidc/token > pat-token.json
check "the PAT gives alice's token" "$(claims "$(jq -r .access_token pat-token.json)" | jq -r .sub)" "$ALICE"

export GATEHOUSE_PAT=$PAT            # or --pat (visible in the process list)
TOKEN=$(gatehouse-issuer token --resource https://orders.example.com --scope read:orders --client-id $SPA_ID)
curl -H "authorization: Bearer $TOKEN" http://localhost:4000/orders 2>/dev/null > api.json
check "the CLI's token works at the API" "$(jq -c '[.user, .actor]' api.json)" "[\"$ALICE\",null]"

api -X DELETE http://localhost:3001/api/users/$ALICE/personal-access-tokens/$PAT_ID   # revokes
check "a revoked PAT is refused" "$(curl -s -d client_id=$SPA_ID -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \
  -d subject_token=$PAT -d subject_token_type=urn:gatehouse:params:oauth:token-type:personal_access_token \
  -d resource=https://orders.example.com http://localhost:3001/oidc/token | jq -r .error)" "invalid_request"

# ---- docs/impersonation.md: Actor-required applications and lifetimes ------------------------------
api -X PATCH -d '{"requireActorToken":true,"impersonationTokenTtl":120}' http://localhost:3001/api/applications/$CONSOLE_APP
check "the console now requires actor tokens, with 2-minute impersonation tokens" \
  "$(api http://localhost:3001/api/applications/$CONSOLE_APP | jq -c '[.requireActorToken, .impersonationTokenTtl]')" "[true,120]"
mint() { curl -s -H "authorization: Bearer $M2M" -H 'content-type: application/json' \
  -d "{\"userId\":\"$ALICE\"}" http://localhost:3001/api/subject-tokens | jq -r .subjectToken; }
SUBJECT_TOKEN=$(mint)
curl -s -u "$CONSOLE:$CONSOLE_SECRET" \
  -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \
  -d subject_token=$SUBJECT_TOKEN \
  -d subject_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d resource=https://orders.example.com \
  http://localhost:3001/oidc/token > refused.json
check "without an actor token: refused" "$(jq -c '[.error, .error_description]' refused.json)" \
  '["invalid_request","this application requires an actor token for every impersonation: send the acting user’s access token as actor_token"]'
curl -s -u "$CONSOLE:$CONSOLE_SECRET" -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \
  -d subject_token=$SUBJECT_TOKEN -d subject_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d actor_token=$ACTOR_TOKEN -d actor_token_type=urn:ietf:params:oauth:token-type:access_token \
  -d resource=https://orders.example.com -d scope=read:orders http://localhost:3001/oidc/token > short.json
check "with one: a 2-minute token, and expires_in says so" \
  "$(claims "$(jq -r .access_token short.json)" | jq -c "[.exp - .iat, $(jq .expires_in short.json)]")" "[120,120]"
ACCESS_TOKEN=$(jq -r .access_token short.json)

# ---- docs/impersonation.md: Ending an impersonation ------------------------------------------------
curl -s -u "$CONSOLE:$CONSOLE_SECRET" -d token=$ACCESS_TOKEN http://localhost:3001/oidc/token/introspection > before.json
check "introspection: active, for alice, acted for by sam" "$(jq -c '[.active, .sub, .act.sub]' before.json)" \
  "[true,\"$ALICE\",\"$ENGINEER\"]"
api -d "{\"actorId\":\"$ENGINEER\"}" http://localhost:3001/api/impersonations/end
curl -s -u "$CONSOLE:$CONSOLE_SECRET" -d token=$ACCESS_TOKEN http://localhost:3001/oidc/token/introspection
check "introspection: no longer active" "$(curl -s -u "$CONSOLE:$CONSOLE_SECRET" -d token=$ACCESS_TOKEN \
  http://localhost:3001/oidc/token/introspection | jq -c .)" '{"active":false}'
check "an API that only verifies the JWT still accepts it until its exp" \
  "$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $ACCESS_TOKEN" http://localhost:4000/orders)" "200"
SUBJECT_TOKEN=$(mint)
api -d "{\"subjectToken\":\"$SUBJECT_TOKEN\"}" http://localhost:3001/api/impersonations/end > ended.json
check "ending an unredeemed subject token cancels it" "$(jq -c . ended.json)" '{"endedTokens":0,"cancelledSubjectTokens":1}'
api "http://localhost:3001/api/audit-events?type=impersonation.ended" > ended-events.json
check "the audit trail says who ended it" "$(jq -c '[.items[1].actorId, .items[1].details.endedBy.clientId, .items[1].details.users]' ended-events.json)" \
  "[\"$ENGINEER\",\"$ADMIN_ID\",[\"$ALICE\"]]"

echo "walkthrough complete"
