#!/usr/bin/env bash
# A release as it ships, from a built checkout (`npm ci` or `npm run build` first):
#   bash scripts/release-tree.sh DIR [NODE]
# copies the repository (tracked and new files, plus the packages' dist/, no node_modules) into DIR
# and runs `npm ci --omit=dev` there with NODE (default: the node on PATH). Its two native addons
# are compiled for the Node that will run it, unless the checkout already compiled them from the
# same lockfile: argon2 is N-API (one build serves every Node), better-sqlite3 is kept per Node
# version (scripts/node-lts.sh), and a copy of that build is what a compile here would make. CI
# makes two trees beside its tests and had compiled both addons four times in its busiest minutes.
# The production smoke runs such a tree on the machine's Node; scripts/images.sh puts one made
# with Node 24 into the images.
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
machine_version="$(node -p process.versions.node)"
export PATH="$(dirname "$node_bin"):$PATH"
nodedir="$(dirname "$(dirname "$node_bin")")"
npm ci --omit=dev --no-audit --no-fund --prefer-offline --loglevel=error --ignore-scripts
version="$("$node_bin" -p process.versions.node)"
# The checkout's build for this Node, if it has one: better-sqlite3's per-version folder, else
# build/Release when the checkout's npm ci ran on this very Node (node-lts.sh may be moving that one
# into its folder right now: the folder is looked at again after it).
built_sqlite() {
  local compiled="$root/node_modules/better-sqlite3/compiled/$version/linux/x64/better_sqlite3.node"
  local release="$root/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
  if [ -f "$compiled" ]; then echo "$compiled"
  elif [ "$machine_version" = "$version" ] && [ -f "$release" ]; then echo "$release"
  elif [ -f "$compiled" ]; then echo "$compiled"
  fi
}
argon="$root/node_modules/argon2/build/Release/argon2.node"
sqlite="$(built_sqlite)"
if [ -f "$argon" ]; then
  install -D -m 0755 "$argon" node_modules/argon2/build/Release/argon2.node
else
  npm rebuild argon2 --nodedir="$nodedir" --loglevel=error
fi
if [ -n "$sqlite" ] && install -D -m 0755 "$sqlite" node_modules/better-sqlite3/build/Release/better_sqlite3.node; then
  :
else
  npm rebuild better-sqlite3 --build-from-source --nodedir="$nodedir" --loglevel=error
fi
# Either way, the addons must load on the Node that will run the tree.
"$node_bin" -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get(); require('argon2')" \
  || { echo "release-tree: the native addons do not load on Node $version" >&2; exit 1; }
