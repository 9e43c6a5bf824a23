// book.js: the booking page's flow (decisions §7): service → day → time
// (a hold is placed) → staff member → details → confirm. Every step goes
// through the public API with the page's publishable key, so every rule
// and refusal is the API's own.
//
// Two variations (decisions §11). "Add another service" on the day step
// makes a basket: the times are the chain's (serviceIds=…), picking one
// holds nothing (a hold keeps one service's start) and skips the staff
// step, and confirming posts /baskets. "Repeat weekly" on the confirm step
// of a service with repeatWeeks gives the hold up (the visitor's own hold
// would refuse the series' first week), previews the weeks and confirms
// with /appointment-series.
'use strict';
(function () {
  const S = window.slotd;
  const { t, el, step } = S;
  const key = S.cfg.key;
  const query = new URLSearchParams(location.search);
  const HORIZON = 28; // days offered; availability answers at most 31
  const MAX_BASKET = 5; // services in one basket at most (decisions §11)
  // GONE are the refusals after which the times shown are out of date.
  const GONE = ['SLOT_TAKEN', 'NO_STAFF_AVAILABLE', 'SLOT_NOT_OFFERED', 'BOOKING_TOO_SOON', 'BOOKING_SLOT_NOT_CONNECTED', 'BOOKING_LIMIT_REACHED', 'SESSION_FULL', 'RESOURCE_UNAVAILABLE'];

  const state = {
    services: [], staff: new Map(), service: null,
    extra: [], // services added after the first: a basket when not empty
    days: [], slots: [], freeDays: new Set(), day: null,
    slot: null, hold: null, holdTimer: 0,
    time: null, // {startTime, endTime, staffMemberId} chosen: the hold's, or a basket slot's
    gaveUp: false, releasing: null, // the hold released for a series; a single booking then goes without one
    repeat: 0, // weeks of "repeat weekly"; 0 for one appointment
    preview: null, previewSeq: 0, ui: null, // the confirm step's series preview and its elements
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
    step(t('step.service'), serviceChoices(state.services, pickService));
  }

  // serviceChoices lists services as buttons that call onPick.
  function serviceChoices(list, onPick) {
    const ul = el('ul', { class: 'choices' });
    for (const s of list) {
      ul.append(el('li', null, el('button', { type: 'button', class: 'choice', 'data-service': s.id, onclick: () => onPick(s) },
        el('span', { class: 'name', text: s.name }),
        el('span', { class: 'meta', text: serviceMeta(s) }),
        s.description ? el('span', { class: 'meta', text: s.description }) : null)));
    }
    return ul;
  }

  function pickService(s) {
    state.service = s;
    state.extra = [];
    state.repeat = 0;
    return reloadDays();
  }

  // reloadDays loads the free starts of what is chosen now and shows the days.
  async function reloadDays() {
    state.day = null;
    S.alertText('');
    step(t('step.day'), el('p', { text: t('loading') }));
    await loadSlots();
    showDays();
  }

  // chosen is every service being booked: the first, then those added.
  function chosen() {
    return [state.service].concat(state.extra);
  }

  function isBasket() {
    return state.extra.length > 0;
  }

  // addable are the services a basket may still take: not chosen yet, not
  // paid in advance (a basket never is), and done by the pinned staff
  // member if there is one; none once the basket is full or the first
  // service is paid in advance.
  function addable() {
    if (state.service.paymentRequired || chosen().length >= MAX_BASKET) return [];
    const ids = new Set(chosen().map((s) => s.id));
    const pinned = state.staffId ? state.staff.get(state.staffId) : null;
    return state.services.filter((s) => !ids.has(s.id) && !s.paymentRequired &&
      (!pinned || !pinned.assignedServiceIds || pinned.assignedServiceIds.includes(s.id)));
  }

  function showAddService() {
    S.alertText('');
    step(t('step.add'), el('p', { class: 'chosen', 'data-chosen': 'service', text: chosenLine() }),
      serviceChoices(addable(), addService), el('div', { class: 'actions' }, S.backButton(showDays)));
  }

  function addService(s) {
    state.extra.push(s);
    return reloadDays();
  }

  function removeService(s) {
    state.extra = state.extra.filter((x) => x !== s);
    return reloadDays();
  }

  // loadSlots asks for the free starts of the coming weeks: the first
  // week on its own, so the first days show at once.
  async function loadSlots() {
    const now = S.now();
    state.days = S.days(now, HORIZON);
    const end = state.days[HORIZON - 1].start + 36 * 3600e3; // past the last day's end, whatever its length
    const split = state.days[7].start;
    const services = isBasket() ? { serviceIds: chosen().map((s) => s.id).join(',') } : { serviceId: state.service.id };
    const ask = (from, to) => {
      const q = new URLSearchParams(Object.assign({}, services, { from: S.iso(from), to: S.iso(to - 1000) }));
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

  // chosenLine names the chosen services with their duration and price
  // together: "Haircut · 30 min · €35.00", "Haircut + Manicure · 75 min · €65.00".
  function chosenLine() {
    const list = chosen();
    const sum = (f) => list.reduce((n, s) => n + f(s), 0);
    return list.map((s) => s.name).join(' + ') + ' · ' + t('minutes', { n: sum((s) => s.durationMinutes) }) +
      ' · ' + S.money(sum((s) => s.priceCents), S.cfg.currency);
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
    content.push(el('p', { class: 'chosen', 'data-chosen': 'service', text: chosenLine() }));
    const basket = basketActions();
    if (basket.childElementCount) content.push(basket);
    content.push(S.dayGrid(state.days, state.freeDays, state.day, pickDay));
    content.push(el('div', { class: 'actions' }, S.backButton(() => { S.alertText(''); showServices(); })));
    step(t('step.day'), ...content);
  }

  // basketActions are a remove button per added service and, while
  // another may be added, "Add another service".
  function basketActions() {
    const box = el('div', { class: 'actions basket' });
    for (const s of state.extra) {
      box.append(el('button', { type: 'button', class: 'secondary', 'data-remove': s.id, text: t('basket.remove', { name: s.name }), onclick: () => removeService(s) }));
    }
    if (addable().length) {
      box.append(el('button', { type: 'button', class: 'secondary', 'data-action': 'add-service', text: t('basket.add'), onclick: showAddService }));
    }
    return box;
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
    state.pickedStaff = false;
    if (isBasket()) {
      pickChain(slot);
      return;
    }
    const hold = await placeHold(slot.startTime, state.staffId);
    if (!hold) return;
    state.slot = slot;
    S.post('time-selected', { startTime: hold.startTime, staffMemberId: hold.staffMemberId });
    if (state.staffId || slot.staffMemberIds.length <= 1) showDetails();
    else showStaff();
  }

  // pickChain takes a basket's start. It holds nothing: the basket is
  // judged again when it is booked, and a refusal reloads the times.
  function pickChain(slot) {
    state.slot = slot;
    state.time = { startTime: slot.startTime, endTime: slot.endTime, staffMemberId: state.staffId };
    S.post('time-selected', { startTime: slot.startTime, staffMemberId: state.staffId });
    showDetails();
  }

  async function placeHold(startTime, staffId) {
    const body = { serviceId: state.service.id, startTime: startTime };
    if (staffId) body.staffMemberId = staffId;
    try {
      const hold = await S.api('POST', '/api/v1/holds', { key, body, idempotencyKey: S.newKey() });
      releaseHold();
      useHold(hold);
      return hold;
    } catch (err) {
      fail(err);
      if (GONE.includes(err.code)) {
        await refreshTimes();
      }
      return null;
    }
  }

  function useHold(hold) {
    state.hold = hold;
    state.time = hold;
    state.gaveUp = false;
    startCountdown(hold);
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

  // giveUpHold releases the hold and waits until it is gone: a series
  // previewed or booked at its start would be refused by it.
  async function giveUpHold() {
    const id = state.hold.id;
    state.hold = null;
    state.gaveUp = true;
    stopCountdown();
    await S.api('DELETE', '/api/v1/holds/' + id, { key }).catch(() => {}); // gone or lapsed: the preview says which
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
        useHold(hold);
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
      S.backButton(detailsBack)));
    step(t('step.details'), el('p', { text: S.when(state.time.startTime, state.time.endTime) }), form);
    const bad = form.querySelector('[aria-invalid="true"]');
    if (bad) bad.focus();
  }

  // detailsBack goes back to the staff step when there was one to see.
  function detailsBack() {
    if (isBasket() || !state.hold || state.staffId || state.slot.staffMemberIds.length <= 1) showTimes();
    else showStaff();
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
    if (isBasket()) {
      showBasketConfirm();
      return;
    }
    const book = el('button', { type: 'button', class: 'primary', 'data-action': 'confirm', text: t('confirm'), onclick: () => confirm(book) });
    const weeks = state.service.repeatWeeks || 0;
    const rows = el('div', null, confirmSummary());
    const dates = weeks >= 2 ? el('div', { class: 'repeat-dates', 'aria-live': 'polite' }) : null;
    state.ui = { book, rows, dates };
    const content = dates ? [rows, repeatField(weeks), dates] : [rows];
    step(t('step.confirm'), ...content, el('div', { class: 'actions' }, book, S.backButton(() => showDetails())));
    if (dates && state.repeat >= 2) chooseRepeat(state.repeat);
  }

  // confirmSummary is the one appointment, or the series, to be booked.
  function confirmSummary() {
    const c = state.customer;
    const staffId = state.hold ? state.hold.staffMemberId : chosenStaff();
    const price = S.money(state.service.priceCents, S.cfg.currency);
    return S.summary([
      ['service', state.service.name],
      ['when', S.when(state.time.startTime, state.time.endTime)],
      ['staff', staffId ? staffName(staffId) : ''],
      ['price', state.repeat >= 2 ? t('price.each', { price: price }) : price],
      ['name', (c.firstName + ' ' + c.lastName).trim()],
      ['email', c.email],
    ]);
  }

  // repeatField is "Repeat weekly": not at all, or 2 to weeks weeks.
  function repeatField(weeks) {
    const select = el('select', { id: 'f-repeat', name: 'repeat', onchange: () => chooseRepeat(Number(select.value)) },
      el('option', { value: '0', text: t('repeat.none') }));
    for (let n = 2; n <= weeks; n++) select.append(el('option', { value: String(n), text: t('repeat.weeks', { n: n }) }));
    select.value = String(state.repeat);
    return el('div', { class: 'field repeat' }, el('label', { for: 'f-repeat', text: t('repeat.label') }), select);
  }

  // chooseRepeat takes the visitor's choice of n weeks (0: one
  // appointment). A series gives the hold up first: the visitor's own
  // hold would refuse its first week. Back at one appointment, the time is
  // booked without a hold.
  async function chooseRepeat(n) {
    state.repeat = n;
    bookingKey = ''; // another booking than a retried click's
    S.alertText('');
    if (n >= 2 && state.hold) state.releasing = giveUpHold();
    await state.releasing;
    state.ui.rows.replaceChildren(confirmSummary());
    await preview();
  }

  // preview asks how each week would be judged now, booking nothing, and
  // lists the dates; the confirm button waits until every one is free. An
  // answer overtaken by another choice is dropped.
  async function preview() {
    const ui = state.ui, seq = ++state.previewSeq;
    state.preview = null;
    ui.book.disabled = state.repeat >= 2;
    ui.book.removeAttribute('aria-describedby');
    if (state.repeat < 2) {
      ui.dates.replaceChildren();
      return;
    }
    ui.dates.replaceChildren(el('p', { text: t('repeat.checking') }));
    let ans;
    try {
      ans = await S.api('POST', '/api/v1/appointment-series/preview', { key, body: seriesBody() });
    } catch (err) {
      if (seq !== state.previewSeq || !ui.book.isConnected) return;
      ui.dates.replaceChildren();
      if (!detailsRefused(err)) seriesRefused(err);
      return;
    }
    if (seq !== state.previewSeq || !ui.book.isConnected) return;
    state.preview = ans.occurrences;
    drawDates(ui, ans.occurrences);
  }

  // drawDates lists the weeks previewed, each free or with the sentence
  // of its refusal, and says what to do when one is not free.
  function drawDates(ui, occ) {
    const length = state.service.durationMinutes * 60e3;
    const ol = el('ol', { class: 'dates', 'aria-label': t('summary.dates') });
    for (const o of occ) {
      const staff = o.ok && o.staffMemberIds.length === 1 ? staffName(o.staffMemberIds[0]) : '';
      ol.append(el('li', { 'data-occurrence': o.startTime, 'data-ok': String(o.ok) },
        S.when(o.startTime, Date.parse(o.startTime) + length) + (staff ? ' · ' + staff : '') + ' · ',
        el('strong', { text: o.ok ? t('repeat.ok') : S.refusal({ code: o.code }) })));
    }
    ui.dates.replaceChildren(ol);
    const ok = occ.every((o) => o.ok);
    ui.book.disabled = !ok;
    if (!ok) {
      ui.dates.append(el('p', { class: 'error', id: 'repeat-note', text: t('repeat.blocked') }));
      ui.book.setAttribute('aria-describedby', 'repeat-note');
    }
  }

  // showBasketConfirm lists every service of the basket with its own time
  // and, where only one person can do it, who; then the total.
  function showBasketConfirm() {
    const c = state.customer;
    const book = el('button', { type: 'button', class: 'primary', 'data-action': 'confirm', text: t('confirm'), onclick: () => confirm(book) });
    const total = chosen().reduce((n, s) => n + s.priceCents, 0);
    step(t('step.confirm'), basketItems(), S.summary([
      ['total', S.money(total, S.cfg.currency)],
      ['name', (c.firstName + ' ' + c.lastName).trim()],
      ['email', c.email],
    ]), el('div', { class: 'actions' }, book, S.backButton(() => showDetails())));
  }

  function basketItems() {
    const ol = el('ol', { class: 'items' });
    chosen().forEach((s, i) => {
      const it = state.slot.items[i];
      const ids = state.staffId ? [state.staffId] : it.staffMemberIds;
      ol.append(el('li', { 'data-item': String(i) }, S.summary([
        ['service', s.name],
        ['when', S.when(it.startTime, it.endTime)],
        ['staff', ids.length === 1 ? staffName(ids[0]) : ''],
        ['price', S.money(s.priceCents, S.cfg.currency)],
      ])));
    });
    return ol;
  }

  // bookingBody is what every booking carries: the customer, how the
  // visitor came (metadata) and their notes.
  function bookingBody() {
    const c = state.customer;
    const customer = { firstName: c.firstName, email: c.email };
    if (c.lastName) customer.lastName = c.lastName;
    if (c.phone) customer.phone = c.phone;
    const body = { customer: customer, metadata: metadata() };
    if (c.notes) body.notes = c.notes;
    return body;
  }

  // chosenStaff is whom the visitor chose, or the page was opened with;
  // null for "anyone".
  function chosenStaff() {
    return state.staffId || (state.pickedStaff && state.time ? state.time.staffMemberId : null);
  }

  // seriesBody is the series shown: weekly from the chosen start, each
  // week with the staff member chosen, else with whoever is free then.
  function seriesBody() {
    const body = Object.assign(bookingBody(), {
      serviceId: state.service.id, startTime: state.time.startTime, rule: 'FREQ=WEEKLY;COUNT=' + state.repeat, onConflict: 'fail',
    });
    if (chosenStaff()) body.staffMemberId = chosenStaff();
    return body;
  }

  // confirm books what the confirm step shows. The Idempotency-Key is
  // kept for the visitor's repeated clicks, so a retry never books twice;
  // a refusal that changes what is shown, or another choice, drops it.
  let bookingKey = '';
  function confirm(button) {
    if (isBasket()) return confirmBasket(button);
    if (state.repeat >= 2) return confirmSeries(button);
    return confirmOne(button);
  }

  // send posts a booking and answers it, or null when it was refused:
  // refused details go back to their step, any other refusal to onRefusal.
  async function send(button, path, body, onRefusal) {
    button.disabled = true;
    bookingKey = bookingKey || S.newKey();
    try {
      return await S.api('POST', path, { key, body, idempotencyKey: bookingKey });
    } catch (err) {
      button.disabled = false;
      if (!detailsRefused(err)) onRefusal(err);
      return null;
    }
  }

  // detailsRefused shows the details step again when the API refused one
  // of them, and says whether it did.
  function detailsRefused(err) {
    const bad = err.status === 400 && err.code === 'VALIDATION_ERROR' ? fieldErrors(err) : {};
    if (Object.keys(bad).length === 0) return false;
    bookingKey = '';
    S.alertText(t('err.fields'));
    showDetails(bad);
    return true;
  }

  // confirmOne books one appointment: with the hold, or, when the hold
  // was given up for a series preview, the same start afresh.
  async function confirmOne(button) {
    if (!state.hold && !state.gaveUp) return;
    const body = bookingBody();
    if (state.hold) {
      body.holdId = state.hold.id;
    } else {
      Object.assign(body, { serviceId: state.service.id, startTime: state.time.startTime });
      if (chosenStaff()) body.staffMemberId = chosenStaff();
    }
    const ans = await send(button, '/api/v1/appointments', body, oneRefused);
    if (!ans) return;
    stopCountdown();
    state.hold = null;
    booked(ans);
  }

  function oneRefused(err) {
    if (err.status === 400 && err.code === 'VALIDATION_ERROR') {
      bookingKey = '';
      S.alertText(t('err.fields'));
      showDetails();
      return;
    }
    fail(err);
    if (err.code === 'HOLD_EXPIRED' || (!state.hold && GONE.includes(err.code))) {
      bookingKey = '';
      stopCountdown();
      state.hold = null;
      refreshTimes();
    }
  }

  async function confirmSeries(button) {
    if (!state.preview || !state.preview.every((o) => o.ok)) return;
    const ans = await send(button, '/api/v1/appointment-series', seriesBody(), seriesRefused);
    if (ans) bookedMany(ans.occurrences);
  }

  // seriesRefused explains a series refused, previewed or booked. A
  // SERIES_CONFLICT (a week taken since the preview) previews again, so
  // the visitor sees which.
  function seriesRefused(err) {
    if (err.status === 400 && err.code === 'VALIDATION_ERROR') {
      bookingKey = '';
      S.alertText(t('repeat.unavailable'));
      S.post('error', { code: err.code });
      return;
    }
    fail(err);
    if (err.code === 'SERIES_CONFLICT') {
      bookingKey = '';
      preview();
    }
  }

  async function confirmBasket(button) {
    const items = chosen().map((s) => (state.staffId ? { serviceId: s.id, staffMemberId: state.staffId } : { serviceId: s.id }));
    const body = Object.assign(bookingBody(), { startTime: state.slot.startTime, items: items });
    const ans = await send(button, '/api/v1/baskets', body, basketRefused);
    if (ans) bookedMany(ans.appointments);
  }

  // basketRefused explains a basket refused: an item's own refusal (the
  // times shown are out of date, so they are loaded again), or services
  // that may not be booked together (a business that takes payment in
  // advance, which the page cannot see).
  function basketRefused(err) {
    if (err.status === 400 && err.code === 'VALIDATION_ERROR') {
      S.alertText(t('err.basket'));
      S.post('error', { code: err.code });
      return;
    }
    fail(err);
    if (err.status !== 0 && err.status !== 429) {
      bookingKey = '';
      refreshTimes();
    }
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

  // postBooked tells the host page of one appointment booked.
  function postBooked(a) {
    S.post('booked', {
      appointmentId: a.id, startTime: a.startTime, endTime: a.endTime,
      serviceId: a.service.id, staffMemberId: a.staffMember ? a.staffMember.id : null, status: a.status,
    });
  }

  // bookedRows are an appointment booked, as the done step shows it.
  function bookedRows(a) {
    return S.summary([
      ['service', a.service.name],
      ['when', S.when(a.startTime, a.endTime)],
      ['staff', a.staffMember ? a.staffMember.name : ''],
      ['price', S.money(a.totalPriceCents != null ? a.totalPriceCents : a.service.priceCents, a.currency || S.cfg.currency)],
    ]);
  }

  // bookedMany shows every appointment of a basket or a series. The host
  // page hears one 'booked' per appointment, each as a single booking's
  // (never pending_payment: neither may be paid in advance).
  function bookedMany(list) {
    const ol = el('ol', { class: 'booked' });
    for (const a of list) {
      postBooked(a);
      ol.append(el('li', { 'data-appointment': a.id }, bookedRows(a)));
    }
    step(t('step.done.many'), ol, el('p', { text: t('done.body.many', { email: list[0].customer.email }) }));
  }

  function booked(ans) {
    const a = ans.appointment;
    postBooked(a);
    const rows = bookedRows(a);
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
