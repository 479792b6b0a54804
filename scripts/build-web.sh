#!/usr/bin/env bash
# Builds the browser app into dist/ and prints the size of what the page loads.
#
#   cargo          the app for wasm32 (profile wasm-release; its link keeps the relocations),
#                  the first-frame module (lab-first: the opening stage, no view framework) and
#                  the capacity planner's worker (plan-worker: the Plan tab starts it, in a Web
#                  Worker of its own; nothing else loads it)
#   wasm-split-cli each `wasm_split` function (the workbench tabs) into a module of its own, fetched
#                  the first time it is called; the main module is what the first frame waits for
#   wasm-bindgen   the JS glue for the main module (keeping the table the split modules share)
#   wasm-opt -Oz   every module
#
# The modules and their loader go into dist/wasm-<hash>/, the first-frame module into
# dist/first-<hash>/, the planner's worker into dist/plan-<hash>/ (its address in index.html's
# <meta name="lab-plan-worker">), named by their content, so a browser never mixes a cached module of one
# build with another build. index.html loads the first-frame module first; once it has drawn
# (or declined: any address but the plain opening) the page's module follows, and on mounting
# takes over the run where the first one got to. scripts/prerender.mjs then writes the page's
# static layout, as the page mounts it, into index.html: the first paint, and the first module's
# canvas. index.html's style sheets become
# one dist/lab-<hash>.css; app/i18n/ is copied to dist/i18n/ (the page fetches its language).
# index.html is trunk's page (Trunk.toml, the development build): this script rewrites its links,
# and copies the files it names with trunk's copy-file (the link preview's image, the <llm-lab> element and its protocol's schema) beside it.
#
#   LAB_PUBLIC_URL=https://example.org/lab/ scripts/build-web.sh
#                  the address dist/ will be served from: the link preview's tags (og:image,
#                  twitter:image) then name the image there, and og:url the page, as Open Graph
#                  asks (absolute addresses). Without it they are relative, and the build is the
#                  same wherever it is made.
# Tools come from scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/e2e/node_modules/.bin:$HOME/.cargo/bin:$PATH"
source scripts/tools.sh

fail() { printf 'build-web: %s\n' "$*" >&2; exit 1; }

[ $# -eq 0 ] || fail "takes no arguments"
public=${LAB_PUBLIC_URL:-}
if [ -n "$public" ]; then
  case "$public" in
    http://?*|https://?*) ;;
    *) fail "LAB_PUBLIC_URL must be an absolute address starting with https:// or http://, got '$public'" ;;
  esac
  case "$public" in
    *[\"\'\<\>\&\\\ ]*) fail "LAB_PUBLIC_URL must not hold quotes, <, >, &, backslashes or spaces, got '$public'" ;;
  esac
  case "$public" in */) ;; *) public="$public/" ;; esac
fi

command -v wasm-bindgen >/dev/null || fail "wasm-bindgen not found: run scripts/setup.sh"
command -v wasm-split-cli >/dev/null || fail "wasm-split-cli not found: run scripts/setup.sh"
[ -x e2e/node_modules/.bin/wasm-opt ] || fail "e2e/node_modules/.bin/wasm-opt not found: run scripts/setup.sh (npm ci in e2e/)"
rustup target list --installed 2>/dev/null | grep -x wasm32-unknown-unknown >/dev/null \
  || fail "the wasm32-unknown-unknown target is missing: run scripts/setup.sh"
have_bindgen=$(wasm-bindgen --version | awk '{print $2}')
have_opt=$(wasm-opt --version | awk '{print $3}')
[ "$have_bindgen" = "$WASM_BINDGEN_VERSION" ] || fail "wasm-bindgen $have_bindgen on PATH, scripts/tools.sh pins $WASM_BINDGEN_VERSION"
[ "$have_opt" = "$WASM_OPT_VERSION" ] || fail "wasm-opt $have_opt on PATH, scripts/tools.sh pins $WASM_OPT_VERSION"
cargo install --list | grep -x "wasm_split_cli_support v$WASM_SPLIT_VERSION:" >/dev/null \
  || fail "wasm-split-cli is not $WASM_SPLIT_VERSION: run scripts/setup.sh"

start=$(date +%s.%N)
# The release's flags beside .cargo/config.toml's (cargo joins the two lists): the registry's
# sources under one name, so no build machine's path is
# in the wasm (workspace sources are named relative to it already) and two builds of a commit are
# byte for byte the same wherever they run.
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
cargo rustc --locked -p app --bin app --features split --target wasm32-unknown-unknown --profile wasm-release \
  --config "target.wasm32-unknown-unknown.rustflags = [\"--remap-path-prefix=$registry=/registry\"]" \
  -- -Clink-arg=--emit-relocs
# the same flags as the page's build, but for its link (other flags would build every crate again)
cargo build --locked -p lab-first --bin first --target wasm32-unknown-unknown --profile wasm-release \
  --config "target.wasm32-unknown-unknown.rustflags = [\"--remap-path-prefix=$registry=/registry\"]"
