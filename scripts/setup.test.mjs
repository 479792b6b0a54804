// scripts/setup.sh decides, tool by tool, what a machine is missing. These tests run its dry run
// (and its refusal to install as a user without sudo) on prepared machines: a PATH of stubs and
// the few real commands the script calls, an empty HOME, and a copy of the repo's scripts, so what
// is installed on the machine running the tests does not matter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS = Object.fromEntries(
  execFileSync('bash', ['-c', 'source scripts/tools.sh; echo $WASM_BINDGEN_VERSION $WASM_SPLIT_VERSION $WASM_OPT_VERSION $TRUNK_VERSION $MDBOOK_VERSION $MKDOCS_VERSION'], { cwd: ROOT })
    .toString().trim().split(' ').map((v, i) => [['bindgen', 'split', 'opt', 'trunk', 'mdbook', 'mkdocs'][i], v]),
);

// What the script itself runs, taken from the machine: coreutils and friends, never a tool it decides on.
const REAL = ['bash', 'sh', 'env', 'dirname', 'sed', 'awk', 'grep', 'head', 'tail', 'find', 'cat', 'id'];

/** The stubs a machine has; each prints what the real tool prints for the checks the script makes. */
const STUB = {
  rustup: (has) => `[ "$1 $2 $3" = "target list --installed" ] && ${has.target ? 'echo wasm32-unknown-unknown; ' : ''}echo x86_64-unknown-linux-gnu; exit 0`,
  cargo: (has) => `[ "$1 $2" = "install --list" ] && { ${has.split ? `echo 'wasm_split_cli_support v${TOOLS.split}:'; echo '    wasm-split-cli'; ` : ''}true; }; exit 0`,
  'wasm-bindgen': () => `echo 'wasm-bindgen ${TOOLS.bindgen}'`,
  trunk: () => `echo 'trunk ${TOOLS.trunk}'`,
  mdbook: () => `echo 'mdbook v${TOOLS.mdbook}'`,
  chromium: () => 'echo Chromium 156.0',
  chromedriver: () => 'echo ChromeDriver 156.0',
  node: (has) => `echo ${has.node}`,
  npm: () => 'echo 10.8.2',
  // `python3 -c 'import ensurepip'` fails where a venv cannot be made (Debian without python3-venv)
  python3: (has) => `[ "$1" = -c ] && exit ${has.venv === false ? 1 : 0}; echo 'Python 3.11.2'`,
  'fc-list': (has) => (has.font ? "echo 'WenQuanYi Micro Hei'" : 'true'),
  'dpkg-query': (has) => `echo '${has.dpkgNode ?? ''}'`,
  id: (has) => `[ "$1" = -u ] && echo ${has.uid}`,
};

/**
 * A prepared machine: `has` names what is on it. Runs setup.sh with `args`; returns
 * { status, lines, stderr }.
 */
