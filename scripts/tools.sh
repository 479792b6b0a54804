# The pinned build tools, read by scripts/setup.sh (installs them) and scripts/build-web.sh
# (refuses others). wasm-opt comes from npm binaryen (e2e/package.json pins it): Debian's
# binaryen 108 builds a wasm that never mounts.
# wasm-bindgen-cli must equal the `wasm-bindgen` crate in app/Cargo.toml.
WASM_BINDGEN_VERSION=0.2.130
# wasm-split-cli: moves each `wasm_split` function into a wasm module of its own (docs/wasm-size.md)
WASM_SPLIT_VERSION=0.2.4
WASM_OPT_VERSION=132
