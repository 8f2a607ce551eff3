#!/usr/bin/env bash
# A release as it ships, from a built checkout (`npm ci` or `npm run build` first):
#   bash scripts/release-tree.sh DIR [NODE]
# copies the repository (tracked and new files, plus the packages' dist/, no node_modules) into DIR
# and runs `npm ci --omit=dev` there with NODE (default: the node on PATH), so its native addon
# (better-sqlite3) is compiled for the Node that will run it. The production smoke runs such a tree
# on the machine's Node; scripts/images.sh puts one made with Node 24 into the images.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: release-tree.sh DIR [NODE]}"
node_bin="$(readlink -f "${2:-$(command -v node)}")"
[ -f "$root/packages/server/dist/bundle/main.cjs" ] || { echo "release-tree: no build: run npm run build first" >&2; exit 1; }
mkdir -p "$dir"
(cd "$root" && { git ls-files -z --cached --others --exclude-standard; find packages/*/dist -type f -print0; } \
  | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$dir"
# The tree is a Docker build context of its own: unlike the repository's, it keeps node_modules and dist.
printf '.git\n' > "$dir/.dockerignore"
cd "$dir"
PATH="$(dirname "$node_bin"):$PATH" npm ci --omit=dev --no-audit --no-fund --prefer-offline --loglevel=error \
  --nodedir="$(dirname "$(dirname "$node_bin")")"
