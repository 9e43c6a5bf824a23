package world

import (
	"net/url"
	"slices"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// profile reads the business's own members into b.spec.Business and
// reports whether its id was valid.
func (b *business) profile(o input.Object) bool {
	biz := &b.spec.Business
	var idOK bool
	biz.ID, idOK = o.UUID("id", input.Required)
	biz.Name, _ = o.String("name", input.Required, maxName)
	biz.Timezone = b.timezone(o)
	biz.Currency = b.currency(o)
	biz.Plan = b.plan(o)
	biz.Modules = b.modules(o)
	biz.OwnerEmail, _ = o.Email("ownerEmail", input.Optional)
	biz.Assignment = model.LeastBusy
	if a, ok := o.Option("assignment", input.Optional,
		string(model.LeastBusy), string(model.RoundRobin), string(model.FirstAvailable)); ok {
		biz.Assignment = model.Assignment(a)
	}
	biz.ClosedDates = b.closedDates(o)
	biz.Rules = b.rules(o)
	biz.Payments = b.payments(o)
	biz.Changes = b.customerChanges(o)
	if lo, ok := o.Object("bookingLimits", input.Optional); ok {
		biz.Limits = &model.StaffLimits{PerStaffPerDay: limit(lo, "perStaffPerDay"), PerStaffPerWeek: limit(lo, "perStaffPerWeek")}
		lo.Done()
	}
	biz.Reminders = b.reminders(o)
	return idOK
}

// reminders reads the business's reminders (decisions §9): at most three,
// each an offset of 10 minutes to 7 days and a channel, no offset and
// channel twice. Absent or empty: none.
func (b *business) reminders(o input.Object) []model.Reminder {
	arr, ok := o.Array("reminders", input.Optional)
	if !ok || arr.Len() == 0 {
		return nil
	}
	if arr.Len() > model.MaxReminders {
		b.errs.AddBound(o.PathOf("reminders"), problem.TooLarge, model.MaxReminders, "At most 3 reminders.")
		return nil
	}
	var list []model.Reminder
	eachObject(arr, func(ro input.Object) {
		off, offOK := ro.Int("offsetMinutes", input.Required, model.MinReminderOffset, model.MaxReminderOffset)
		ch, chOK := ro.Option("channel", input.Required, model.ReminderEmail, model.ReminderWebhook)
		if !offOK || !chOK {
			return
		}
		r := model.Reminder{OffsetMinutes: off, Channel: ch}
		if slices.Contains(list, r) {
			b.errs.Add(ro.Path(), problem.Invalid, "The same offset and channel are given twice.")
			return
		}
		list = append(list, r)
	})
	return list
}

// limit reads one count of a bookingLimits object (decisions §9): 1 to
// 1000, or null or absent for none.
func limit(o input.Object, key string) *int {
	n, _ := o.NullableInt(key, 1, model.MaxBookingLimit)
	return n
}

// customerChanges reads what customers may change through their manage
// links (decisions §7); absent, the defaults (nil).
func (b *business) customerChanges(o input.Object) *model.CustomerChanges {
	co, ok := o.Object("customerChanges", input.Optional)
	if !ok {
		return nil
	}
	c := model.DefaultCustomerChanges()
	boolOr(co, "allowCancel", &c.AllowCancel)
	boolOr(co, "allowReschedule", &c.AllowReschedule)
	intOr(co, "cancelMinNoticeMinutes", 0, 3650*maxDay, &c.CancelMinNoticeMinutes)
	intOr(co, "rescheduleMinNoticeMinutes", 0, 3650*maxDay, &c.RescheduleMinNoticeMinutes)
	if n, ok := co.NullableInt("maxReschedules", 0, 1000); ok {
		c.MaxReschedules = n
	}
	co.Done()
	return &c
}

// timezone must name an IANA zone. "Local" is refused: it would make the
// business's hours depend on the machine the server runs on.
func (b *business) timezone(o input.Object) string {
	tz, ok := o.String("timezone", input.Required, 100)
	if !ok {
		return ""
	}
	if _, err := model.Zone(tz); err != nil || tz == "Local" {
		b.errs.Add(o.PathOf("timezone"), problem.InvalidOption, "Must be an IANA time zone name like Europe/Amsterdam.")
	}
	return tz
}

func (b *business) currency(o input.Object) string {
	c, ok := o.String("currency", input.Required, 3)
	if ok && !(len(c) == 3 && isUpper(c[0]) && isUpper(c[1]) && isUpper(c[2])) {
		b.errs.Add(o.PathOf("currency"), problem.InvalidFormat, "Must be three upper-case letters (ISO 4217), like EUR.")
	}
	return c
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// plan accepts any slug: an unrecognised plan gets Groei's quotas rather
// than failing the load, so new plans can be named before code knows them.
func (b *business) plan(o input.Object) model.Plan {
	p, ok := o.String("plan", input.Required, 40)
	if ok && !isSlug(p) {
		b.errs.Add(o.PathOf("plan"), problem.InvalidFormat, "Must be a lower-case slug of letters, digits, '_' and '-'.")
	}
	return model.Plan(p)
}

func isSlug(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// modules defaults to all of them when absent; an empty list means none.
func (b *business) modules(o input.Object) []model.Module {
	arr, ok := o.Array("modules", input.Optional)
	if !ok {
		return append([]model.Module{}, model.AllModules...) // never alias the package's slice
	}
	names := make([]string, len(model.AllModules))
	for i, m := range model.AllModules {
		names[i] = string(m)
	}
	mods := []model.Module{}
	for _, m := range b.distinctOptions(arr, names) {
		mods = append(mods, model.Module(m))
	}
	return mods
}

func (b *business) closedDates(o input.Object) []model.Date {
	arr, _ := o.Array("closedDates", input.Optional)
	return distinct(b.errs, arr, func(i int) (model.Date, bool) { return b.dateAt(arr, i) })
}

func (b *business) rules(o input.Object) model.BookingRules {
	r := model.DefaultRules()
	r.RestrictedPeriods = []model.Period{}
	ro, ok := o.Object("bookingRules", input.Optional)
	if !ok {
		return r
	}
	intOr(ro, "minNoticeMinutes", 0, 3650*maxDay, &r.MinNoticeMinutes)
	intOr(ro, "maxAdvanceDays", 1, 3650, &r.MaxAdvanceDays)
	intOr(ro, "slotIntervalMinutes", 1, maxDay, &r.SlotIntervalMinutes)
	boolOr(ro, "requireExistingCustomer", &r.RequireExistingCustomer)
	r.RestrictedPeriods = b.periods(ro)
	boolOr(ro, "preventGaps", &r.PreventGaps)
	intOr(ro, "minGapMinutes", 0, maxDay, &r.MinGapMinutes)
	ro.Done()
	return r
}

func (b *business) periods(o input.Object) []model.Period {
	arr, _ := o.Array("restrictedPeriods", input.Optional)
	periods := []model.Period{}
	eachObject(arr, func(po input.Object) {
		from, ok1 := po.Time("from", input.Required)
		to, ok2 := po.Time("to", input.Required)
		if ok1 && ok2 && !from.Before(to) {
			b.errs.Add(po.PathOf("to"), problem.Invalid, "Must be later than from.")
		}
		periods = append(periods, model.Period{From: from, To: to})
	})
	return periods
}

func (b *business) payments(o input.Object) model.Payments {
	p := model.Payments{HoldMinutes: 15}
	po, ok := o.Object("payments", input.Optional)
	if !ok {
		return p
	}
	// A null (or absent) provider means none connected, stored as "".
	if prov, _ := po.NullableString("provider", maxShort); prov != nil {
		if !model.Providers.Has(*prov) {
			b.errs.Add(po.PathOf("provider"), problem.InvalidOption, "Must be null, redirect or client_secret.")
		}
		p.Provider = *prov
	}
	boolOr(po, "requiresPayment", &p.RequiresPayment)
	intOr(po, "holdMinutes", 1, maxDay, &p.HoldMinutes)
	p.BaseURL = b.httpURL(po, "baseUrl")
	p.APIKey, _ = po.String("apiKey", input.Optional, maxSecret)
	p.WebhookSecret, _ = po.String("webhookSecret", input.Optional, maxSecret)
	p.ReturnURL = b.httpURL(po, "returnUrl")
	po.Done()
	return p
}

// httpURL reads an optional absolute http or https URL, or "". Whether plain http
// and private addresses may be reached is decided when slotd connects
// (--webhooks-allow-insecure), as for webhook endpoints.
func (b *business) httpURL(o input.Object, key string) string {
	s, ok := o.String(key, input.Optional, maxURL)
	if !ok || s == "" {
		return "" // "" is none, as the example world file writes it
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		b.errs.Add(o.PathOf(key), problem.InvalidURL, "Must be an absolute http or https URL without credentials.")
		return ""
	}
	return s
}

// intOr overwrites *dst with an optional member when it is present and
// valid, leaving the default otherwise.
func intOr(o input.Object, key string, min, max int, dst *int) {
	if v, ok := o.Int(key, input.Optional, min, max); ok {
		*dst = v
	}
}

func boolOr(o input.Object, key string, dst *bool) {
	if v, ok := o.Bool(key, input.Optional); ok {
		*dst = v
	}
}
