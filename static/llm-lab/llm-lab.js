/*! <llm-lab>: the LLM Serving Lab in any page (MIT OR Apache-2.0).
 *
 *   <script src="https://HOST/lab/llm-lab.js" defer></script>
 *   <llm-lab preset="continuous-batching" view="stage,metrics" height="500"></llm-lab>
 *
 * Attributes mirror the lab's URL parameters (docs/embed.md): preset, lab (a share code),
 * lesson, exercise, view, controls, locale, autoplay; and
 *   height  the most the frame grows to, px (default 500); "auto": as tall as the lab's content
 *   src     where the lab is (default: the folder this script was loaded from)
 *
 * The frame is made when the element comes near the viewport, sized to the lab's content (its
 * `resize` messages), and the lab's messages (protocol v1: static/llm-lab/protocol.schema.json)
 * are fired on the element as DOM events `llm-lab:<type>` (`llm-lab:ready`, `llm-lab:state`,
 * `llm-lab:lesson-completed`, `llm-lab:exercise-result`, `llm-lab:error`, `llm-lab:resize`; both
 * results also as `llm-lab:result`), the message in `event.detail`. Methods send commands: setState(code), play(), pause(), reset(),
 * setSpeed(x), setLocale(locale); those sent before the lab is ready wait for it.
 * The frame names this page's origin (`parent=`): the lab posts only to it and obeys only it.
 */
(() => {
  if (typeof window === 'undefined' || !window.customElements || customElements.get('llm-lab')) return;

  const SOURCE = 'llm-serving-lab';
  const PROTOCOL = 1;
  const PARAMS = ['preset', 'lab', 'lesson', 'exercise', 'view', 'controls', 'locale', 'autoplay'];
  const DEFAULT_HEIGHT = 500;
  const script = document.currentScript;
  const here = new URL('./', (script && script.src) || location.href).href;

  /** Every element with a frame, by the frame's window (one listener for the page). */
  const byWindow = new Map();
  window.addEventListener('message', (event) => {
    const el = byWindow.get(event.source);
    const m = event.data;
    if (!el || !m || typeof m !== 'object' || m.source !== SOURCE) return;
    if (event.origin !== el._origin) return;
    el._receive(m);
  });

  /** Frames are made when their element comes within a screen of the viewport. */
  const near =
    'IntersectionObserver' in window
      ? new IntersectionObserver(
          (entries) => {
            for (const e of entries) if (e.isIntersecting) e.target._load();
          },
          { rootMargin: '50% 0px' },
        )
      : null;

  class LlmLab extends HTMLElement {
    static get observedAttributes() {
      return [...PARAMS, 'height', 'src'];
    }

    constructor() {
      super();
      this._frame = null;
      this._ready = false;
      this._queue = [];
      this._origin = null;
    }

    connectedCallback() {
      if (!this.style.display) this.style.display = 'block';
      if (!this._frame) this.style.minHeight = `${this._initialHeight()}px`;
      if (near) near.observe(this);
      else this._load();
    }

    disconnectedCallback() {
      // a frame taken out of the page is gone (put back, it would load anew): made again when
      // the element comes near the viewport again
      if (near) near.unobserve(this);
      this._unload();
      this._queue = [];
    }

    attributeChangedCallback(name, before, now) {
      if (!this._frame || before === now) return;
      if (name === 'lab' && now) return this.setState(now);
      if (name === 'locale' && now) return this.setLocale(now);
      if (name === 'height') return this._fit(this._height);
      this._unload();
      this._load();
    }

    /** The lab's address: the lab's page with embed=1, this page's origin and the attributes. */
    get frameSrc() {
      const url = new URL(this.getAttribute('src') || here, location.href);
      const q = url.searchParams;
      q.set('embed', '1');
      for (const p of PARAMS) {
        const v = this.getAttribute(p);
        if (v !== null && v !== '') q.set(p, v);
      }
      if (location.origin && location.origin !== 'null') q.set('parent', location.origin);
      return url.href;
    }

    _cap() {
      const h = (this.getAttribute('height') || '').trim();
      if (h === 'auto') return Infinity;
      const n = Number.parseFloat(h);
      return Number.isFinite(n) && n > 0 ? n : DEFAULT_HEIGHT;
    }

    _initialHeight() {
      const cap = this._cap();
      return Number.isFinite(cap) ? cap : DEFAULT_HEIGHT;
    }

    _load() {
      if (this._frame) return;
      if (near) near.unobserve(this);
      const src = this.frameSrc;
      const frame = document.createElement('iframe');
      frame.title = this.getAttribute('title') || 'LLM Serving Lab';
      frame.allow = 'clipboard-write';
      frame.style.cssText = 'display:block;width:100%;border:0;';
      frame.style.height = `${this._initialHeight()}px`;
      frame.src = src;
      this._origin = new URL(src).origin;
      this._frame = frame;
      this._ready = false;
      this.appendChild(frame);
      byWindow.set(frame.contentWindow, this);
      this.setAttribute('loaded', '');
    }

    _unload() {
      if (!this._frame) return;
      byWindow.delete(this._frame.contentWindow);
      this._frame.remove();
      this._frame = null;
      this._ready = false;
      this.removeAttribute('loaded');
      this.removeAttribute('ready');
    }

    _fit(height) {
      if (!this._frame) return;
      if (Number.isFinite(height) && height > 0) this._height = height;
      if (!this._height) return;
      const h = Math.min(this._height, this._cap());
      this._frame.style.height = `${Math.ceil(h)}px`;
      this.style.minHeight = '';
    }

    _receive(m) {
      if (m.type === 'ready') {
        this._ready = true;
        this.setAttribute('ready', '');
        for (const c of this._queue.splice(0)) this._post(c);
      }
      if (m.type === 'resize') this._fit(Number(m.height));
      const fire = (name) => this.dispatchEvent(new CustomEvent(name, { detail: m, bubbles: true, composed: true }));
      fire(`llm-lab:${m.type}`);
      // either result, under one name too
      if (m.type === 'exercise-result' || m.type === 'lesson-completed') fire('llm-lab:result');
    }

    _post(command) {
      if (!this._frame || !this._frame.contentWindow) return;
      this._frame.contentWindow.postMessage(command, this._origin);
    }

    /** Sends a command (protocol v1); before the lab is ready it waits for it. */
    send(type, fields = {}) {
      const command = { ...fields, protocol: PROTOCOL, type };
      if (this._ready) this._post(command);
      else this._queue.push(command);
    }

    setState(lab) {
      this.send('set-state', { lab: String(lab) });
    }

    play() {
      this.send('play');
    }

    pause() {
      this.send('pause');
    }

    reset() {
      this.send('reset');
    }

    setSpeed(x) {
      this.send('set-speed', { x: Number(x) });
    }

    setLocale(locale) {
      this.send('set-locale', { locale: String(locale) });
    }

    /** The frame, once made. */
    get frame() {
      return this._frame;
    }
  }

  LlmLab.version = '0.1.0';
  LlmLab.protocol = PROTOCOL;
  customElements.define('llm-lab', LlmLab);
})();
