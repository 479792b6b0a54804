#!/usr/bin/env bash
# Builds the browser app into dist/ with `trunk build --release` and prints the wasm size.
# Extra arguments go to trunk. Tools come from scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# trunk looks tools up on PATH and, being offline, insists on the versions pinned in Trunk.toml:
# wasm-opt is binaryen 132 from npm (Debian's binaryen 108 builds a wasm that never mounts).
export PATH="$PWD/e2e/node_modules/.bin:$HOME/.cargo/bin:$PATH"

fail() { printf 'build-web: %s\n' "$*" >&2; exit 1; }

command -v trunk >/dev/null || fail "trunk not found: run scripts/setup.sh"
command -v wasm-bindgen >/dev/null || fail "wasm-bindgen not found: run scripts/setup.sh"
[ -x e2e/node_modules/.bin/wasm-opt ] || fail "e2e/node_modules/.bin/wasm-opt not found: run scripts/setup.sh (npm ci in e2e/)"
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || fail "the wasm32-unknown-unknown target is missing: run scripts/setup.sh"

want_bindgen=$(sed -n 's/^wasm_bindgen *= *"\(.*\)".*/\1/p' Trunk.toml)
want_opt=$(sed -n 's/^wasm_opt *= *"version_\(.*\)".*/\1/p' Trunk.toml)
have_bindgen=$(wasm-bindgen --version | awk '{print $2}')
have_opt=$(wasm-opt --version | awk '{print $3}')
[ "$have_bindgen" = "$want_bindgen" ] || fail "wasm-bindgen $have_bindgen on PATH, Trunk.toml wants $want_bindgen"
[ "$have_opt" = "$want_opt" ] || fail "wasm-opt $have_opt on PATH, Trunk.toml wants $want_opt"

start=$(date +%s.%N)
trunk build --release "$@"
end=$(date +%s.%N)

shopt -s nullglob
wasm=(dist/*.wasm)
[ "${#wasm[@]}" -eq 1 ] || fail "expected one .wasm in dist/, found ${#wasm[@]}"
raw=$(stat -c %s "${wasm[0]}")
gz=$(gzip -9 -c "${wasm[0]}" | wc -c)
awk -v f="${wasm[0]}" -v r="$raw" -v g="$gz" -v s="$start" -v e="$end" 'BEGIN {
  printf "build-web: %s  raw %d B (%.1f KiB)  gzip -9 %d B (%.1f KiB)  trunk took %.1f s\n", f, r, r / 1024, g, g / 1024, e - s
}'
