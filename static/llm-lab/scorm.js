/*! The lab's classroom package for learning management systems: one exercise as a SCORM 1.2
 * content package (a zip: imsmanifest.xml, an adapter page, and the lab itself under lab/).
 * Loaded by the teacher view when asked for; `window.llmLabScorm.download({ lab, exercise, title })`
 * fetches the lab's files (listed in files.json beside this script), writes the zip and saves it.
 *
 * In the LMS the adapter (index.html) finds the SCORM 1.2 API, opens the lab at the teacher's
 * state, and on the lab's `exercise-result` message for that exercise sets
 *   cmi.core.score.raw   100 × the goals met ÷ the goals (min 0, max 100)
 *   cmi.core.lesson_status  "passed" when every goal is met, else "failed"
 * then commits; it finishes the session when the page goes away. (MIT OR Apache-2.0)
 */
(() => {
  if (typeof window === 'undefined' || window.llmLabScorm) return;
  const here = new URL('./', (document.currentScript && document.currentScript.src) || location.href).href;

  const CRC_TABLE = (() => {
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      t[n] = c >>> 0;
    }
    return t;
  })();

  function crc32(bytes) {
    let c = 0xffffffff;
    for (let i = 0; i < bytes.length; i += 1) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  }

  /** A zip of `files` ([{ name, bytes }]), stored (no compression), as a Blob. */
  function zip(files) {
    const enc = new TextEncoder();
    const parts = [];
    const central = [];
    let offset = 0;
    // a fixed time (1 Jan 2026, 00:00) so the same lab and exercise give the same file
    const time = 0;
    const date = ((2026 - 1980) << 9) | (1 << 5) | 1;
    for (const f of files) {
      const name = enc.encode(f.name);
      const crc = crc32(f.bytes);
      const size = f.bytes.length;
      const local = new DataView(new ArrayBuffer(30));
      local.setUint32(0, 0x04034b50, true);
      local.setUint16(4, 20, true);
      local.setUint16(6, 0x0800, true); // names in UTF-8
      local.setUint16(8, 0, true);
      local.setUint16(10, time, true);
      local.setUint16(12, date, true);
      local.setUint32(14, crc, true);
      local.setUint32(18, size, true);
      local.setUint32(22, size, true);
      local.setUint16(26, name.length, true);
      local.setUint16(28, 0, true);
      parts.push(local.buffer, name, f.bytes);
      const entry = new DataView(new ArrayBuffer(46));
      entry.setUint32(0, 0x02014b50, true);
      entry.setUint16(4, 20, true);
      entry.setUint16(6, 20, true);
      entry.setUint16(8, 0x0800, true);
      entry.setUint16(10, 0, true);
      entry.setUint16(12, time, true);
      entry.setUint16(14, date, true);
      entry.setUint32(16, crc, true);
      entry.setUint32(20, size, true);
      entry.setUint32(24, size, true);
      entry.setUint16(28, name.length, true);
      entry.setUint32(42, offset, true);
      central.push(entry.buffer, name);
      offset += 30 + name.length + size;
    }
    const centralSize = central.reduce((n, p) => n + p.byteLength, 0);
    const end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true);
    end.setUint16(8, files.length, true);
    end.setUint16(10, files.length, true);
    end.setUint32(12, centralSize, true);
    end.setUint32(16, offset, true);
    return new Blob([...parts, ...central, end.buffer], { type: 'application/zip' });
  }

  const xml = (s) => String(s).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

  function manifest({ exercise, title }, names) {
    const id = `llm-serving-lab-${exercise}`.replace(/[^A-Za-z0-9_.-]/g, '-');
    return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xml(id)}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="org">
    <organization identifier="org">
      <title>${xml(title)}</title>
      <item identifier="item" identifierref="sco" isvisible="true">
        <title>${xml(title)}</title>
        <adlcp:masteryscore>100</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="sco" type="webcontent" adlcp:scormtype="sco" href="index.html">
