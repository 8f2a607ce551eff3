#!/usr/bin/env bash
# A production install must start: build with the full install (`npm run build`), make a release
# tree in a temp directory as a release would ship it (scripts/release-tree.sh: the repository and
# the packages' dist/, then `npm ci --omit=dev`), then for each payment provider
# run `npm start` with a temp DATA_DIR and PORT, wait for /healthz, create a key with the CLI and
# make an authenticated GET /api/v1/assistants, load the dashboard's page and script, and stop the
# server. Fails at the first failure.
#   bash scripts/production-smoke.sh [NODE]   NODE: the Node the tree is installed for and run on
#                                             (default: the machine's; CI runs it on Node 22 too)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -TERM -- "-$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# BERTH_BUILT=1 (CI, right after `npm ci`, whose prepare step made the same build) skips it.
[ "${BERTH_BUILT:-}" = 1 ] || (cd "$root" && npm run build --silent)
node_bin="$(readlink -f "${1:-$(command -v node)}")"
bash "$root/scripts/release-tree.sh" "$work/app" "$node_bin"
cd "$work/app"
# npm start, the CLI and the helpers below all run on that Node.
export PATH="$(dirname "$node_bin"):$PATH"
echo "production install on Node $(node --version)"

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

for provider in local stripe; do
  data="$work/data-$provider"
  port="$(free_port)"
  export DATA_DIR="$data" PORT="$port" HOST=127.0.0.1 PAYMENT_PROVIDER="$provider" LOG_LEVEL=warn
  if [ "$provider" = stripe ]; then
    # Nothing is sold here: the keys only have to be present for the Stripe adapter to load.
    export STRIPE_SECRET_KEY=sk_test_smoke STRIPE_WEBHOOK_SECRET=whsec_smoke STRIPE_API_BASE=http://127.0.0.1:9
  fi
  setsid npm start > "$work/server-$provider.log" 2>&1 &
  server_pid=$!
  ok=""
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1; then ok=1; break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    sleep 0.5
  done
  if [ -z "$ok" ]; then
    echo "production install ($provider): the server did not become healthy" >&2
    cat "$work/server-$provider.log" >&2
    exit 1
  fi
  # The person who typed npm start is told where to go, in words, with the URL.
  if ! grep -q "^Berth is running: open http://127.0.0.1:$port/ (dashboard)" "$work/server-$provider.log"; then
    echo "production install ($provider): no 'Berth is running: open <url>' line at start" >&2
    cat "$work/server-$provider.log" >&2
    exit 1
  fi
  key="$(npx --no-install berth admin create-key --email "smoke-$provider@example.com" 2>/dev/null | tail -n 1)"
  body="$(curl -fsS -H "x-api-key: $key" "http://127.0.0.1:$port/api/v1/assistants")"
  if [ "$body" != '{"data":[]}' ]; then
    echo "production install ($provider): GET /api/v1/assistants answered: $body" >&2
    exit 1
  fi
  # Without a key, and with a session cookie that is not one, the answer is 401, never a 500 (the
  # bundle once gave @fastify/cookie a cookie module without parseCookie).
  for cookie in "" "berth_session=not-a-session"; do
    status="$(curl -s -o /dev/null -w '%{http_code}' ${cookie:+-H "cookie: $cookie"} "http://127.0.0.1:$port/api/v1/assistants")"
    if [ "$status" != 401 ]; then
      echo "production install ($provider): GET /api/v1/assistants without a key (cookie: '$cookie') answered $status" >&2
      exit 1
    fi
  done
  # The dashboard was built by the full install; the production one serves it, with its CSP.
  page="$(curl -fsS -D "$work/headers-$provider" "http://127.0.0.1:$port/")"
  if ! grep -q '<div id="root">' <<< "$page" || ! grep -qi "^content-security-policy: default-src 'self'" "$work/headers-$provider"; then
    echo "production install ($provider): / did not serve the dashboard with its CSP: $page" >&2
    exit 1
  fi
  asset="$(grep -o '/assets/[^"]*\.js' <<< "$page" | head -n 1)"
  curl -fsS "http://127.0.0.1:$port$asset" > /dev/null
  kill -TERM -- "-$server_pid"
  for _ in $(seq 1 40); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$server_pid" 2>/dev/null; then
    echo "production install ($provider): the server did not stop on SIGTERM" >&2
    exit 1
  fi
  server_pid=""
  echo "production install ($provider, Node $(node --version)): started, served an authenticated request, stopped"
done