cargo build --locked -p plan-worker --bin plan-worker --target wasm32-unknown-unknown --profile wasm-release \
  --config "target.wasm32-unknown-unknown.rustflags = [\"--remap-path-prefix=$registry=/registry\"]"
target_dir=$(cargo metadata --format-version 1 --no-deps | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).target_directory)')
input="$target_dir/wasm32-unknown-unknown/wasm-release/app.wasm"
first_input="$target_dir/wasm32-unknown-unknown/wasm-release/first.wasm"
plan_input="$target_dir/wasm32-unknown-unknown/wasm-release/plan-worker.wasm"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wasm-split-cli --target web --out-name app "$input" "$work/split"
wasm-bindgen --target web --keep-lld-exports --no-typescript --out-name app --out-dir "$work/bindgen" "$work/split/app.wasm"

mods="$work/mods"
mkdir "$mods"
cp "$work/bindgen/app.js" "$work/split/__wasm_split.js" "$mods/"
# The loader compiles each module as it streams in, which browsers allow only when the server
# sends `application/wasm`; behind a server that sends another type (older ones do), the tabs
# would never load. The main module's glue (wasm-bindgen) already falls back; so does the loader.
loader="$mods/__wasm_split.js"
n=$(grep -c 'WebAssembly.instantiateStreaming(src, imports)' "$loader" || true)
[ "$n" -gt 0 ] || fail "__wasm_split.js no longer calls WebAssembly.instantiateStreaming(src, imports): check the fallback below"
sed -i 's/WebAssembly\.instantiateStreaming(src, imports)/instantiateAnyType(src, imports)/' "$loader"
cat >> "$loader" <<'JS'
async function instantiateAnyType(src, imports) {
    const response = await src;
    const type = (response.headers.get("content-type") || "").split(";")[0].trim();
    if (!response.ok || type === "application/wasm") return WebAssembly.instantiateStreaming(response, imports);
    return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}
JS
for wasm in "$work/bindgen/app_bg.wasm" "$work/split"/chunk_*.wasm "$work/split"/split_*.wasm; do
  [ -e "$wasm" ] || continue
  # the split modules keep a names subsection binaryen does not know (and drops): not worth a line
  wasm-opt -Oz "$wasm" -o "$mods/$(basename "$wasm")" 2>&1 | { grep -v 'unknown name subsection' || true; } >&2
done

hash=$(cd "$mods" && cat $(ls | sort) | sha256sum | cut -c1-16)

first="$work/first"
wasm-bindgen --target web --no-typescript --out-name first --out-dir "$work/first-bindgen" "$first_input"
mkdir "$first"
cp "$work/first-bindgen/first.js" "$first/"
wasm-opt -Oz "$work/first-bindgen/first_bg.wasm" -o "$first/first_bg.wasm"
first_hash=$(cd "$first" && cat $(ls | sort) | sha256sum | cut -c1-16)

# The planner's worker: a classic worker script (worker.js) that loads wasm-bindgen's no-modules
# glue and the module; `new Worker(url)` needs no module-worker support and no special headers.
plan="$work/plan"
wasm-bindgen --target no-modules --no-typescript --out-name plan_worker --out-dir "$work/plan-bindgen" "$plan_input"
mkdir "$plan"
cp "$work/plan-bindgen/plan_worker.js" "$plan/"
wasm-opt -Oz "$work/plan-bindgen/plan_worker_bg.wasm" -o "$plan/plan_worker_bg.wasm"
cat > "$plan/worker.js" <<'JS'
importScripts("./plan_worker.js");
wasm_bindgen({ module_or_path: "./plan_worker_bg.wasm" });
JS
plan_hash=$(cd "$plan" && cat $(ls | sort) | sha256sum | cut -c1-16)

rm -rf dist
mkdir -p dist
mv "$mods" "dist/wasm-$hash"
mv "$first" "dist/first-$first_hash"
mv "$plan" "dist/plan-$plan_hash"
cp -r app/i18n dist/i18n
# what index.html names with trunk's copy-file (the link preview's image static/preview.png, and the docs component <llm-lab> with its protocol's schema, beside the page it frames)
for f in $(sed -n 's|.*<link data-trunk rel="copy-file" href="\([^"]*\)">.*|\1|p' index.html); do
  cp "$f" dist/
done

