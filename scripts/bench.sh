#!/usr/bin/env bash
# The speed benchmark: the 1,000,000-request Poisson run (sim-core/benches/poisson-1m.json),
# natively and compiled to wasm (run under Node's WASI), with wall time, peak RSS and a check
# that both print the same summary. Then the criterion micro-benchmarks unless --quick.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scenario=sim-core/benches/poisson-1m.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rustup target list --installed | grep -x wasm32-wasip1 >/dev/null || rustup target add wasm32-wasip1
cargo build -q --release -p llmsim
cargo build -q --release -p llmsim --target wasm32-wasip1

cat > "$tmp/wasi.mjs" <<'JS'
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
const [wasmPath, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: ['llmsim', ...args], env: {}, preopens: { '.': process.cwd() } });
const inst = await WebAssembly.instantiate(await WebAssembly.compile(await readFile(wasmPath)), wasi.getImportObject());
const t0 = performance.now();
process.exitCode = wasi.start(inst);
console.error(`wasm_run_ms ${(performance.now() - t0).toFixed(0)}`);
JS

echo "native: llmsim run $scenario"
/usr/bin/time -f 'native_wall_s %e\nnative_peak_rss_kb %M' ./target/release/llmsim run "$scenario" > "$tmp/native.json"
echo "wasm (wasm32-wasip1 under node $(node --version)):"
/usr/bin/time -f 'wasm_process_wall_s %e\nwasm_process_peak_rss_kb %M' \
  node --no-warnings "$tmp/wasi.mjs" target/wasm32-wasip1/release/llmsim.wasm run "$scenario" > "$tmp/wasm.json"
if cmp -s "$tmp/native.json" "$tmp/wasm.json"; then echo "summaries: identical"; else echo "summaries: DIFFER"; diff "$tmp/native.json" "$tmp/wasm.json" | head; exit 1; fi
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("requests %d, simulated %.0f s, %.0f output tok/s" % (s["requests"]["arrived"], s["duration_s"], s["throughput"]["output_tokens_per_s"]))' "$tmp/native.json"
[ "${1:-}" = "--quick" ] || cargo bench -q -p sim-core --bench sim
