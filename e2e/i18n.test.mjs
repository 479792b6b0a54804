// The translation tables: English and Chinese hold the same keys with the same placeholders,
// and every key the app's code asks for exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const table = (name) => JSON.parse(readFileSync(join(root, 'app', 'i18n', name), 'utf8'));
const placeholders = (s) => [...s.matchAll(/\{([a-z0-9_]+)\}/g)].map((m) => m[1]).sort();

for (const part of ['ui', 'features', 'lessons']) {
  test(`${part}: en and zh have the same keys and placeholders`, () => {
    const en = table(`${part}.en.json`);
    const zh = table(`${part}.zh.json`);
    assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
    for (const k of Object.keys(en)) {
      assert.ok(en[k].trim().length > 0 && zh[k].trim().length > 0, `empty text for ${k}`);
      assert.deepEqual(placeholders(zh[k]), placeholders(en[k]), `placeholders differ for ${k}`);
    }
  });
}

test('every key the app code uses exists in the English table', () => {
  const en = { ...table('ui.en.json'), ...table('features.en.json'), ...table('lessons.en.json') };
  const src = join(root, 'app', 'src');
  const missing = [];
  let used = 0;
  for (const f of readdirSync(src, { recursive: true })) {
    if (!String(f).endsWith('.rs')) continue;
    const text = readFileSync(join(src, String(f)), 'utf8');
    for (const m of text.matchAll(/\b(?:t|tf|tx|t_untracked)\(\s*"([a-z0-9_.\-]+)"/g)) {
      used += 1;
      if (!(m[1] in en)) missing.push(`${f}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(used > 0 || Object.keys(table('ui.en.json')).length === 0);
});

test('every key-shaped string in the app code exists (labels kept in data tables, not only t("…") calls)', () => {
  const ui = table('ui.en.json');
  const all = { ...ui, ...table('features.en.json'), ...table('lessons.en.json') };
  const spaces = [...new Set(Object.keys(ui).map((k) => k.split('.')[0]))];
  const pattern = new RegExp(`"((?:${spaces.join('|')})\\.[a-z0-9_.\\-]+)"`, 'g');
  const src = join(root, 'app', 'src');
  const missing = [];
  for (const f of readdirSync(src, { recursive: true })) {
    if (!String(f).endsWith('.rs')) continue;
    const text = readFileSync(join(src, String(f)), 'utf8');
    for (const m of text.matchAll(pattern)) if (!(m[1] in all)) missing.push(`${f}: ${m[1]}`);
  }
  assert.deepEqual(missing, []);
});
