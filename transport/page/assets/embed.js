// embed.js: slotd's loader, for a business's own web site (decisions §7).
//
//   <script src="https://slotd.example/embed.js" async></script>
//   <div data-slotd-booking data-key="pk_live_…" data-business="…"></div>
//
// puts the booking page in an iframe that grows with its content; or
// Slotd.open({key, business, …}) shows it in a modal dialog. The page's
// events reach the host page twice: as the postMessage the iframe sends
// ({type: "slotd:<name>", version: 1, …}) and as a DOM CustomEvent of the
// same name on the container element, which bubbles. No event carries the
// customer's personal data.
//
// Options (data-* attributes or Slotd.open's object): key, business,
// service, staff, locale ("en", "nl"), the prefill firstName, lastName,
// email, phone, and utm ({utm_source, …}; by default the host page's own
// utm_* parameters), recorded on the booking as metadata; and the page's
// colours primaryColor, textColor and backgroundColor (hex, "#0b5cad";
// backgroundColor may be "transparent"), as data-primary-color and so on.
//
// A frame that does not say it is ready within readyWait gets a
// console.warn: the usual cause is a key whose allowedOrigins do not list
// this page's origin, which the browser reports only as a CSP error.
(function () {
  'use strict';
  if (window.Slotd && window.Slotd.version) return; // loaded twice

  const script = document.currentScript || document.querySelector('script[src$="/embed.js"]');
  const base = new URL(script ? script.src : '/embed.js', location.href).origin;
  const UTM = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];
  const PREFILL = ['firstName', 'lastName', 'email', 'phone'];
  const COLOURS = ['primaryColor', 'textColor', 'backgroundColor'];
  const readyWait = 8000;
  const frames = new Map(); // iframe window → {iframe, container}

  function pageURL(o) {
    if (!o.key || !o.business) throw new Error('Slotd: key and business are required');
    const q = new URLSearchParams({ key: o.key, embed: '1', parentOrigin: location.origin });
    for (const k of ['service', 'staff', 'locale']) if (o[k]) q.set(k, o[k]);
    const prefill = o.prefill || {};
    for (const k of PREFILL) if (prefill[k] || o[k]) q.set(k, prefill[k] || o[k]);
    const utm = o.utm || Object.fromEntries(new URLSearchParams(location.search));
    for (const k of UTM) if (utm[k]) q.set(k, utm[k]);
    for (const k of COLOURS) {
      if (!o[k]) continue;
      if (/^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.test(o[k]) || (k === 'backgroundColor' && o[k] === 'transparent')) q.set(k, o[k]);
      else console.warn('Slotd: ' + k + ' "' + o[k] + '" is not a hex colour such as #0b5cad' + (k === 'backgroundColor' ? ' or transparent' : '') + '; it is ignored.');
    }
    return base + '/book/' + encodeURIComponent(o.business) + '?' + q;
  }

  function frame(o, title) {
    const f = document.createElement('iframe');
    f.src = pageURL(o);
    f.title = title || 'Booking';
    f.loading = 'eager';
    f.setAttribute('allow', 'payment');
    Object.assign(f.style, { width: '100%', height: '640px', border: '0', display: 'block', colorScheme: 'normal' });
    return f;
  }

  // Messages are trusted only from slotd's origin and from a frame this
  // loader made; each is re-emitted on that frame's container.
  window.addEventListener('message', function (e) {
    if (e.origin !== base) return;
    const owner = frames.get(e.source);
    const d = e.data;
    if (!owner || !d || typeof d.type !== 'string' || d.type.indexOf('slotd:') !== 0 || d.version !== 1) return;
    if (d.type === 'slotd:ready') clearTimeout(owner.silent);
    if (d.type === 'slotd:resize' && typeof d.height === 'number' && d.height > 0) {
      owner.iframe.style.height = Math.ceil(d.height) + 'px';
    }
    owner.container.dispatchEvent(new CustomEvent(d.type, { detail: d, bubbles: true }));
  });

  function attach(container, o) {
    const f = frame(o, container.getAttribute('data-title'));
    container.replaceChildren(f);
    container.setAttribute('data-slotd-ready', '');
    watch(f, container);
    return f;
  }

  // watch registers frame f and warns when it never says it is ready.
  function watch(f, container) {
    const owner = { iframe: f, container: container };
    owner.silent = setTimeout(function () {
      if (frames.get(f.contentWindow) !== owner) return; // closed meanwhile
      console.warn('Slotd: the booking page did not load in this frame within ' + readyWait / 1000 + ' s. ' +
        'Most often its publishable key does not allow this site: add ' + location.origin + ' to the key\'s allowedOrigins ' +
        '(world file or admin API); the browser reports the refusal only as a Content-Security-Policy frame-ancestors error.');
    }, readyWait);
    frames.set(f.contentWindow, owner);
  }

  // scan turns every not yet filled [data-slotd-booking] into an inline
  // booking page.
  function scan(rootNode) {
    for (const c of (rootNode || document).querySelectorAll('[data-slotd-booking]:not([data-slotd-ready])')) {
      const o = {};
      for (const k of ['key', 'business', 'service', 'staff', 'locale'].concat(PREFILL, COLOURS)) {
        const v = c.getAttribute('data-' + k.replace(/[A-Z]/g, (m) => '-' + m.toLowerCase()));
        if (v) o[k] = v;
      }
      const utm = {};
      for (const k of UTM) {
        const v = c.getAttribute('data-' + k.replace('_', '-'));
        if (v) utm[k] = v;
      }
      if (Object.keys(utm).length) o.utm = utm;
      try {
        attach(c, o);
      } catch (err) {
        console.error(err.message); // one bad element leaves the others working
      }
    }
  }

  // open shows the booking page in a modal dialog; the close button, a
  // click outside or Escape on the host page (the frame's keys are its
  // own) closes it and gives the focus back.
  function open(o) {
    const before = document.activeElement;
    const overlay = document.createElement('div');
    overlay.setAttribute('data-slotd-modal', '');
    Object.assign(overlay.style, { position: 'fixed', inset: '0', background: 'rgba(0,0,0,0.55)', zIndex: '2147483000',
      display: 'flex', alignItems: 'flex-start', justifyContent: 'center', overflowY: 'auto', padding: '4vh 8px' });
    const dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.setAttribute('aria-label', o.title || 'Booking');
    Object.assign(dialog.style, { position: 'relative', background: '#fff', borderRadius: '10px', width: '100%', maxWidth: '760px',
      boxShadow: '0 10px 40px rgba(0,0,0,0.35)', padding: '40px 0 0' });
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = '\u00d7';
    close.setAttribute('aria-label', o.closeLabel || 'Close');
    Object.assign(close.style, { position: 'absolute', top: '4px', right: '8px', font: '28px/1 sans-serif', background: 'none',
      border: '0', cursor: 'pointer', padding: '4px 10px', color: '#1b1f24' });
    dialog.append(close);
    overlay.append(dialog);
    const f = frame(o, o.title);
    dialog.append(f);
    document.body.append(overlay); // an iframe has a window once it is in the document
    watch(f, overlay);

    function done() {
      frames.delete(f.contentWindow);
      document.removeEventListener('keydown', onKey, true);
      overlay.dispatchEvent(new CustomEvent('slotd:close', { detail: { type: 'slotd:close', version: 1 }, bubbles: true }));
      overlay.remove();
      if (before && before.focus) before.focus();
    }
    function onKey(e) { if (e.key === 'Escape') done(); }
    close.addEventListener('click', done);
    overlay.addEventListener('click', function (e) { if (e.target === overlay) done(); });
    document.addEventListener('keydown', onKey, true);
    close.focus();
    return { element: overlay, close: done };
  }

  window.Slotd = { version: 1, open: open, scan: scan };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { scan(); });
  else scan();
})();