function runSetup(has, args = ['--dry-run']) {
  const dir = mkdtempSync(join(tmpdir(), 'lab-setup-'));
  try {
    const bin = join(dir, 'bin');
    const home = join(dir, 'home');
    const repo = join(dir, 'repo');
    const fonts = join(dir, 'fonts');
    const mkdocs = join('docs', 'sites', 'mkdocs');
    for (const d of [bin, home, join(repo, 'scripts'), join(repo, 'e2e'), join(repo, mkdocs), fonts]) mkdirSync(d, { recursive: true });
    for (const f of ['setup.sh', 'tools.sh']) copyFileSync(join(ROOT, 'scripts', f), join(repo, 'scripts', f));
    copyFileSync(join(ROOT, mkdocs, 'requirements.txt'), join(repo, mkdocs, 'requirements.txt'));
    copyFileSync(join(ROOT, 'Trunk.toml'), join(repo, 'Trunk.toml'));
    const stub = (path, body) => {
      writeFileSync(path, `#!/bin/sh\n${body}\n`);
      chmodSync(path, 0o755);
    };
    for (const name of REAL) {
      if (name === 'id' && has.uid !== undefined) continue;
      const real = execFileSync('bash', ['-c', `command -v ${name}`]).toString().trim();
      symlinkSync(real, join(bin, name));
    }
    // rustup, cargo and python3 are on every machine unless a test says otherwise
    const tools = { rustup: true, cargo: true, python3: true, ...has.tools };
    for (const [name, present] of Object.entries(tools)) if (present) stub(join(bin, name), STUB[name](has));
    if (has.uid !== undefined) stub(join(bin, 'id'), STUB.id(has));
    if (has.e2e) {
      mkdirSync(join(repo, 'e2e', 'node_modules', '.bin'), { recursive: true });
      mkdirSync(join(repo, 'e2e', 'node_modules', 'playwright-core'));
      stub(join(repo, 'e2e', 'node_modules', '.bin', 'wasm-opt'), `echo 'wasm-opt version ${has.e2e} (version_${has.e2e})'`);
    }
    if (has.mkdocs) {
      const venv = join(repo, 'docs', 'sites', '.venv', 'bin');
      mkdirSync(venv, { recursive: true });
      stub(join(venv, 'mkdocs'), `echo 'mkdocs, version ${has.mkdocs} from ${venv}/../lib/python3.11/site-packages/mkdocs (Python 3.11)'`);
    }
    const r = spawnSync(join(bin, 'bash'), [join(repo, 'scripts', 'setup.sh'), ...args], {
      env: { PATH: bin, HOME: home, LAB_FONT_DIRS: fonts },
      encoding: 'utf8',
    });
    return { status: r.status, lines: r.stdout.split('\n').filter((l) => l !== ''), stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EVERYTHING = {
  target: true,
  split: true,
  font: true,
  node: 'v20.20.2',
  e2e: TOOLS.opt,
  tools: { 'wasm-bindgen': true, chromium: true, chromedriver: true, node: true, npm: true, 'fc-list': true },
};
const APT = ['apt chromium', 'apt chromium-driver', 'apt fonts-wqy-microhei'];
const CARGO = [`cargo wasm-bindgen-cli ${TOOLS.bindgen}`, `cargo wasm_split_cli_support ${TOOLS.split}`];

test('a machine without python3 (the import-circle check) gets it from apt, and nothing else', () => {
  assert.deepEqual(runSetup({ ...EVERYTHING, tools: { ...EVERYTHING.tools, python3: false } }).lines, ['apt python3']);
});

test('a bare machine (coreutils and Rust) gets every tool, one line each', () => {
  const r = runSetup({});
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, ['rustup target wasm32-unknown-unknown', ...APT, 'apt nodejs', 'apt npm', ...CARGO, 'npm e2e/']);
});

test("nodesource's node with its bundled npm: neither nodejs nor npm from apt", () => {
  const r = runSetup({ node: 'v20.20.2', dpkgNode: '20.20.2-1nodesource1', tools: { node: true, npm: true, 'dpkg-query': true } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, ['rustup target wasm32-unknown-unknown', ...APT, ...CARGO, 'npm e2e/']);
});

test("Debian's node without npm: npm alone", () => {
  const r = runSetup({ node: 'v18.20.4', dpkgNode: '18.20.4+dfsg-1~deb12u1', tools: { node: true, 'dpkg-query': true } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, ['rustup target wasm32-unknown-unknown', ...APT, 'apt npm', ...CARGO, 'npm e2e/']);
});

test('a node older than 18 is replaced by apt; its npm stays', () => {
  const r = runSetup({ node: 'v16.20.2', tools: { node: true, npm: true } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, ['rustup target wasm32-unknown-unknown', ...APT, 'apt nodejs', ...CARGO, 'npm e2e/']);
});

test("nodesource's node whose npm is gone: refused, since Debian's npm conflicts with it", () => {
  const r = runSetup({ node: 'v20.20.2', dpkgNode: '20.20.2-1nodesource1', tools: { node: true, 'dpkg-query': true } });
  assert.notEqual(r.status, 0);
  assert.deepEqual(r.lines, []);
  assert.match(r.stderr, /nodesource.*npm/);
});

test('Chromium and its driver present: no Chromium from apt', () => {
  const r = runSetup({ node: 'v20.20.2', tools: { chromium: true, chromedriver: true, node: true, npm: true } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, ['rustup target wasm32-unknown-unknown', 'apt fonts-wqy-microhei', ...CARGO, 'npm e2e/']);
});

test('Chromium without its driver: the driver alone', () => {
  const r = runSetup({ ...EVERYTHING, tools: { ...EVERYTHING.tools, chromedriver: false } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, ['apt chromium-driver']);
});

test('a CJK font that fontconfig knows counts, and so does one in the font folders', () => {
  assert.deepEqual(runSetup({ ...EVERYTHING, font: false }).lines, ['apt fonts-wqy-microhei']);
  assert.deepEqual(runSetup({ ...EVERYTHING, tools: { ...EVERYTHING.tools, 'fc-list': false } }).lines, ['apt fonts-wqy-microhei']);
});

test('everything present: the plan is empty', () => {
  const r = runSetup(EVERYTHING);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines, []);
});

test('another wasm-opt in e2e/ or another wasm-bindgen is reinstalled at the pinned version', () => {
  assert.deepEqual(runSetup({ ...EVERYTHING, e2e: '108' }).lines, ['npm e2e/']);
  assert.deepEqual(runSetup({ ...EVERYTHING, split: false }).lines, [`cargo wasm_split_cli_support ${TOOLS.split}`]);
});

test('--dev adds trunk, and only when the pinned trunk is missing', () => {
  assert.deepEqual(runSetup(EVERYTHING, ['--dry-run', '--dev']).lines, [`cargo trunk ${TOOLS.trunk}`]);
  assert.deepEqual(runSetup({ ...EVERYTHING, tools: { ...EVERYTHING.tools, trunk: true } }, ['--dry-run', '--dev']).lines, []);
});

const DOCS = [`cargo mdbook ${TOOLS.mdbook}`, `pip docs/sites/.venv mkdocs ${TOOLS.mkdocs}`];

test('--test adds mdBook and MkDocs (the docs sites), each only when its pinned version is missing', () => {
  assert.deepEqual(runSetup(EVERYTHING).lines, [], 'not without --test');
  assert.deepEqual(runSetup(EVERYTHING, ['--dry-run', '--test']).lines, DOCS);
  const both = { ...EVERYTHING, mkdocs: TOOLS.mkdocs, tools: { ...EVERYTHING.tools, mdbook: true } };
  assert.deepEqual(runSetup(both, ['--dry-run', '--test']).lines, []);
  assert.deepEqual(runSetup({ ...both, mkdocs: '1.5.3' }, ['--dry-run', '--test']).lines, [DOCS[1]]);
});

test("--test on a python3 that cannot make a venv (Debian's without python3-venv): python3-venv from apt first", () => {
  assert.deepEqual(runSetup({ ...EVERYTHING, venv: false }, ['--dry-run', '--test']).lines, ['apt python3-venv', ...DOCS]);
  const none = { ...EVERYTHING, tools: { ...EVERYTHING.tools, python3: false } };
  assert.deepEqual(runSetup(none, ['--dry-run', '--test']).lines, ['apt python3', 'apt python3-venv', ...DOCS]);
  assert.deepEqual(runSetup({ ...EVERYTHING, venv: false, mkdocs: TOOLS.mkdocs }, ['--dry-run', '--test']).lines, [DOCS[0]]);
});

test('not root and no sudo: the exact apt command to run, exit non-zero, nothing installed', () => {
  const r = runSetup({ ...EVERYTHING, uid: 1000, tools: { ...EVERYTHING.tools, chromium: false, chromedriver: false } }, []);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /apt-get update && apt-get install -y chromium chromium-driver\n/);
});

test('an unknown argument is refused with the ones it takes', () => {
  const r = runSetup(EVERYTHING, ['--dryrun']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown argument '--dryrun' \(expected --dry-run, --dev, --test\)/);
});

test('the tools setup installs are the ones the builds ask for', () => {
  const cargo = readFileSync(join(ROOT, 'app', 'Cargo.toml'), 'utf8');
  assert.match(cargo, new RegExp(`^wasm-bindgen = "=${TOOLS.bindgen.replaceAll('.', '\\.')}"$`, 'm'));
  const npm = JSON.parse(readFileSync(join(ROOT, 'e2e', 'package.json'), 'utf8'));
  assert.equal(npm.devDependencies.binaryen, `${TOOLS.opt}.0.0`);
  const lock = JSON.parse(readFileSync(join(ROOT, 'e2e', 'package-lock.json'), 'utf8'));
  assert.equal(lock.packages['node_modules/binaryen'].version, `${TOOLS.opt}.0.0`);
  const locked = readFileSync(join(ROOT, 'Cargo.lock'), 'utf8');
  assert.match(locked, new RegExp(`name = "wasm-bindgen"\nversion = "${TOOLS.bindgen.replaceAll('.', '\\.')}"`));
  assert.ok(TOOLS.bindgen && TOOLS.opt, 'Trunk.toml names wasm_bindgen and wasm_opt');
});
