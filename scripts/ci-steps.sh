# Sourced by .ci/run: its steps, in the foreground or beside the others, and the table of their times.
# A failed run still reports every step started beside the others: the run waits for each, prints its
# log and its time, then exits with the first failure's code. Before, a failed test step ended the
# run at once; the lint, the production install and the images went on building with nobody
# reading their output, and whether they had passed was known only from the next run.
logs="$(mktemp -d /tmp/berth-ci.XXXXXX)"
run_started=$(date +%s)
timings=()
declare -A bg_pid
bg_order=()

slug() { echo "$1" | tr -c 'a-zA-Z0-9\n' '-'; }

# record SECONDS LABEL RC: the step's line in the table, a failure's marked.
record() {
  if [ "$3" = 0 ]; then
    timings+=("$(printf '%5d s  %s' "$1" "$2")")
  else
    timings+=("$(printf '%5d s  %s: FAILED (exit %d)' "$1" "$2" "$3")")
  fi
}

# step NAME CMD…: runs in the foreground and records its time, a failure's too. CMD is a program, not
# a shell function: run as `CMD || rc=$?`, a function would run without `set -e`.
step() {
  local name="$1" t0 rc=0
  shift
  echo "== $name"
  t0=$(date +%s)
  "$@" || rc=$?
  record $(($(date +%s) - t0)) "$name" "$rc"
  return "$rc"
}

# background NAME CMD…: starts a step beside the others, its output in a log of its own.
background() {
  local name="$1" s
  shift
  s="$(slug "$name")"
  echo "== $name (started beside the others)"
  (
    t0=$(date +%s)
    set +e
    "$@" > "$logs/$s.log" 2>&1
    rc=$?
    echo $(($(date +%s) - t0)) > "$logs/$s.seconds"
    exit $rc
  ) &
  bg_pid[$name]=$!
  bg_order+=("$name")
}

# report NAME: waits for a step started beside the others, prints its log, records its time;
# returns its exit code.
report() {
  local name="$1" s rc=0
  s="$(slug "$name")"
  wait "${bg_pid[$name]}" || rc=$?
  unset 'bg_pid[$name]'
  echo "== $name"
  cat "$logs/$s.log"
  record "$(cat "$logs/$s.seconds" 2> /dev/null || echo 0)" "$name (beside the others)" "$rc"
  [ "$rc" = 0 ] || echo "CI: step '$name' failed (exit $rc)" >&2
  return "$rc"
}

# finish NAME: as report, and the run stops if the step failed (after reporting the others).
finish() {
  local rc=0
  report "$1" || rc=$?
  [ "$rc" = 0 ] || exit "$rc"
}

# At the end of every run, a failed one too: the steps still beside the others (on Ctrl-C they have
# stopped with the run, so this takes no time), then the table (a step that failed says so in it).
ci_exit() {
  local rc=$? name
  trap - EXIT
  set +e
  for name in "${bg_order[@]}"; do
    [ -n "${bg_pid[$name]:-}" ] && report "$name"
  done
  echo
  echo "== time per step"
  printf '%s\n' "${timings[@]}"
  printf '%5d s  the whole run\n' $(($(date +%s) - run_started))
  rm -rf "$logs" # each log has been printed
  exit "$rc"
}
trap ci_exit EXIT
