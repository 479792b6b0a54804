#!/usr/bin/env bash
# Installs what the lab needs on a Debian machine with Rust (rustup), and only what is missing:
# one decision per tool, each made from what is on PATH (and for the font, what fontconfig or the
# font folders hold), never a package that conflicts with what is there (nodesource's `nodejs`
# bundles npm, and Debian's `npm` conflicts with it).
#
#   scripts/setup.sh            install what is missing for `./lab serve` and `./lab test`
#   scripts/setup.sh --dev      the same, and trunk for `./lab dev`
#   scripts/setup.sh --test     the same, and mdBook and MkDocs for `./lab test` (scripts/docs-sites.sh
#                               builds a docs site with each): mdbook by cargo, MkDocs by pip into
#                               the venv docs/sites/.venv (pinned in docs/sites/mkdocs/requirements.txt)
#   scripts/setup.sh --dry-run  print one line per thing it would install, change nothing, exit 0
#
# A dry-run line is `<installer> <what>`: `apt chromium`, `rustup target wasm32-unknown-unknown`,
# `cargo wasm-bindgen-cli 0.2.130`, `npm e2e/`, `pip docs/sites/.venv mkdocs 1.6.1`
# (scripts/setup.test.mjs checks the plan).
# LAB_FONT_DIRS (default: the system's font folders) is where a CJK font is looked for when
# fontconfig's fc-list is not there.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/tools.sh

dry=0
dev=0
docs=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry=1 ;;
    --dev) dev=1 ;;
    --test) docs=1 ;;
    *) echo "setup: unknown argument '$arg' (expected --dry-run, --dev, --test)" >&2; exit 2 ;;
  esac
done

log() { [ "$dry" = 1 ] || printf '\033[1m[setup]\033[0m %s\n' "$*"; }
fail() { printf 'setup: %s\n' "$*" >&2; exit 1; }
cargo_home=${CARGO_HOME:-$HOME/.cargo}
export PATH="$cargo_home/bin:$PATH"
has() { command -v "$1" >/dev/null 2>&1; }
# No `grep -q` at the end of a pipe: it stops reading at its first match, and under pipefail the
# writer's SIGPIPE then fails the check.

# ---- decide ---------------------------------------------------------------------------------
apt_pkgs=()     # Debian packages to install, each for a tool that is missing
plan=()         # the dry run's lines, in the order of installing

has cargo || fail "no cargo on PATH: install Rust with rustup (https://rustup.rs) first"
if ! rustup target list --installed 2>/dev/null | grep -x wasm32-unknown-unknown >/dev/null; then
  has rustup || fail "the wasm32-unknown-unknown target is missing and there is no rustup to add it"
  plan+=("rustup target wasm32-unknown-unknown")
fi

has chromium || apt_pkgs+=(chromium)
has chromedriver || apt_pkgs+=(chromium-driver)

cjk_font() {
  if has fc-list; then
    [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]
    return
  fi
  local d
  for d in ${LAB_FONT_DIRS:-/usr/share/fonts /usr/local/share/fonts $HOME/.local/share/fonts}; do
    [ -d "$d" ] || continue
    find "$d" -iname '*wqy*' -o -iname '*cjk*' -o -iname '*droidsansfallback*' 2>/dev/null | grep . >/dev/null && return 0
  done
  return 1
}
cjk_font || apt_pkgs+=(fonts-wqy-microhei)

node_major=""
has node && node_major=$(node --version 2>/dev/null | sed -n 's/^v\([0-9][0-9]*\)\..*/\1/p')
if [ -z "$node_major" ] || [ "$node_major" -lt 18 ]; then
  apt_pkgs+=(nodejs)
fi
if ! has npm; then
  # nodesource's nodejs carries its own npm; Debian's npm package conflicts with it
  if has dpkg-query && dpkg-query -W -f='${Version}' nodejs 2>/dev/null | grep nodesource >/dev/null; then
    fail "node is nodesource's nodejs but npm is not on PATH; reinstall that nodejs (it bundles npm): Debian's npm conflicts with it"
  fi
  apt_pkgs+=(npm)
fi
# the import-circle check of `./lab test` (scripts/import-circles.py)
has python3 || apt_pkgs+=(python3)
# MkDocs goes into a venv of its own; Debian's python3 makes one only with python3-venv (ensurepip)
mkdocs_venv=docs/sites/.venv
mkdocs_missing=0
if [ "$docs" = 1 ]; then
  [ "$("$mkdocs_venv/bin/mkdocs" --version 2>/dev/null | awk '{print $3}')" = "$MKDOCS_VERSION" ] || mkdocs_missing=1
  if [ "$mkdocs_missing" = 1 ] && ! { has python3 && python3 -c 'import ensurepip' >/dev/null 2>&1; }; then
    apt_pkgs+=(python3-venv)
  fi
fi
for p in "${apt_pkgs[@]}"; do plan+=("apt $p"); done

[ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WASM_BINDGEN_VERSION" ] \
  || plan+=("cargo wasm-bindgen-cli $WASM_BINDGEN_VERSION")
cargo install --list 2>/dev/null | grep -x "wasm_split_cli_support v$WASM_SPLIT_VERSION:" >/dev/null \
  || plan+=("cargo wasm_split_cli_support $WASM_SPLIT_VERSION")
if [ "$dev" = 1 ]; then
  [ "$(trunk --version 2>/dev/null | awk '{print $2}')" = "$TRUNK_VERSION" ] || plan+=("cargo trunk $TRUNK_VERSION")
fi
wasm_opt_have=""
[ -x e2e/node_modules/.bin/wasm-opt ] && wasm_opt_have=$(e2e/node_modules/.bin/wasm-opt --version 2>/dev/null | awk '{print $3}')
if [ "$wasm_opt_have" != "$WASM_OPT_VERSION" ] || [ ! -d e2e/node_modules/playwright-core ]; then
  plan+=("npm e2e/")
fi

if [ "$docs" = 1 ]; then
  [ "$(mdbook --version 2>/dev/null | awk '{print $2}')" = "v$MDBOOK_VERSION" ] || plan+=("cargo mdbook $MDBOOK_VERSION")
  [ "$mkdocs_missing" = 0 ] || plan+=("pip $mkdocs_venv mkdocs $MKDOCS_VERSION")
fi

if [ "$dry" = 1 ]; then
  for line in "${plan[@]}"; do printf '%s\n' "$line"; done
  exit 0
fi

# ---- apply ----------------------------------------------------------------------------------
# Runs an install; on failure names what failed and shows the installer's last words.
attempt() {
  local what=$1; shift
  local out
  if ! out=$("$@" 2>&1); then
    printf 'setup: installing %s failed (%s):\n%s\n' "$what" "$*" "$(printf '%s\n' "$out" | tail -n 15)" >&2
    exit 1
  fi
}

for line in "${plan[@]}"; do
  [ "$line" = "rustup target wasm32-unknown-unknown" ] || continue
  log "adding the wasm32-unknown-unknown target"
  attempt "the wasm32-unknown-unknown target" rustup target add wasm32-unknown-unknown
done

if [ "${#apt_pkgs[@]}" -gt 0 ]; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    has sudo || fail "missing: ${apt_pkgs[*]}. Not root and no sudo: run as root
  apt-get update && apt-get install -y ${apt_pkgs[*]}
then run this again."
    sudo=(sudo)
  fi
  log "apt-get update"
  attempt "the package lists" "${sudo[@]}" apt-get update -qq
  for p in "${apt_pkgs[@]}"; do
    log "installing $p (apt)"
    attempt "$p" "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p"
  done
fi

for line in "${plan[@]}"; do
  case "$line" in
    "cargo wasm-bindgen-cli "*)
      log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (cargo, about 7 minutes on 2 cores, once)"
      # not --locked: its lock file names a webpki-roots release the registry mirror lacks
      attempt "wasm-bindgen-cli $WASM_BINDGEN_VERSION" cargo install --quiet wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
      ;;
    "cargo wasm_split_cli_support "*)
      log "installing wasm-split-cli $WASM_SPLIT_VERSION (cargo, about 3 minutes on 2 cores, once)"
      attempt "wasm-split-cli $WASM_SPLIT_VERSION" cargo install --quiet wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked
      ;;
    "cargo trunk "*)
      log "installing trunk $TRUNK_VERSION (cargo, about 11 minutes on 2 cores, once)"
      attempt "trunk $TRUNK_VERSION" cargo install --quiet trunk --version "$TRUNK_VERSION" --locked
      ;;
    "cargo mdbook "*)
      log "installing mdbook $MDBOOK_VERSION (cargo, without its serve, watch and search features, about 3 minutes on 2 cores, once)"
      attempt "mdbook $MDBOOK_VERSION" cargo install --quiet mdbook --version "$MDBOOK_VERSION" --locked --no-default-features
      ;;
    "pip $mkdocs_venv "*)
      log "installing mkdocs $MKDOCS_VERSION (pip, into $mkdocs_venv, about 10 seconds)"
      attempt "the venv $mkdocs_venv" python3 -m venv --clear "$mkdocs_venv"
      attempt "mkdocs $MKDOCS_VERSION" "$mkdocs_venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r docs/sites/mkdocs/requirements.txt
      ;;
    "npm e2e/")
      log "installing the npm packages of e2e/ (binaryen's wasm-opt $WASM_OPT_VERSION, playwright-core)"
      attempt "the npm packages of e2e/" sh -c 'cd e2e && npm ci --no-audit --no-fund --loglevel=error'
      ;;
  esac
done
docs_tools=""
[ "$docs" = 1 ] && docs_tools=", $(mdbook --version), mkdocs $("$mkdocs_venv/bin/mkdocs" --version | awk '{print $3}')"
log "tools ready: $(wasm-bindgen --version), wasm-split-cli $WASM_SPLIT_VERSION, wasm-opt $(e2e/node_modules/.bin/wasm-opt --version | awk '{print $3}')${TRUNK_VERSION:+$([ "$dev" = 1 ] && echo ", $(trunk --version)")}$docs_tools"