${names.map((n) => `      <file href="${xml(n)}"/>`).join('\n')}
    </resource>
  </resources>
</manifest>
`;
  }

  function adapter({ lab, exercise, title }) {
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${xml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>html,body{margin:0;height:100%}body{display:flex;flex-direction:column;font:14px sans-serif}
iframe{flex:1;border:0;width:100%;min-height:600px}#lms{margin:0;padding:4px 8px;color:#555;font-size:12px}</style>
</head><body>
<p id="lms" role="status"></p>
<iframe id="lab" title="LLM Serving Lab" allow="clipboard-write"></iframe>
<script>
(function () {
  var EXERCISE = ${JSON.stringify(exercise)};
  var LAB = ${JSON.stringify(lab)};
  function find(win) {
    for (var i = 0; win && i < 8; i += 1) {
      try { if (win.API) return win.API; } catch (e) { return null; }
      if (win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  var api = find(window.parent !== window ? window.parent : null) || (window.opener && find(window.opener));
  var status = document.getElementById('lms');
  var open = false;
  if (api && String(api.LMSInitialize('')) === 'true') {
    open = true;
    var was = String(api.LMSGetValue('cmi.core.lesson_status'));
    if (was === 'not attempted' || was === '') {
      api.LMSSetValue('cmi.core.lesson_status', 'incomplete');
      api.LMSCommit('');
    }
    status.textContent = 'Your result is sent to your course when the exercise\\'s run ends.';
  } else {
    status.textContent = 'No learning management system found: results stay in this browser.';
  }
  var frame = document.getElementById('lab');
  frame.src = 'lab/index.html?lab=' + encodeURIComponent(LAB) + '&parent=' + encodeURIComponent(location.origin);
  window.addEventListener('message', function (event) {
    var m = event.data;
    if (event.source !== frame.contentWindow || !m || m.source !== 'llm-serving-lab') return;
    if (m.type !== 'exercise-result' || m.id !== EXERCISE || !open) return;
    var goals = m.goals || [];
    var met = goals.filter(function (g) { return g.pass; }).length;
    var score = goals.length ? Math.round((100 * met) / goals.length) : (m.pass ? 100 : 0);
    api.LMSSetValue('cmi.core.score.min', '0');
    api.LMSSetValue('cmi.core.score.max', '100');
    api.LMSSetValue('cmi.core.score.raw', String(score));
    api.LMSSetValue('cmi.core.lesson_status', m.pass ? 'passed' : 'failed');
    api.LMSCommit('');
    status.textContent = (m.pass ? 'Passed' : 'Not passed yet') + ': ' + met + ' of ' + goals.length + ' goals met, sent to your course.';
  });
  function finish() {
    if (!open) return;
    open = false;
    api.LMSFinish('');
  }
  window.addEventListener('pagehide', finish);
  window.addEventListener('beforeunload', finish);
})();
</script>
</body></html>
`;
  }

  /** The package for `exercise` at the share state `lab` (a share code), as a Blob. */
  async function build({ lab, exercise, title }) {
    const list = await (await fetch(new URL('files.json', here))).json();
    const enc = new TextEncoder();
    const files = [];
    for (const name of list) {
      const res = await fetch(new URL(name, here));
      if (!res.ok) throw new Error(`${name}: ${res.status}`);
      files.push({ name: `lab/${name}`, bytes: new Uint8Array(await res.arrayBuffer()) });
    }
    const names = ['index.html', ...files.map((f) => f.name)];
    return zip([
      { name: 'imsmanifest.xml', bytes: enc.encode(manifest({ exercise, title }, names)) },
      { name: 'index.html', bytes: enc.encode(adapter({ lab, exercise, title })) },
      ...files,
    ]);
  }

  async function download(opts) {
    const blob = await build(opts);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `llm-serving-lab-${opts.exercise}-scorm12.zip`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    return blob.size;
  }

  window.llmLabScorm = { build, download, zip, crc32 };
})();
