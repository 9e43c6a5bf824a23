// common.js: what slotd's booking page and manage page share. Plain
// JavaScript for current browsers, no build step and no dependency: the
// API client, the page's words in English and Dutch, times in the
// business's zone and the visitor's, the day grid, and the events a
// framing page hears.
'use strict';
(function () {
  const root = document.documentElement;
  const cfg = root.dataset;
  const lang = cfg.locale === 'nl' ? 'nl' : 'en';

  // words holds every sentence the scripts show. A refusal is always one
  // of these, never an API code: refusal() picks it.
  const words = {
    en: {
      'step.service': 'Choose a service',
      'step.day': 'Choose a day',
      'step.time': 'Choose a time',
      'step.staff': 'Choose who you would like',
      'step.details': 'Your details',
      'step.confirm': 'Check and confirm',
      'step.done': 'Your appointment is booked',
      'step.pending': 'Your appointment is reserved',
      'step.add': 'Choose another service',
      'step.done.many': 'Your appointments are booked',
      'back': 'Back',
      'continue': 'Continue',
      'confirm': 'Confirm booking',
      'anyone': 'Anyone available',
      'anyone.meta': 'We pick whoever is free',
      'minutes': '{n} min',
      'free': 'Free',
      'no.services': 'There is nothing to book online at the moment.',
      'no.days': 'There are no free times in the coming weeks.',
      'no.times': 'There are no free times on this day any more.',
      'loading': 'Loading…',
      'zone.business': 'Times are shown in {zone}.',
      'zone.visitor': 'Your own time ({zone}) is shown beside each time.',
      'your.time': '{time} your time',
      'seats.one': '1 place left',
      'seats.many': '{n} places left',
      'held': 'We are holding this time for you for {time}.',
      'day.free': '{day}, free times',
      'day.none': '{day}, fully booked',
      'basket.add': 'Add another service',
      'basket.remove': 'Remove {name}',
      'repeat.label': 'Repeat weekly',
      'repeat.none': 'Does not repeat',
      'repeat.weeks': '{n} weeks',
      'repeat.checking': 'Checking each week…',
      'repeat.ok': 'Free',
      'repeat.blocked': 'Not every week is free at this time. Please choose fewer weeks or another time.',
      'repeat.unavailable': 'This cannot be booked weekly online. Please choose "Does not repeat".',
      'price.each': '{price} per appointment',
      'label.firstName': 'First name',
      'label.lastName': 'Last name',
      'label.email': 'E-mail address',
      'label.phone': 'Phone number',
      'label.notes': 'Anything we should know?',
      'optional': '(optional)',
      'summary.service': 'Service',
      'summary.when': 'When',
      'summary.staff': 'With',
      'summary.name': 'Name',
      'summary.email': 'E-mail',
      'summary.status': 'Status',
      'summary.price': 'Price',
      'summary.total': 'Total',
      'summary.dates': 'Dates',
      'done.body': 'We have sent a confirmation to {email}. It has a link to cancel or change your appointment.',
      'done.body.many': 'We have sent a confirmation to {email}. It has a link to cancel or change each appointment.',
      'pending.body': 'Your appointment will be confirmed as soon as your payment has been received.',
      'pay.link': 'Continue to payment',
      'pay.host': 'Please complete the payment on this page.',
      'field.required': 'Please fill this in.',
      'field.email': 'Please enter a valid e-mail address.',
      'field.long': 'This is too long.',
      'field.invalid': 'Please check this.',
      'err.fields': 'Please check the marked fields.',
      'err.basket': 'These services cannot be booked together online. Please book them one at a time.',
      'err.SERIES_CONFLICT': 'Sorry, not every week is free any more. Please choose fewer weeks or another time.',
      'err.SLOT_TAKEN': 'Sorry, this time has just been taken. Please choose another time.',
      'err.NO_STAFF_AVAILABLE': 'Sorry, nobody is free at this time any more. Please choose another time.',
      'err.HOLD_EXPIRED': 'The time we held for you has run out. Please choose a time again.',
      'err.BOOKING_TOO_SOON': 'This time is too soon to book online. Please choose a later time.',
      'err.BOOKING_TOO_FAR_AHEAD': 'This time is too far ahead to book online. Please choose an earlier time.',
      'err.SLOT_NOT_OFFERED': 'This time cannot be booked. Please choose another time.',
      'err.BOOKING_REQUIRES_EXISTING_CUSTOMER': 'Online booking is open to existing customers only. Please contact {business}.',
      'err.BOOKING_PERIOD_RESTRICTED': 'Online booking is closed for this period. Please choose another day.',
      'err.BOOKING_SLOT_NOT_CONNECTED': 'This time would leave a gap in the day that cannot be filled. Please choose another time.',
      'err.BOOKING_LIMIT_REACHED': 'No more bookings can be taken for this period. Please choose another day.',
      'err.SESSION_FULL': 'Sorry, this class has just filled up. Please choose another time.',
      'err.RESOURCE_UNAVAILABLE': 'Sorry, the room or equipment for this is no longer free at this time. Please choose another time.',
      'err.STAFF_NOT_BOOKABLE': 'This person cannot be booked online. Please choose someone else.',
      'err.OUTSIDE_CHANGE_WINDOW': 'This change can no longer be made online. Please contact {business}.',
      'err.INVALID_STATUS_TRANSITION': 'This appointment can no longer be changed.',
      'err.NOT_FOUND': 'This link does not lead to an appointment.',
      'err.RATE_LIMITED': 'There have been too many attempts. Please wait a moment and try again.',
      'err.PAYMENTS_UNAVAILABLE': 'Payment cannot be started at the moment. Please try again later.',
      'err.PAYMENT_ERROR': 'Payment cannot be started at the moment. Please try again later.',
      'err.NETWORK': 'We could not reach the booking service. Please check your connection and try again.',
      'err.ORIGIN_NOT_ALLOWED': 'Booking is not available on this web site.',
      'err.other': 'Something went wrong. Please try again.',
      'status.confirmed': 'Confirmed',
      'status.pending_payment': 'Awaiting payment',
      'status.cancelled': 'Cancelled',
      'status.completed': 'Completed',
      'status.no_show': 'Missed',
      'manage.heading': 'Your appointment',
      'manage.cancel': 'Cancel appointment',
      'manage.cancel.ask': 'Do you really want to cancel this appointment?',
      'manage.cancel.yes': 'Yes, cancel it',
      'manage.cancel.no': 'No, keep it',
      'manage.cancel.until': 'You can cancel until {when}.',
      'manage.reschedule': 'Change the time',
      'manage.reschedule.until': 'You can change the time until {when}.',
      'manage.reschedule.confirm': 'Move my appointment to {when}',
      'manage.cancelled': 'Your appointment has been cancelled.',
      'manage.moved': 'Your appointment has been moved.',
      'manage.fixed': 'This appointment can no longer be changed online. Please contact {business} if you need to.',
      'manage.keep': 'Keep the current time',
    },
    nl: {
      'step.service': 'Kies een behandeling',
      'step.day': 'Kies een dag',
      'step.time': 'Kies een tijd',
      'step.staff': 'Kies bij wie',
      'step.details': 'Uw gegevens',
      'step.confirm': 'Controleren en bevestigen',
      'step.done': 'Uw afspraak is geboekt',
      'step.pending': 'Uw afspraak is gereserveerd',
      'step.add': 'Kies nog een dienst',
      'step.done.many': 'Uw afspraken zijn geboekt',
      'back': 'Terug',
      'continue': 'Verder',
      'confirm': 'Afspraak bevestigen',
      'anyone': 'Maakt niet uit',
      'anyone.meta': 'Wie er dan vrij is',
      'minutes': '{n} min',
      'free': 'Gratis',
      'no.services': 'Er is op dit moment niets online te boeken.',
      'no.days': 'Er zijn de komende weken geen vrije tijden.',
      'no.times': 'Er zijn op deze dag geen vrije tijden meer.',
      'loading': 'Laden…',
      'zone.business': 'Tijden staan in {zone}.',
      'zone.visitor': 'Uw eigen tijd ({zone}) staat naast elke tijd.',
      'your.time': '{time} uw tijd',
      'seats.one': 'nog 1 plek vrij',
      'seats.many': 'nog {n} plekken vrij',
      'held': 'We houden deze tijd nog {time} voor u vast.',
      'day.free': '{day}, vrije tijden',
      'day.none': '{day}, volgeboekt',
      'basket.add': 'Nog een dienst toevoegen',
      'basket.remove': '{name} verwijderen',
      'repeat.label': 'Wekelijks herhalen',
      'repeat.none': 'Niet herhalen',
      'repeat.weeks': '{n} weken',
      'repeat.checking': 'We controleren elke week…',
      'repeat.ok': 'Vrij',
      'repeat.blocked': 'Niet elke week is op deze tijd vrij. Kies minder weken of een andere tijd.',
      'repeat.unavailable': 'Dit kan niet wekelijks online geboekt worden. Kies "Niet herhalen".',
      'price.each': '{price} per afspraak',
      'label.firstName': 'Voornaam',
      'label.lastName': 'Achternaam',
      'label.email': 'E-mailadres',
      'label.phone': 'Telefoonnummer',
      'label.notes': 'Iets dat we moeten weten?',
      'optional': '(niet verplicht)',
      'summary.service': 'Behandeling',
      'summary.when': 'Wanneer',
      'summary.staff': 'Bij',
      'summary.name': 'Naam',
      'summary.email': 'E-mail',
      'summary.status': 'Status',
      'summary.price': 'Prijs',
      'summary.total': 'Totaal',
      'summary.dates': 'Datums',
      'done.body.many': 'We hebben een bevestiging gestuurd naar {email}. Daarin staat voor elke afspraak een link om die te annuleren of te verzetten.',
      'done.body': 'We hebben een bevestiging gestuurd naar {email}. Daarin staat een link om uw afspraak te annuleren of te verzetten.',
      'pending.body': 'Uw afspraak wordt bevestigd zodra uw betaling binnen is.',
      'pay.link': 'Verder naar betalen',
      'pay.host': 'Rond de betaling af op deze pagina.',
      'field.required': 'Vul dit in.',
      'field.email': 'Vul een geldig e-mailadres in.',
      'field.long': 'Dit is te lang.',
      'field.invalid': 'Controleer dit.',
      'err.fields': 'Controleer de gemarkeerde velden.',
      'err.basket': 'Deze diensten kunnen online niet samen geboekt worden. Boek ze één voor één.',
      'err.SERIES_CONFLICT': 'Helaas, niet elke week is nog vrij. Kies minder weken of een andere tijd.',
      'err.SLOT_TAKEN': 'Helaas, deze tijd is net geboekt. Kies een andere tijd.',
      'err.NO_STAFF_AVAILABLE': 'Helaas, er is op deze tijd niemand meer vrij. Kies een andere tijd.',
      'err.HOLD_EXPIRED': 'De tijd die we voor u vasthielden is verlopen. Kies opnieuw een tijd.',
      'err.BOOKING_TOO_SOON': 'Deze tijd is te kort dag om online te boeken. Kies een latere tijd.',
      'err.BOOKING_TOO_FAR_AHEAD': 'Deze tijd ligt te ver vooruit om online te boeken. Kies een eerdere tijd.',
      'err.SLOT_NOT_OFFERED': 'Deze tijd kan niet geboekt worden. Kies een andere tijd.',
      'err.BOOKING_REQUIRES_EXISTING_CUSTOMER': 'Online boeken kan alleen voor bestaande klanten. Neem contact op met {business}.',
      'err.BOOKING_PERIOD_RESTRICTED': 'Online boeken is in deze periode gesloten. Kies een andere dag.',
      'err.BOOKING_SLOT_NOT_CONNECTED': 'Deze tijd laat een gat in de dag dat niet te vullen is. Kies een andere tijd.',
      'err.BOOKING_LIMIT_REACHED': 'Voor deze periode kunnen geen afspraken meer worden gemaakt. Kies een andere dag.',
      'err.SESSION_FULL': 'Helaas, deze les is net volgeboekt. Kies een andere tijd.',
      'err.RESOURCE_UNAVAILABLE': 'Helaas, de ruimte of apparatuur hiervoor is op deze tijd niet meer vrij. Kies een andere tijd.',
      'err.STAFF_NOT_BOOKABLE': 'Deze medewerker is niet online te boeken. Kies iemand anders.',
      'err.OUTSIDE_CHANGE_WINDOW': 'Deze wijziging kan niet meer online. Neem contact op met {business}.',
      'err.INVALID_STATUS_TRANSITION': 'Deze afspraak kan niet meer gewijzigd worden.',
      'err.NOT_FOUND': 'Deze link hoort niet bij een afspraak.',
      'err.RATE_LIMITED': 'Er zijn te veel pogingen gedaan. Wacht even en probeer het opnieuw.',
      'err.PAYMENTS_UNAVAILABLE': 'Betalen is op dit moment niet mogelijk. Probeer het later opnieuw.',
      'err.PAYMENT_ERROR': 'Betalen is op dit moment niet mogelijk. Probeer het later opnieuw.',
      'err.NETWORK': 'We konden de boekingsdienst niet bereiken. Controleer uw verbinding en probeer het opnieuw.',
      'err.ORIGIN_NOT_ALLOWED': 'Boeken is op deze website niet beschikbaar.',
      'err.other': 'Er ging iets mis. Probeer het opnieuw.',
      'status.confirmed': 'Bevestigd',
      'status.pending_payment': 'Wacht op betaling',
      'status.cancelled': 'Geannuleerd',
      'status.completed': 'Afgerond',
      'status.no_show': 'Niet verschenen',
      'manage.heading': 'Uw afspraak',
      'manage.cancel': 'Afspraak annuleren',
      'manage.cancel.ask': 'Wilt u deze afspraak echt annuleren?',
      'manage.cancel.yes': 'Ja, annuleren',
      'manage.cancel.no': 'Nee, behouden',
      'manage.cancel.until': 'U kunt annuleren tot {when}.',
      'manage.reschedule': 'Tijd wijzigen',
      'manage.reschedule.until': 'U kunt de tijd wijzigen tot {when}.',
      'manage.reschedule.confirm': 'Verzet mijn afspraak naar {when}',
      'manage.cancelled': 'Uw afspraak is geannuleerd.',
      'manage.moved': 'Uw afspraak is verzet.',
      'manage.fixed': 'Deze afspraak kan niet meer online gewijzigd worden. Neem zo nodig contact op met {business}.',
      'manage.keep': 'De huidige tijd houden',
    },
  };

  // t is the sentence key in the page's language, {names} filled from vars.
  function t(key, vars) {
    let s = words[lang][key];
    if (s === undefined) s = words.en[key];
    if (s === undefined) s = key;
    for (const k in vars || {}) s = s.split('{' + k + '}').join(String(vars[k]));
    return s;
  }

  const business = cfg.businessName || '';

  // refusal is the sentence for an API error: never its code.
  function refusal(err) {
    const key = 'err.' + (err && err.code);
    if (words.en[key] !== undefined) return t(key, { business: business });
    return t('err.other');
  }

  // An ApiError is an answer that was not a success, or no answer.
  class ApiError extends Error {
    constructor(status, body, retryAfter) {
      super((body && body.code) || 'NETWORK');
      this.status = status;
      this.code = (body && body.code) || (status === 0 ? 'NETWORK' : 'HTTP_' + status);
      this.fields = (body && body.fields) || [];
      this.retryAfter = retryAfter;
    }
  }

  // api calls slotd's API on this page's own origin. key is the
  // publishable key, or '' for the manage endpoints, which need none.
  async function api(method, path, opts) {
    opts = opts || {};
    const headers = { Accept: 'application/json' };
    if (opts.key) headers.Authorization = 'Bearer ' + opts.key;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
    let res;
    try {
      res = await fetch(path, {
        method: method, headers: headers, credentials: 'omit', cache: 'no-store', keepalive: Boolean(opts.keepalive),
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (e) {
      throw new ApiError(0, null, null);
    }
    if (res.status === 204) return null;
    let body = null;
    try { body = await res.json(); } catch (e) { body = null; }
    if (!res.ok) throw new ApiError(res.status, body, res.headers.get('Retry-After'));
    return body;
  }

  // A fresh Idempotency-Key: a retried click repeats the same request.
  function newKey() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }

  // Times. The business's zone decides days and the times shown first;
  // the visitor's zone (the browser's) is shown beside them when it
  // differs. Intl does the zone arithmetic, DST included.
  const bizZone = cfg.timezone || 'UTC';
  const visitorZone = (Intl.DateTimeFormat().resolvedOptions().timeZone) || bizZone;
  const intlLocale = (navigator.language || '').toLowerCase().startsWith(lang) ? navigator.language : (lang === 'nl' ? 'nl-NL' : 'en-GB');
  const formats = {};
  // A 24-hour locale writes "09:00", a 12-hour one "9:00 AM" (not
  // "09:00 AM"): each its own way.
  const twelveHour = /^h1[12]$/.test(new Intl.DateTimeFormat(intlLocale, { hour: 'numeric' }).resolvedOptions().hourCycle || '');
  function fmt(zone, kind) {
    const k = zone + '|' + kind;
    if (!formats[k]) {
      const o = { timeZone: zone };
      if (kind === 'time') Object.assign(o, { hour: twelveHour ? 'numeric' : '2-digit', minute: '2-digit' });
      if (kind === 'day') Object.assign(o, { weekday: 'long', day: 'numeric', month: 'long' });
      if (kind === 'dayShort') Object.assign(o, { weekday: 'short', day: 'numeric', month: 'short' });
      if (kind === 'num') Object.assign(o, { day: 'numeric' });
      if (kind === 'mon') Object.assign(o, { month: 'short' });
      if (kind === 'wd') Object.assign(o, { weekday: 'short' });
      if (kind === 'weekday') Object.assign(o, { weekday: 'long' });
      if (kind === 'ymd') Object.assign(o, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
      formats[k] = new Intl.DateTimeFormat(kind === 'ymd' ? 'en-US' : intlLocale, o);
    }
    return formats[k];
  }
  // parts is the wall clock of instant ms in zone.
  function parts(ms, zone) {
    const p = {};
    for (const x of fmt(zone, 'ymd').formatToParts(new Date(ms))) p[x.type] = x.value;
    return { y: +p.year, m: +p.month, d: +p.day, h: +p.hour % 24, mi: +p.minute, s: +p.second };
  }
  // dayKey is the business-zone date of instant ms, as YYYY-MM-DD.
  function dayKey(ms, zone) {
    const p = parts(ms, zone || bizZone);
    return p.y + '-' + String(p.m).padStart(2, '0') + '-' + String(p.d).padStart(2, '0');
  }
  // offset is how far zone's wall clock is ahead of UTC at instant ms.
  function offset(ms, zone) {
    const p = parts(ms, zone);
    return Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
  }
  // midnight is the instant the date y-m-d begins in zone (the first
  // instant of it, on a day whose midnight is skipped).
  function midnight(y, m, d, zone) {
    const wall = Date.UTC(y, m - 1, d);
    let ms = wall - offset(wall, zone);
    ms = wall - offset(ms, zone);
    return ms;
  }
  // days lists the n business-zone dates from the one holding instant ms.
  function days(ms, n) {
    const p = parts(ms, bizZone);
    const out = [];
    for (let i = 0; i < n; i++) {
      const u = new Date(Date.UTC(p.y, p.m - 1, p.d + i, 12));
      const key = u.toISOString().slice(0, 10);
      out.push({ key: key, start: midnight(u.getUTCFullYear(), u.getUTCMonth() + 1, u.getUTCDate(), bizZone) });
    }
    return out;
  }
  // dayLabel is a business-zone date (YYYY-MM-DD) as a heading says it,
  // in the same words as when() says its day.
  function dayLabel(key) {
    return fmt('UTC', 'day').format(new Date(key + 'T12:00:00Z'));
  }
  const showVisitor = visitorZone !== bizZone;
  // when is a start (and end) for people: the business's time, and the
  // visitor's beside it when they differ.
  function when(start, end) {
    const s = new Date(start);
    let out = fmt(bizZone, 'day').format(s) + ', ' + fmt(bizZone, 'time').format(s);
    if (end) out += '–' + fmt(bizZone, 'time').format(new Date(end));
    out += ' (' + bizZone + ')';
    const other = visitorTime(start);
    if (other) out += ' · ' + t('your.time', { time: other });
    return out;
  }
  // visitorTime is start in the visitor's zone, "" when it reads the same.
  function visitorTime(start) {
    if (!showVisitor) return '';
    const s = new Date(start);
    const biz = fmt(bizZone, 'time').format(s);
    const mine = fmt(visitorZone, 'time').format(s);
    const sameDay = dayKey(s.getTime(), bizZone) === dayKey(s.getTime(), visitorZone);
    if (biz === mine && sameDay) return '';
    return sameDay ? mine : fmt(visitorZone, 'wd').format(s) + ' ' + mine;
  }

  function money(cents, currency) {
    if (!cents) return t('free');
    try {
      return new Intl.NumberFormat(intlLocale, { style: 'currency', currency: currency || 'EUR' }).format(cents / 100);
    } catch (e) {
      return (cents / 100).toFixed(2) + ' ' + (currency || '');
    }
  }

  // el builds an element: el('button', {class: 'x', onclick: f}, child…).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
    return e;
  }

  // step replaces the page's step with a heading and content, and moves
  // the focus to the heading so a screen reader and the keyboard follow.
  function step(title, ...content) {
    const sec = document.getElementById('step');
    const h = el('h2', { id: 'step-title', tabindex: '-1', text: title });
    sec.replaceChildren(h, ...content);
    if (step.focus !== false) h.focus({ preventScroll: false });
    resized();
    return sec;
  }

  function alertText(text, good) {
    const a = document.getElementById('alert');
    a.className = 'alert' + (good ? ' good' : '');
    a.textContent = text || '';
    resized();
  }

  // Events to the framing page (decisions §7): only to the origin the
  // server checked against the key's allowed origins, never personal data.
  const parentOrigin = cfg.parentOrigin || '';
  function post(name, data) {
    if (!parentOrigin || window.parent === window) return;
    const msg = Object.assign({ type: 'slotd:' + name, version: 1 }, data || {});
    window.parent.postMessage(msg, parentOrigin);
  }
  let lastHeight = 0;
  function resized() {
    // The content's own height: the document's scrollHeight is never less
    // than the iframe's, so a frame could grow but never shrink by it.
    const h = Math.ceil(document.getElementById('app').getBoundingClientRect().bottom + window.scrollY);
    if (h !== lastHeight) {
      lastHeight = h;
      post('resize', { height: h });
    }
  }
  if (window.ResizeObserver) new ResizeObserver(resized).observe(document.body);

  // dayGrid draws the days of the coming weeks, a start of week per row,
  // those without a free start greyed and not selectable.
  function dayGrid(list, freeDays, picked, onPick) {
    const grid = el('div', { class: 'days', role: 'group', 'aria-label': t('step.day') });
    const first = new Date(list[0].key + 'T12:00:00Z');
    const lead = (first.getUTCDay() + 6) % 7; // Monday first
    const heads = [];
    for (let i = 0; i < 7; i++) {
      const d = new Date(Date.UTC(2024, 0, 1 + i, 12)); // 1 Jan 2024 was a Monday
      heads.push(el('div', { class: 'head', 'aria-hidden': 'true', text: fmt('UTC', 'wd').format(d) }));
    }
    grid.append(...heads);
    for (let i = 0; i < lead; i++) grid.append(el('div', { 'aria-hidden': 'true' }));
    for (const d of list) {
      const noon = new Date(d.key + 'T12:00:00Z');
      const num = fmt('UTC', 'num').format(noon);
      const mon = fmt('UTC', 'mon').format(noon);
      const free = freeDays.has(d.key);
      // The name starts with what the button shows, then says the rest.
      const b = el('button', {
        type: 'button', class: 'day' + (free ? ' free' : ''), 'data-day': d.key,
        disabled: !free, 'aria-pressed': picked === d.key ? 'true' : 'false',
        'aria-label': t(free ? 'day.free' : 'day.none', { day: num + ' ' + mon + ', ' + fmt('UTC', 'weekday').format(noon) }),
        onclick: () => onPick(d.key),
      }, el('span', { class: 'num', text: num }), ' ', el('span', { class: 'mon', text: mon }));
      grid.append(b);
    }
    return grid;
  }

  // timeList draws the free starts of one day as buttons.
  function timeList(slots, onPick) {
    const ul = el('ul', { class: 'times' });
    for (const s of slots) {
      const other = visitorTime(s.startTime);
      const time = fmt(bizZone, 'time').format(new Date(s.startTime));
      ul.append(el('li', null, el('button', {
        type: 'button', class: 'time', 'data-start': s.startTime, onclick: () => onPick(s),
      }, time, other ? ' ' : null, other ? el('span', { class: 'other', text: t('your.time', { time: other }) }) : null,
      // A class (decisions §10): the places its session still has.
      s.seatsLeft ? el('span', { class: 'seats', 'data-seats': s.seatsLeft, text: s.seatsLeft === 1 ? t('seats.one') : t('seats.many', { n: s.seatsLeft }) }) : null)));
    }
    return ul;
  }

  function zoneNote() {
    const p = el('p', { class: 'zone', text: t('zone.business', { zone: bizZone }) });
    if (showVisitor) p.append(' ' + t('zone.visitor', { zone: visitorZone }));
    return p;
  }

  function backButton(onBack) {
    return el('button', { type: 'button', class: 'secondary', 'data-action': 'back', onclick: onBack, text: t('back') });
  }

  function summary(rows) {
    const dl = el('dl', { class: 'summary' });
    for (const [k, v] of rows) if (v) dl.append(el('dt', { text: t('summary.' + k) }), el('dd', { 'data-summary': k, text: v }));
    return dl;
  }

  // now is the server's time, moved on by the time the page has been
  // open: days and slots are counted from it, not from the visitor's clock.
  const served = Date.parse(cfg.now);
  const openedAt = performance.now();
  function now() {
    return Number.isNaN(served) ? Date.now() : served + (performance.now() - openedAt);
  }

  // ISO is an instant as the API takes it.
  function iso(ms) { return new Date(ms).toISOString(); }

  window.slotd = {
    cfg, lang, t, api, ApiError, refusal, newKey, when, visitorTime, money, el, step, alertText,
    post, resized, dayGrid, timeList, zoneNote, backButton, summary, days, dayKey, dayLabel, iso, now, bizZone, visitorZone,
  };
})();
