#!/usr/bin/env bash
# Renders charts/berth without helm (not in Debian's packages): tools/render.go executes the
# templates with Go's text/template and the sprig functions from Debian's packages, then
# tools/validate.mjs checks each manifest against the Kubernetes schemas. Two value sets: the
# defaults, and ingress + namespace creation + dedicated placement.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
need=()
command -v go > /dev/null || need+=(golang-go)
[ -d /usr/share/gocode/src/github.com/Masterminds/sprig ] || need+=(golang-github-masterminds-sprig-dev)
[ -d /usr/share/gocode/src/gopkg.in/yaml.v3 ] || need+=(golang-gopkg-yaml.v3-dev)
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/render"
cp "$here/tools/render.go" "$work/src/render/main.go"
# Debian's Go libraries live in a GOPATH tree; link ours beside them.
export GO111MODULE=off GOPATH="$work:/usr/share/gocode" GOCACHE="$work/cache" GOFLAGS=
go build -o "$work/render" render
cd "$here/.."
"$work/render" charts/berth | node charts/tools/validate.mjs
"$work/render" charts/berth ingress.enabled=true ingress.className=nginx workers.createNamespace=true workers.placement=dedicated workers.storageClassName=fast-ssd \
  metrics.serviceMonitor.enabled=true metrics.podMonitor.scraperNamespace=monitoring backup.enabled=true backup.existingClaim=berth-backups \
  | node charts/tools/validate.mjs
# The agents' PodMonitor comes with the ServiceMonitor once Prometheus's namespace is named (the
# agents' NetworkPolicy admits only it), and can be left out on its own.
# (Rendered into a variable first: `render | grep -q` under pipefail fails when grep stops reading
# before the render has written everything.)
with_monitor="$("$work/render" charts/berth metrics.serviceMonitor.enabled=true metrics.podMonitor.scraperNamespace=monitoring)"
grep -q '^kind: PodMonitor' <<< "$with_monitor" \
  || { echo "chart: no PodMonitor with metrics.serviceMonitor.enabled and a scraper namespace" >&2; exit 1; }
unreachable="$("$work/render" charts/berth metrics.serviceMonitor.enabled=true)"
if grep -q '^kind: PodMonitor' <<< "$unreachable"; then
  echo "chart: a PodMonitor whose scrapes the agents' NetworkPolicy refuses (no scraperNamespace)" >&2; exit 1
fi
grep -q 'key: AGENT_METRICS_TOKEN' <<< "$("$work/render" charts/berth metrics.serviceMonitor.enabled=true metrics.podMonitor.scraperNamespace=monitoring metrics.podMonitor.tokenKey=AGENT_METRICS_TOKEN)" \
  || { echo "chart: metrics.podMonitor.tokenKey does not name the PodMonitor's token key" >&2; exit 1; }
without_pod_monitor="$("$work/render" charts/berth metrics.serviceMonitor.enabled=true metrics.podMonitor.enabled=false metrics.podMonitor.scraperNamespace=monitoring)"
if grep -q '^kind: PodMonitor' <<< "$without_pod_monitor"; then
  echo "chart: metrics.podMonitor.enabled=false still renders a PodMonitor" >&2; exit 1
fi
# The agents' NetworkPolicy lets Prometheus's namespace in only when the operator names it.
scraper="$("$work/render" charts/berth metrics.serviceMonitor.enabled=true metrics.podMonitor.scraperNamespace=monitoring)"
grep -A1 'name: KUBERNETES_METRICS_NAMESPACE' <<< "$scraper" | grep -q '"monitoring"' \
  || { echo "chart: metrics.podMonitor.scraperNamespace does not reach the control plane" >&2; exit 1; }
echo "chart: the agents' PodMonitor follows metrics.serviceMonitor.enabled"
# The backup CronJob without a lasting volume is refused at render time.
if "$work/render" charts/berth backup.enabled=true > /dev/null 2>&1; then
  echo "chart: backup.enabled without a volume rendered" >&2; exit 1
fi
"$work/render" charts/berth backup.enabled=true 'backup.volume.nfs.server=nfs.example' 'backup.volume.nfs.path=/berth' \
  | node charts/tools/validate.mjs | grep -q CronJob || { echo "chart: no CronJob with backup.volume" >&2; exit 1; }
echo "chart: the backup CronJob needs a volume"
# Behind the chart's Ingress the per-address sign-in limits need the clients' addresses (issue 28).
grep -q 'name: TRUST_PROXY' <<< "$("$work/render" charts/berth ingress.enabled=true)" \
  || { echo "chart: the Ingress is on but TRUST_PROXY is not set" >&2; exit 1; }
echo "chart: TRUST_PROXY set with the Ingress"
# Keeping no backup would delete the one just made: refused at render time.
if "$work/render" charts/berth backup.enabled=true backup.existingClaim=berth-backups backup.keep=0 > /dev/null 2>&1; then
  echo "chart: backup.keep=0 rendered" >&2; exit 1
fi
# The CronJob's retention loop, run as the pod would (with a stand-in for the backup itself).
"$work/render" charts/berth backup.enabled=true backup.existingClaim=berth-backups backup.keep=3 \
  | node charts/tools/backup-retention.mjs
