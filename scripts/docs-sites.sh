#!/usr/bin/env bash
# The <llm-lab> element in real docs sites: builds the recipes of docs/sites/ (an mdBook and a
# MkDocs site, each with the element in a page) into a scratch folder with their own tools, then
# opens each in Chromium (e2e/docs-sites.test.mjs): the lab served from dist/ on one port, each site
# on another; the lab loads, its frame takes the lab's height, and a setState() from the page
# changes what the lab shows. scripts/test.sh runs it after the browser tests.
#
#   scripts/docs-sites.sh   after scripts/build-web.sh; mdbook and mkdocs from scripts/setup.sh --test
#
# Fails, naming the missing piece, when dist/, mdbook or the MkDocs venv is not there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/e2e/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
source scripts/tools.sh

fail() { printf 'docs-sites: %s\n' "$*" >&2; exit 1; }

[ -f dist/index.html ] || fail "no dist/: run scripts/build-web.sh first"
[ -f dist/llm-lab.js ] || fail "dist/llm-lab.js is missing: the build ships the <llm-lab> element beside index.html"
have=$(mdbook --version 2>/dev/null | awk '{print $2}' || true)
[ "$have" = "v$MDBOOK_VERSION" ] || fail "mdbook ${have:-not found}, the pin is v$MDBOOK_VERSION: run scripts/setup.sh --test"
mkdocs=docs/sites/.venv/bin/mkdocs
have=$("$mkdocs" --version 2>/dev/null | awk '{print $3}' || true)
[ "$have" = "$MKDOCS_VERSION" ] || fail "$mkdocs ${have:-not found}, the pin is $MKDOCS_VERSION: run scripts/setup.sh --test"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mdbook build docs/sites/mdbook --dest-dir "$scratch/mdbook" 2>&1 | sed 's/^/  mdbook: /'
"$mkdocs" build --quiet --strict -f docs/sites/mkdocs/mkdocs.yml --site-dir "$scratch/mkdocs" 2>&1 | sed 's/^/  mkdocs: /'
[ -f "$scratch/mdbook/chapter.html" ] || fail "mdbook wrote no chapter.html"
[ -f "$scratch/mkdocs/index.html" ] || fail "mkdocs wrote no index.html"
echo "docs-sites: built with mdbook v$MDBOOK_VERSION and mkdocs $MKDOCS_VERSION"

(cd e2e && DOCS_SITES_DIR="$scratch" E2E_SCRATCH="$scratch" TMPDIR="$scratch" node --test --test-concurrency=1 docs-sites.test.mjs)
