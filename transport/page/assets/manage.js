// manage.js: the customer's own page for one booking (decisions §7),
// reached from the link in their confirmation. It shows the booking and,
// when the business's setting allows it now, Cancel and Change the time,
// through the manage endpoints: the link's token is the only credential.
'use strict';
(function () {
  const S = window.slotd;
  const { t, el, step } = S;
  const base = '/api/v1/manage/' + encodeURIComponent(S.cfg.token);
  const HORIZON = 28;
  let view = null;

  async function load() {
    try {
      view = await S.api('GET', base);
    } catch (err) {
      failed(err);
      return;
    }
    show();
  }

  // failed says why an action was refused; without a booking to show
  // (an unknown link), the sentence is the page.
  function failed(err) {
    if (!view) {
      step(S.refusal(err));
      return;
    }
    S.alertText(S.refusal(err));
  }

  function show() {
    const a = view.appointment;
    const rows = S.summary([
      ['service', a.service.name],
      ['when', S.when(a.startTime, a.endTime)],
      ['staff', a.staffMember ? a.staffMember.name : ''],
      ['status', t('status.' + a.status)],
    ]);
    const content = [rows];
    const actions = el('div', { class: 'actions' });
    if (view.canCancel) {
      content.push(el('p', { text: t('manage.cancel.until', { when: S.when(view.cancelBefore) }) }));
      actions.append(el('button', { type: 'button', class: 'danger', 'data-action': 'cancel', text: t('manage.cancel'), onclick: askCancel }));
    }
    if (view.canReschedule) {
      content.push(el('p', { text: t('manage.reschedule.until', { when: S.when(view.rescheduleBefore) }) }));
      actions.append(el('button', { type: 'button', class: 'secondary', 'data-action': 'reschedule', text: t('manage.reschedule'), onclick: showDays }));
    }
    if (!view.canCancel && !view.canReschedule && (a.status === 'confirmed' || a.status === 'pending_payment')) {
      content.push(el('p', { text: t('manage.fixed', { business: S.cfg.businessName }) }));
    }
    if (actions.childElementCount) content.push(actions);
    step(t('manage.heading'), ...content);
  }

  function askCancel() {
    S.alertText('');
    step(t('manage.cancel.ask'),
      el('p', { text: S.when(view.appointment.startTime, view.appointment.endTime) }),
      el('div', { class: 'actions' },
        el('button', { type: 'button', class: 'danger', 'data-action': 'cancel-yes', text: t('manage.cancel.yes'), onclick: (e) => cancel(e.target) }),
        el('button', { type: 'button', class: 'secondary', 'data-action': 'cancel-no', text: t('manage.cancel.no'), onclick: show })));
  }

  async function cancel(button) {
    button.disabled = true;
    try {
      view = await S.api('POST', base + '/cancel');
    } catch (err) {
      button.disabled = false;
      await refresh();
      failed(err);
      S.post('error', { code: err.code });
      return;
    }
    show();
    S.alertText(t('manage.cancelled'), true);
  }

  // refresh reloads the booking after a refusal: what it allows may have
  // changed since the page was opened.
  async function refresh() {
    try {
      view = await S.api('GET', base);
      show();
    } catch (err) {
      failed(err);
    }
  }

  let days = [], slots = [], freeDays = new Set(), day = null;

  async function showDays() {
    S.alertText('');
    step(t('step.day'), el('p', { text: t('loading') }));
    const now = S.now();
    days = S.days(now, HORIZON);
    const end = Math.min(days[HORIZON - 1].start + 36 * 3600e3, now + 31 * 86400e3);
    try {
      const q = new URLSearchParams({ from: S.iso(now), to: S.iso(end - 1000) });
      slots = (await S.api('GET', base + '/slots?' + q)).data;
    } catch (err) {
      await refresh();
      failed(err);
      return;
    }
    freeDays = new Set(slots.map((s) => S.dayKey(Date.parse(s.startTime))));
    drawDays();
  }

  function drawDays() {
    const content = [];
    if (freeDays.size === 0) content.push(el('p', { class: 'empty', text: t('no.days') }));
    content.push(S.dayGrid(days, freeDays, day, (d) => { day = d; drawTimes(); }));
    content.push(el('div', { class: 'actions' }, el('button', { type: 'button', class: 'secondary', 'data-action': 'keep', text: t('manage.keep'), onclick: show })));
    step(t('step.day'), ...content);
  }

  function drawTimes() {
    const list = slots.filter((s) => S.dayKey(Date.parse(s.startTime)) === day);
    step(t('step.time'), S.zoneNote(),
      list.length ? S.timeList(list, askMove) : el('p', { class: 'empty', text: t('no.times') }),
      el('div', { class: 'actions' }, S.backButton(drawDays)));
  }

  function askMove(slot) {
    const label = S.when(slot.startTime, slot.endTime);
    step(t('manage.reschedule'), el('p', { text: label }), el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'primary', 'data-action': 'move', text: t('manage.reschedule.confirm', { when: label }), onclick: (e) => move(e.target, slot) }),
      S.backButton(drawTimes)));
  }

  async function move(button, slot) {
    button.disabled = true;
    try {
      view = await S.api('POST', base + '/reschedule', { body: { startTime: slot.startTime } });
    } catch (err) {
      button.disabled = false;
      failed(err);
      S.post('error', { code: err.code });
      return;
    }
    show();
    S.alertText(t('manage.moved'), true);
  }

  load();
})();
