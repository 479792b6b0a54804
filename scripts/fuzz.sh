#!/usr/bin/env bash
# The fuzzer on demand: scripts/fuzz.sh [N] [labfuzz options...]
# Runs the regression inputs, then N (default 100000) inputs mutated from the presets, the
# docs/scenario.md examples, share links and the built-in traces, each run to its end; prints
# runs, accepted/rejected counts, distinct messages and findings, and exits 1 on any finding.
# Release build; CHECKS=1 builds with overflow checks and debug assertions instead (the test
# profile, slower). Reproduce one input with `labfuzz --seed S --input I` or `--replay FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-100000}"
shift || true
if [[ "${CHECKS:-0}" == 1 ]]; then
  cargo build --quiet --locked --profile test -p lab-fuzz --bin labfuzz
  exec target/debug/labfuzz --runs "$runs" "$@"
fi
cargo build --quiet --locked --release -p lab-fuzz --bin labfuzz
exec target/release/labfuzz --runs "$runs" "$@"
