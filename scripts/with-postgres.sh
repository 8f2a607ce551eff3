#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL: initdb into a temp dir, listen on a unix socket
# only, export BERTH_TEST_DATABASE_URL, run, then stop and remove everything.
set -euo pipefail

find_bin() {
  for dir in /usr/local/bin /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/$1" ]; then echo "$dir/$1"; return 0; fi
  done
  command -v "$1" || { echo "with-postgres: $1 not found; install PostgreSQL 15 (apt-get install postgresql)" >&2; exit 1; }
}
INITDB=$(find_bin initdb)
PG_CTL=$(find_bin pg_ctl)

dir=$(mktemp -d /tmp/berth-pg.XXXXXX)
port=${BERTH_PG_PORT:-5439}
as_pg=()
if [ "$(id -u)" = 0 ]; then
  # initdb refuses to run as root.
  chown postgres: "$dir"
  as_pg=(runuser -u postgres --)
fi

cleanup() {
  "${as_pg[@]}" "$PG_CTL" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

echo "with-postgres: starting a throwaway PostgreSQL in $dir" >&2
"${as_pg[@]}" "$INITDB" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
"${as_pg[@]}" "$PG_CTL" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses='' -k $dir -p $port -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }

export BERTH_TEST_DATABASE_URL="postgres://postgres@localhost:$port/postgres?host=$dir"
"$@"
