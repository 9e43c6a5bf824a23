// book.js: the booking page's flow (decisions §7): service → day → time
// (a hold is placed) → staff member → details → confirm. Every step goes
// through the public API with the page's publishable key, so every rule
// and refusal is the API's own.
'use strict';
(function () {
  const S = window.slotd;
  const { t, el, step } = S;
  const key = S.cfg.key;
  const query = new URLSearchParams(location.search);
  const HORIZON = 28; // days offered; availability answers at most 31

  const state = {
    services: [], staff: new Map(), service: null,
    days: [], slots: [], freeDays: new Set(), day: null,
    slot: null, hold: null, holdTimer: 0,
    staffId: query.get('staff') || null, // a pinned staff member skips that step
    customer: {
      firstName: query.get('firstName') || '', lastName: query.get('lastName') || '',
      email: query.get('email') || '', phone: query.get('phone') || '', notes: '',
    },
  };

  // metadata is what the booking records of how the visitor came: the
  // UTM parameters of the page (the loader passes the host page's).
  function metadata() {
    const m = {};
    for (const k of ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content']) {
      const v = query.get(k);
      if (v) m[k] = v.slice(0, 500);
    }
    return m;
  }

  function fail(err) {
    S.alertText(S.refusal(err));
    S.post('error', { code: err.code || 'NETWORK' });
  }

  async function start() {
    try {
      const [services, staff] = await Promise.all([
        S.api('GET', '/api/v1/services?isActive=true&limit=100', { key }),
        S.api('GET', '/api/v1/staff?limit=100', { key }),
      ]);
      state.services = services.data.filter((s) => s.isActive);
      for (const m of staff.data) state.staff.set(m.id, m);
    } catch (err) {
      step(t('step.service'));
      fail(err);
      S.post('ready');
      return;
    }
    const wanted = query.get('service');
    const pre = state.services.find((s) => s.id === wanted);
    if (pre) pickService(pre);
    else showServices();
    S.post('ready');
  }

  function showServices() {
    releaseHold();
    if (state.services.length === 0) {
      step(t('step.service'), el('p', { class: 'empty', text: t('no.services') }));
      return;
    }
    const ul = el('ul', { class: 'choices' });
    for (const s of state.services) {
      const meta = serviceMeta(s);
      ul.append(el('li', null, el('button', { type: 'button', class: 'choice', 'data-service': s.id, onclick: () => pickService(s) },
        el('span', { class: 'name', text: s.name }),
        el('span', { class: 'meta', text: meta }),
        s.description ? el('span', { class: 'meta', text: s.description }) : null)));
    }
    step(t('step.service'), ul);
  }

  async function pickService(s) {
    state.service = s;
    state.day = null;
    S.alertText('');
    step(t('step.day'), el('p', { text: t('loading') }));
    await loadSlots();
    showDays();
  }

  // loadSlots asks for the free starts of the coming weeks: the first
  // week on its own, so the first days show at once.
  async function loadSlots() {
    const now = S.now();
    state.days = S.days(now, HORIZON);
    const end = state.days[HORIZON - 1].start + 36 * 3600e3; // past the last day's end, whatever its length
    const split = state.days[7].start;
    const ask = (from, to) => {
      const q = new URLSearchParams({ serviceId: state.service.id, from: S.iso(from), to: S.iso(to - 1000) });
      if (state.staffId) q.set('staffMemberId', state.staffId);
      return S.api('GET', '/api/v1/availability/slots?' + q, { key });
    };
    try {
      const [a, b] = await Promise.all([ask(now, split), ask(split, Math.min(end, now + 31 * 86400e3))]);
      state.slots = a.data.concat(b.data);
    } catch (err) {
      state.slots = [];
      fail(err);
    }
    state.freeDays = new Set(state.slots.map((s) => S.dayKey(Date.parse(s.startTime))));
  }

  // serviceMeta is a service's duration and price, as the list shows them.
  function serviceMeta(s) {
    return t('minutes', { n: s.durationMinutes }) + ' · ' + S.money(s.priceCents, S.cfg.currency);
  }

  // serviceLine names the chosen service with its duration and price.
  function serviceLine(s) {
    return s.name + ' · ' + serviceMeta(s);
  }

  function showDays() {
    releaseHold();
    if (!state.shown) {
      state.shown = true;
      performance.mark('slotd:first-slots'); // how long a visitor waits for free days: the tests measure it
    }
    const content = [];
    if (state.freeDays.size === 0) content.push(el('p', { class: 'empty', text: t('no.days') }));
    // Which service the days are for: the visitor may have come with it
    // chosen (?service=) and never seen the first step.
    content.push(el('p', { class: 'chosen', 'data-chosen': 'service', text: serviceLine(state.service) }));
    content.push(S.dayGrid(state.days, state.freeDays, state.day, pickDay));
    content.push(el('div', { class: 'actions' }, S.backButton(() => { S.alertText(''); showServices(); })));
    step(t('step.day'), ...content);
  }

  function pickDay(day) {
    state.day = day;
    S.alertText('');
    showTimes();
  }

  function showTimes() {
    releaseHold();
    const slots = state.slots.filter((s) => S.dayKey(Date.parse(s.startTime)) === state.day);
    step(t('step.time'),
      el('p', { text: S.dayLabel(state.day) }),
      S.zoneNote(),
      slots.length ? S.timeList(slots, pickTime) : el('p', { class: 'empty', text: t('no.times') }),
      el('div', { class: 'actions' }, S.backButton(showDays)));
  }

  // pickTime places a hold on the start: from now on nobody else can
  // take it, for five minutes.
  async function pickTime(slot) {
    S.alertText('');
    const hold = await placeHold(slot.startTime, state.staffId);
    if (!hold) return;
    state.slot = slot;
    S.post('time-selected', { startTime: hold.startTime, staffMemberId: hold.staffMemberId });
    if (state.staffId || slot.staffMemberIds.length <= 1) showDetails();
    else showStaff();
  }

  async function placeHold(startTime, staffId) {
    const body = { serviceId: state.service.id, startTime: startTime };
    if (staffId) body.staffMemberId = staffId;
    try {
      const hold = await S.api('POST', '/api/v1/holds', { key, body, idempotencyKey: S.newKey() });
      releaseHold();
      state.hold = hold;
      startCountdown(hold);
      return hold;
    } catch (err) {
      fail(err);
      if (['SLOT_TAKEN', 'NO_STAFF_AVAILABLE', 'SLOT_NOT_OFFERED', 'BOOKING_TOO_SOON', 'BOOKING_SLOT_NOT_CONNECTED', 'BOOKING_LIMIT_REACHED', 'SESSION_FULL', 'RESOURCE_UNAVAILABLE'].includes(err.code)) {
        await refreshTimes();
      }
      return null;
    }
  }

  // refreshTimes loads the free starts again after a refusal, keeping
  // the sentence that explains it.
  async function refreshTimes() {
    const msg = document.getElementById('alert').textContent;
    await loadSlots();
    if (state.day) showTimes();
    else showDays();
    S.alertText(msg);
  }

  // The countdown runs from the hold's own length, not the clocks: the
  // visitor's clock may be wrong, the hold's ttl is not.
  function startCountdown(hold) {
    const ttl = Date.parse(hold.expiresAt) - Date.parse(hold.createdAt);
    const until = Date.now() + ttl; // a span: the visitor's clock measures it well enough
    const box = document.getElementById('hold');
    const tick = () => {
      const left = Math.max(0, Math.round((until - Date.now()) / 1000));
      const mmss = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
      box.replaceChildren(...t('held', { time: '\u0000' }).split('\u0000').flatMap((part, i) => i ? [el('strong', { 'data-countdown': '', text: mmss }), part] : [part]));
      if (left === 0) {
        expired();
      }
    };
    box.hidden = false;
    tick();
    state.holdTimer = setInterval(tick, 1000);
  }

  function expired() {
    stopCountdown();
    state.hold = null;
    S.alertText(S.refusal({ code: 'HOLD_EXPIRED' }));
    S.post('error', { code: 'HOLD_EXPIRED' });
    refreshTimes();
  }

  function stopCountdown() {
    clearInterval(state.holdTimer);
    const box = document.getElementById('hold');
    box.hidden = true;
    box.replaceChildren();
  }

  // releaseHold gives a held time back when the visitor goes back past it.
  function releaseHold() {
    if (!state.hold) return;
    const id = state.hold.id;
    state.hold = null;
    stopCountdown();
    S.api('DELETE', '/api/v1/holds/' + id, { key, keepalive: true }).catch(() => {}); // it lapses by itself anyway
  }

  function staffName(id) {
    const m = state.staff.get(id);
    return m ? m.name : '';
  }

  function showStaff() {
    const ids = state.slot.staffMemberIds;
    const current = state.hold && state.pickedStaff ? state.hold.staffMemberId : null;
    const ul = el('ul', { class: 'choices' });
    const choice = (id, name, meta) => el('li', null, el('button', {
      type: 'button', class: 'choice', 'data-staff': id || 'any',
      'aria-pressed': String((id || null) === current), onclick: () => pickStaff(id),
    }, el('span', { class: 'name', text: name }), meta ? el('span', { class: 'meta', text: meta }) : null));
    ul.append(choice(null, t('anyone'), t('anyone.meta')));
    for (const id of ids) if (staffName(id)) ul.append(choice(id, staffName(id)));
    step(t('step.staff'), el('p', { text: S.when(state.hold.startTime, state.hold.endTime) }), ul,
      el('div', { class: 'actions' }, S.backButton(showTimes)));
  }

  // pickStaff keeps the hold for "anyone"; for a named person whom the
  // hold does not have, it holds the same start with them first and only
  // then lets the first hold go.
  async function pickStaff(id) {
    S.alertText('');
    if (id && state.hold.staffMemberId !== id) {
      const old = state.hold;
      const body = { serviceId: state.service.id, startTime: old.startTime, staffMemberId: id };
      try {
        const hold = await S.api('POST', '/api/v1/holds', { key, body, idempotencyKey: S.newKey() });
        releaseHold();
        state.hold = hold;
        startCountdown(hold);
        S.post('time-selected', { startTime: hold.startTime, staffMemberId: hold.staffMemberId });
      } catch (err) {
        fail(err);
        return;
      }
    }
    state.pickedStaff = Boolean(id);
    showDetails();
  }

  const fields = [
    ['firstName', 'text', 'given-name', true],
    ['lastName', 'text', 'family-name', false],
    ['email', 'email', 'email', true],
    ['phone', 'tel', 'tel', false],
    ['notes', 'textarea', 'off', false],
  ];

  function showDetails(errors) {
    errors = errors || {};
    const form = el('form', { novalidate: true, onsubmit: (e) => { e.preventDefault(); readDetails(form); } });
    for (const [name, type, auto, required] of fields) {
      const id = 'f-' + name;
      const label = el('label', { for: id }, t('label.' + name), required ? null : el('span', { class: 'opt', text: ' ' + t('optional') }));
      const attrs = { id: id, name: name, autocomplete: auto, required: required, 'aria-invalid': errors[name] ? 'true' : null,
        'aria-describedby': errors[name] ? id + '-err' : null };
      const input = type === 'textarea' ? el('textarea', attrs) : el('input', Object.assign({ type: type }, attrs));
      input.value = state.customer[name] || '';
      form.append(el('div', { class: 'field' }, label, input,
        errors[name] ? el('p', { class: 'error', id: id + '-err', text: errors[name] }) : null));
    }
    form.append(el('div', { class: 'actions' },
      el('button', { type: 'submit', class: 'primary', text: t('continue') }),
      S.backButton(() => (state.staffId || state.slot.staffMemberIds.length <= 1 ? showTimes() : showStaff()))));
    step(t('step.details'), el('p', { text: S.when(state.hold.startTime, state.hold.endTime) }), form);
    const bad = form.querySelector('[aria-invalid="true"]');
    if (bad) bad.focus();
  }

  function readDetails(form) {
    const errors = {};
    for (const [name, , , required] of fields) {
      const v = form.elements[name].value.trim();
      state.customer[name] = v;
      if (required && !v) errors[name] = t('field.required');
    }
    if (state.customer.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(state.customer.email)) errors.email = t('field.email');
    if (Object.keys(errors).length) {
      S.alertText(t('err.fields'));
      showDetails(errors);
      return;
    }
    S.alertText('');
    showConfirm();
  }

  function showConfirm() {
    const c = state.customer;
    const staff = state.hold.staffMemberId ? staffName(state.hold.staffMemberId) : '';
    const book = el('button', { type: 'button', class: 'primary', 'data-action': 'confirm', text: t('confirm'), onclick: () => confirm(book) });
    step(t('step.confirm'), S.summary([
      ['service', state.service.name],
      ['when', S.when(state.hold.startTime, state.hold.endTime)],
      ['staff', staff],
      ['price', S.money(state.service.priceCents, S.cfg.currency)],
      ['name', (c.firstName + ' ' + c.lastName).trim()],
      ['email', c.email],
    ]), el('div', { class: 'actions' }, book, S.backButton(() => showDetails())));
  }

  // confirm books with the hold; the Idempotency-Key is kept for the
  // visitor's repeated clicks, so a retry never books twice.
  let bookingKey = '';
  async function confirm(button) {
    if (!state.hold) return;
    button.disabled = true;
    bookingKey = bookingKey || S.newKey();
    const c = state.customer;
    const customer = { firstName: c.firstName, email: c.email };
    if (c.lastName) customer.lastName = c.lastName;
    if (c.phone) customer.phone = c.phone;
    const body = { holdId: state.hold.id, customer: customer, metadata: metadata() };
    if (c.notes) body.notes = c.notes;
    let ans;
    try {
      ans = await S.api('POST', '/api/v1/appointments', { key, body, idempotencyKey: bookingKey });
    } catch (err) {
      button.disabled = false;
      if (err.status === 400 && err.code === 'VALIDATION_ERROR') {
        bookingKey = '';
        S.alertText(t('err.fields'));
        showDetails(fieldErrors(err));
        return;
      }
      fail(err);
      if (err.code === 'HOLD_EXPIRED') {
        bookingKey = '';
        stopCountdown();
        state.hold = null;
        refreshTimes();
      }
      return;
    }
    stopCountdown();
    state.hold = null;
    booked(ans);
  }

  function fieldErrors(err) {
    const out = {};
    for (const f of err.fields) {
      const name = String(f.path || '').replace(/^customer\./, '');
      const reason = f.reason === 'required' ? 'field.required' : f.reason === 'invalid_email' ? 'field.email'
        : f.reason === 'too_long' ? 'field.long' : 'field.invalid';
      if (fields.some(([n]) => n === name)) out[name] = t(reason);
    }
    return out;
  }

  function booked(ans) {
    const a = ans.appointment;
    S.post('booked', {
      appointmentId: a.id, startTime: a.startTime, endTime: a.endTime,
      serviceId: a.service.id, staffMemberId: a.staffMember ? a.staffMember.id : null, status: a.status,
    });
    const rows = S.summary([
      ['service', a.service.name],
      ['when', S.when(a.startTime, a.endTime)],
      ['staff', a.staffMember ? a.staffMember.name : ''],
      ['price', S.money(a.totalPriceCents != null ? a.totalPriceCents : a.service.priceCents, a.currency || S.cfg.currency)],
    ]);
    if (a.status !== 'pending_payment') {
      step(t('step.done'), rows, el('p', { text: t('done.body', { email: a.customer.email }) }));
      return;
    }
    const p = ans.payment || {};
    S.post('payment-required', p.checkoutUrl ? { appointmentId: a.id, checkoutUrl: p.checkoutUrl } : { appointmentId: a.id, clientSecret: p.clientSecret });
    const content = [rows, el('p', { text: t('pending.body') })];
    if (p.checkoutUrl && /^https?:\/\//.test(p.checkoutUrl)) {
      content.push(el('p', null, el('a', { class: 'button primary', href: p.checkoutUrl, target: '_top', rel: 'noopener', 'data-action': 'pay', text: t('pay.link') })));
    } else {
      content.push(el('p', { text: t('pay.host') }));
    }
    step(t('step.pending'), ...content);
  }

  // A visitor who leaves gives the held time back at once rather than
  // in five minutes.
  window.addEventListener('pagehide', () => releaseHold());

  start();
})();
