#!/usr/bin/env bash
# The release build is reproducible: the same sources built in another folder give the same
# dist/, byte for byte, and no module or script in it names a folder of the machine that built
# it (the checkout, the cargo home, the target folder, the home folder).
#
#   scripts/repro.sh SCRATCH   after scripts/build-web.sh; builds a copy of the checkout in SCRATCH
#
# The copy shares the target folder, so only the workspace's crates and the link are built
# again; the registry's crates are named by the same remapped prefix in both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: scripts/repro.sh SCRATCH" >&2; exit 2; }
fail() { printf 'repro: %s\n' "$*" >&2; exit 1; }
[ -f dist/index.html ] || fail "no dist/: run scripts/build-web.sh first"

target_dir=$(cargo metadata --format-version 1 --no-deps | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).target_directory)')
other="$1/another/folder/lab"
mkdir -p "$other"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] || continue
  mkdir -p "$other/$(dirname "$f")"
  cp -p "$f" "$other/$f"
done
ln -s "$PWD/e2e/node_modules" "$other/e2e/node_modules"
(cd "$other" && CARGO_TARGET_DIR="$target_dir" bash scripts/build-web.sh)

diff -r dist "$other/dist" >/dev/null || {
  diff -rq dist "$other/dist" >&2 || true
  fail "a build of the same sources in $other differs from dist/"
}
n=$(find dist -type f | wc -l)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for path in "$PWD" "$other" "$cargo_home" "$target_dir" "$HOME/"; do
  hits=$(grep -rlF "$path" dist || true)
  [ -z "$hits" ] || fail "the build names $path in: $hits"
done
echo "repro: the $n files of dist/ are byte for byte the same from $other; none names a build folder"
