// Link previews: a shared link to the lab shows a card with its title, a description and a picture
// of the stage, not a blank card. The built dist/index.html carries Open Graph and Twitter card tags
// with the right values, dist/preview.png is a 1200 × 630 PNG under 150 KB, and loading the page
// does not fetch it (only link scrapers do). A build made with LAB_PUBLIC_URL names the image and
// the page by absolute address (og:url); this one, made without it, names the image relatively.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DIST, assertBuilt, collectErrors, tid, useLab } from './lib.mjs';

/** The <meta> tags of `html`'s head as { 'og:title': content, description: content, … }. */
function metaTags(html) {
  const head = html.slice(0, html.indexOf('</head>'));
  const tags = {};
  for (const [tag] of head.matchAll(/<meta\s[^>]*>/g)) {
    const key = tag.match(/\s(?:property|name)="([^"]+)"/)?.[1];
    const content = tag.match(/\scontent="([^"]*)"/)?.[1];
    if (key === undefined || content === undefined) continue;
    assert.ok(!(key in tags), `<meta> ${key} appears twice`);
    tags[key] = content.replaceAll('&amp;', '&').replaceAll('&quot;', '"');
  }
  return { tags, title: head.match(/<title>([^<]*)<\/title>/)?.[1] };
}

/** Width and height of a PNG from its IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('link previews', { timeout: 120_000 }, () => {
  const lab = useLab();

  test('dist/index.html has the Open Graph and Twitter card tags, and the image they name', () => {
    assertBuilt();
    const { tags, title } = metaTags(readFileSync(join(DIST, 'index.html'), 'utf8'));
    assert.equal(title, 'LLM Serving Lab');
    assert.equal(tags['og:title'], title);
    assert.equal(tags['twitter:title'], title);
    assert.equal(tags['og:site_name'], title);
    assert.equal(tags['og:type'], 'website');
    assert.equal(tags['twitter:card'], 'summary_large_image');
    const description = tags.description;
    assert.ok(description && description.length >= 80 && description.length <= 200, `description of ${description?.length} characters: ${description}`);
    for (const word of ['TTFT', 'prefill', 'decode', 'Chinese']) assert.ok(description.includes(word), `the description names ${word}: ${description}`);
    assert.equal(tags['og:description'], description);
    assert.equal(tags['twitter:description'], description);
    assert.equal(tags['og:locale'], 'en_US');
    assert.equal(tags['og:locale:alternate'], 'zh_CN');

    // the image: absolute under og:url when the build was given LAB_PUBLIC_URL, else beside the page
    const image = tags['og:image'];
    if (tags['og:url']) {
      assert.match(tags['og:url'], /^https?:\/\/[^/]+\/(.*\/)?$/, `og:url ${tags['og:url']}`);
      assert.equal(image, `${tags['og:url']}preview.png`);
    } else {
      assert.equal(image, './preview.png');
    }
    assert.equal(tags['twitter:image'], image);
    assert.equal(tags['og:image:type'], 'image/png');
    assert.equal(tags['og:image:width'], '1200');
    assert.equal(tags['og:image:height'], '630');
    assert.ok(tags['og:image:alt']?.includes('stage'), `og:image:alt: ${tags['og:image:alt']}`);
    assert.equal(tags['twitter:image:alt'], tags['og:image:alt']);

    const file = join(DIST, 'preview.png');
    const bytes = readFileSync(file);
    assert.deepEqual(pngSize(bytes), { width: 1200, height: 630 });
    assert.ok(statSync(file).size < 150 * 1024, `preview.png is ${statSync(file).size} B, over 150 KB`);
  });

  test('the page itself never fetches the preview image', async () => {
    const page = await lab.context.newPage();
    const errors = collectErrors(page);
    const fetched = [];
    page.on('request', (req) => fetched.push(new URL(req.url()).pathname));
    await page.goto(lab.url, { waitUntil: 'load' });
    await page.locator(tid('stage')).first().waitFor();
    await page.waitForLoadState('networkidle');
    assert.ok(fetched.some((p) => p.endsWith('.wasm')), `the page's requests were seen: ${fetched}`);
    assert.deepEqual(fetched.filter((p) => p.endsWith('preview.png')), []);
    // and it is served, as a scraper would ask for it
    const res = await page.request.get(lab.href('preview.png'));
    assert.equal(res.status(), 200);
    assert.equal(res.headers()['content-type'], 'image/png');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