# index.html is written for trunk (the development build): its data-trunk style sheets become one
# file here, its copy-dir and copy-files are the copies above, its rust link becomes the module's preloads and loader.
sheets=$(sed -n 's|.*<link data-trunk rel="css" href="\(static/[^"]*\.css\)">.*|\1|p' index.html)
[ -n "$sheets" ] || fail "index.html links no static/*.css with data-trunk"
grep -q '<link data-trunk rel="rust"' index.html || fail "index.html has no <link data-trunk rel=\"rust\">"
cat $sheets > "$work/lab.css"
css="lab-$(sha256sum "$work/lab.css" | cut -c1-16).css"
mv "$work/lab.css" "dist/$css"
awk -v css="$css" -v mods="wasm-$hash" -v first="first-$first_hash" -v plan="plan-$plan_hash" -v pub="$public" '
  # link previews: with a public address, the image tags name it and og:url the page
  pub != "" && /<meta (property|name)="(og|twitter):image" content="\.\// { sub(/content="\.\//, "content=\"" pub) }
  pub != "" && /<meta property="og:type"/ { print; print "    <meta property=\"og:url\" content=\"" pub "\">"; next }
  /<link data-trunk rel="css"/ {
    if (!css_done) { print "    <link rel=\"stylesheet\" href=\"./" css "\">"; css_done = 1 }
    next
  }
  /<link data-trunk rel="copy-(dir|file)"/ { next }
  /<link data-trunk rel="rust".*data-type="worker"/ {
    # the address of the planner worker, which the Plan tab reads when it starts a search
    print "    <meta name=\"lab-plan-worker\" content=\"./" plan "/worker.js\">"
    next
  }
  /<link data-trunk rel="rust"/ {
    # the first-frame module first; the page module once it has drawn a frame (its bytes do not
    # compete with those of the first), or at once when it declines
    print "    <link rel=\"modulepreload\" href=\"./" first "/first.js\">"
    print "    <link rel=\"preload\" href=\"./" first "/first_bg.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>"
    print "    <script type=\"module\">"
    print "      import first, * as f from \"./" first "/first.js\";"
    print "      try {"
    print "        await first({ module_or_path: \"./" first "/first_bg.wasm\" });"
    print "        if (f.first_start(location.search)) {"
    print "          window.labFirst = f;"
    print "          await new Promise((drawn) => requestAnimationFrame(() => setTimeout(drawn, 0)));"
    print "        }"
    print "        window.labFetched = Object.fromEntries(f.first_tables(location.search).map((u) => [u, fetch(u)]));"
    print "      } catch (e) {"
    print "        console.warn(\"the first-frame module did not start; the page draws its first frame\", e);"
    print "      }"
    print "      const app = await import(\"./" mods "/app.js\");"
    print "      await app.default({ module_or_path: \"./" mods "/app_bg.wasm\" });"
    print "      window.wasmBindings = app;"
    print "    </script>"
    next
  }
  /<link data-trunk/ { print "build-web: index.html has a data-trunk link this script does not know: " $0 > "/dev/stderr"; exit 1 }
  { print }
' index.html > dist/index.html
grep -q "wasm-$hash/app.js" dist/index.html || fail "dist/index.html does not import wasm-$hash/app.js"
grep -q "plan-$plan_hash/worker.js" dist/index.html || fail "dist/index.html does not name plan-$plan_hash/worker.js"
grep -q "first-$first_hash/first.js" dist/index.html || fail "dist/index.html does not import first-$first_hash/first.js"
if [ -n "$public" ]; then
  grep -qF "<meta property=\"og:url\" content=\"$public\">" dist/index.html || fail "dist/index.html has no og:url for LAB_PUBLIC_URL"
  grep -qF "<meta property=\"og:image\" content=\"$public" dist/index.html || fail "dist/index.html's og:image is not under LAB_PUBLIC_URL"
fi
node scripts/prerender.mjs dist
# the lab's files, for the classroom package (static/llm-lab/scorm.js puts them in its zip)
(cd dist && find . -type f ! -name files.json | sed 's|^\./||' | LC_ALL=C sort) \
  | node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) + "\n")' > dist/files.json
node scripts/precompress.mjs dist
end=$(date +%s.%N)

main="dist/wasm-$hash/app_bg.wasm"
raw=$(stat -c %s "$main")
gz=$(gzip -9 -c "$main" | wc -c)
split_gz=0
n=0
for f in "dist/wasm-$hash"/*.wasm; do
  [ "$f" = "$main" ] && continue
  split_gz=$((split_gz + $(gzip -9 -c "$f" | wc -c)))
  n=$((n + 1))
done
first_wasm="dist/first-$first_hash/first_bg.wasm"
first_raw=$(stat -c %s "$first_wasm")
first_gz=$(gzip -9 -c "$first_wasm" | wc -c)
plan_wasm="dist/plan-$plan_hash/plan_worker_bg.wasm"
plan_raw=$(stat -c %s "$plan_wasm")
plan_gz=$(gzip -9 -c "$plan_wasm" | wc -c)
awk -v f="$main" -v r="$raw" -v g="$gz" -v n="$n" -v sg="$split_gz" -v s="$start" -v e="$end" -v ff="$first_wasm" -v fr="$first_raw" -v fg="$first_gz" -v pf="$plan_wasm" -v pr="$plan_raw" -v pg="$plan_gz" 'BEGIN {
  printf "build-web: %s  raw %d B  gzip -9 %d B (%.1f KiB); %d modules loaded on demand, gzip -9 %d B in all; took %.1f s\n", f, r, g, g / 1024, n, sg, e - s
  printf "build-web: first-frame module %s  raw %d B  gzip -9 %d B (%.1f KiB)\n", ff, fr, fg, fg / 1024
  printf "build-web: planner worker %s  raw %d B  gzip -9 %d B (%.1f KiB), fetched when a plan starts\n", pf, pr, pg, pg / 1024
}'
