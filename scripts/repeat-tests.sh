#!/usr/bin/env bash
# `./dev test --repeat N [--load K] [vitest filters …]`: run the given test files (or the whole suite) N
# times in a row, stopping at the first failure, optionally while K busy loops load the machine — how a
# test that fails one run in twenty is found before CI finds it. The packages are built once first.
# Every busy loop is stopped when this script ends, pass or fail.
set -euo pipefail
runs=$1
shift
load=0
if [ "${1:-}" = "--load" ]; then
  load=$2
  shift 2
fi
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "dev: --repeat needs a number of runs" >&2; exit 2; }
[[ "$load" =~ ^[0-9]+$ ]] || { echo "dev: --load needs a number of busy loops" >&2; exit 2; }

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq 1 "$load"); do
  node -e 'for (;;);' &
  pids+=($!)
done

pnpm run --silent build >/dev/null
logs=$(mktemp -d)
for run in $(seq 1 "$runs"); do
  if pnpm exec vitest run "$@" >"$logs/run-$run.log" 2>&1; then
    printf 'dev: run %d of %d passed\n' "$run" "$runs" >&2
  else
    printf 'dev: run %d of %d failed (output: %s)\n' "$run" "$runs" "$logs/run-$run.log" >&2
    sed 's/\x1b\[[0-9;]*m//g' "$logs/run-$run.log" | grep -E '^ (FAIL|×)|^ +(Tests|Test Files)' >&2 || true
    exit 1
  fi
done
printf 'dev: %d runs passed\n' "$runs" >&2
