# The pinned build tools, read by scripts/setup.sh (installs them) and scripts/build-web.sh
# (refuses others). wasm-bindgen's and wasm-opt's versions are Trunk.toml's `[tools]` (trunk
# reads them there), so the development and the release builds run the same tools; the
# `wasm-bindgen` crate in app/Cargo.toml and binaryen in e2e/package.json must equal them
# (scripts/setup.test.mjs checks). wasm-opt comes from npm's binaryen: Debian's binaryen 108 builds
# a wasm that never mounts.
_lab_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_lab_tool() { sed -n "s/^$1 *= *\"\\(.*\\)\"/\\1/p" "$_lab_root/Trunk.toml"; }
WASM_BINDGEN_VERSION=$(_lab_tool wasm_bindgen)
WASM_OPT_VERSION=$(_lab_tool wasm_opt | sed 's/^version_//')
# wasm-split-cli: moves each `wasm_split` function into a wasm module of its own (docs/wasm-size.md)
WASM_SPLIT_VERSION=0.2.4
# trunk, for `./lab dev` only. 0.22 needs a newer rustc than 1.95.
TRUNK_VERSION=0.21.14
# mdBook and MkDocs, for scripts/docs-sites.sh (the <llm-lab> element in real docs sites); setup.sh
# --test installs them. MkDocs and its dependencies are pinned in docs/sites/mkdocs/requirements.txt.
MDBOOK_VERSION=0.5.4
MKDOCS_VERSION=$(sed -n 's/^mkdocs==//p' "$_lab_root/docs/sites/mkdocs/requirements.txt")
