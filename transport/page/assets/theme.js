// theme.js: the booking page in the host site's colours (decisions §7's
// embed, as Calendly's embed takes them). The loader passes
// primaryColor, textColor and backgroundColor ("transparent" shows the
// host page through) in the page's query; each must be a hex colour
// (#rgb or #rrggbb, the "#" optional) or it is ignored. The colours are
// set as the stylesheet's variables before the page is drawn, and moved
// towards black or white where a pairing would fall short of WCAG AA
// (4.5:1 for text, 3:1 for the accent against the background), so a
// host's palette never makes the page unreadable.
'use strict';
(function () {
  const q = new URLSearchParams(location.search);
  function hex(v) {
    const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(v || '');
    if (!m) return null;
    let h = m[1];
    if (h.length === 3) h = h.replace(/./g, '$&$&');
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
  }
  const primary = hex(q.get('primaryColor'));
  const text = hex(q.get('textColor'));
  const transparent = q.get('backgroundColor') === 'transparent';
  const bg = transparent ? null : hex(q.get('backgroundColor'));
  if (!primary && !text && !bg && !transparent) return;

  function lum(c) {
    const l = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  }
  function contrast(a, b) {
    const x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }
  function mix(a, b, t) { return a.map((v, i) => Math.round(v + (b[i] - v) * t)); }
  const black = [0, 0, 0], white = [255, 255, 255];
  // readable moves c towards black or white (whichever is further from
  // base) until it reaches ratio against base.
  function readable(c, base, ratio) {
    const to = contrast(black, base) >= contrast(white, base) ? black : white;
    for (let t = 0; t <= 1.0001 && contrast(c, base) < ratio; t += 0.05) c = mix(c, to, 0.05);
    return contrast(c, base) >= ratio ? c : to;
  }
  function css(c) { return '#' + c.map((v) => v.toString(16).padStart(2, '0')).join(''); }

  // A transparent page is read against the host's background, which the
  // page cannot see: its pairings are judged against white, and the
  // host chooses a textColor for a dark page.
  const base = bg || white;
  const ink = readable(text || [0x1b, 0x1f, 0x24], base, 7);
  const accent = readable(primary || [0x0b, 0x5c, 0xad], base, 4.5); // the times are written in it
  const vars = {
    '--bg': transparent ? 'transparent' : css(base),
    '--ink': css(ink),
    '--muted': css(readable(mix(ink, base, 0.3), base, 4.5)),
    '--accent': css(accent),
    '--accent-ink': css(contrast(white, accent) >= contrast(black, accent) ? white : black),
    '--line': css(mix(base, ink, 0.3)),
    '--soft': transparent ? 'transparent' : css(mix(base, ink, 0.06)),
  };
  const s = document.documentElement.style;
  for (const k in vars) s.setProperty(k, vars[k]);
  if (transparent) s.setProperty('background', 'transparent');
  document.documentElement.setAttribute('data-theme', 'custom');
})();
