#!/usr/bin/env bash
# Installs everything the lab needs on a Debian machine with Rust (rustup).
# Idempotent: each step is skipped when its pinned version is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/tools.sh

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# Chromium for the browser tests; a CJK font so the Chinese UI renders in its screenshots; Node
# for the build's and the tests' scripts and the static server.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || [ ! -d /usr/share/fonts/truetype/wqy ] \
  || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  log "installing chromium, chromium-driver, fonts-wqy-microhei, nodejs and npm (apt)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver fonts-wqy-microhei nodejs npm >/dev/null
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  # not --locked: its lock file names a webpki-roots release the registry mirror lacks
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if ! cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
  log "installing wasm-split-cli $WASM_SPLIT_VERSION (a few minutes, once)"
  cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked
fi

if [ ! -x e2e/node_modules/.bin/wasm-opt ] || [ ! -d e2e/node_modules/playwright-core ]; then
  log "installing npm packages (binaryen wasm-opt, playwright-core)"
  (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
log "tools ready: $(wasm-bindgen --version), wasm-split-cli $WASM_SPLIT_VERSION, wasm-opt $(e2e/node_modules/.bin/wasm-opt --version | awk '{print $3}')"
