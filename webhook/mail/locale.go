package mail

import "strings"

// DefaultLocale is the locale used when a row names none or one the table
// does not have.
const DefaultLocale = "en"

// locales holds every user-visible string, keyed by locale and then by
// message key. Values may hold {placeholders}, filled by locale.get. A key
// missing from a locale falls back to DefaultLocale, so a new locale can be
// added piecemeal; TestLocaleKeys checks that every locale only uses keys
// that English has.
//
// Keys:
//
//	subject.<status>, intro.<status>  a status change to that status
//	subject.status, intro.status      a status change to any other status
//	intro.booking                     a new, confirmed booking
//	subject.pending_payment, intro.pending_payment
//	                                  a new booking waiting for payment
//	pay.amount, pay.link, pay.instructions
//	                                  a payment request's amount and link
//	manage.link                       the customer's manage link
//	subject.waitlist_offer, intro.waitlist_offer(.anyone),
//	howto.waitlist_offer, details.waitlist_offer, offer.service,
//	label.held_until, label.offer_reference
//	                                  a waitlist offer: a held time, with
//	                                  or without a named staff member
//	subject.reminder, intro.reminder  a reminder of a confirmed appointment
//	subject.generic, intro.generic    a kind this package does not know
//	kind.<kind>                       words for a kind (default: the kind
//	                                  with "_" as spaces)
//	status.<status>                   words for a status
//	date, time, when, when.multiday, moment
//	                                  date and time layouts
//	weekday.0-6 (Sunday first), month.1-12
//	money, money.code, number.*       amounts
var locales = map[string]map[string]string{
	"en": {
		"subject.confirmed":       "Your appointment at {business} is confirmed",
		"subject.pending_payment": "Please complete your payment for your appointment at {business}",
		"subject.cancelled":       "Your appointment at {business} has been cancelled",
		"subject.completed":       "Your appointment at {business} has been completed",
		"subject.no_show":         "Your appointment at {business} was marked as a no-show",
		"subject.status":          "Your appointment at {business} is now {status}",
		"subject.generic":         "Notification from {business}: {kind}",

		"intro.booking":            "Thank you for booking with {business}. Your appointment is confirmed.",
		"subject.series":           "Your {count} appointments at {business} are confirmed",
		"intro.series":             "Thank you for booking with {business}. These appointments are confirmed:",
		"series.date":              "– {when}",
		"series.date.link":         "– {when}; to cancel or change it: {url}",
		"subject.series_cancelled": "{count} of your appointments at {business} have been cancelled",
		"intro.series_cancelled":   "These appointments at {business} have been cancelled:",
		"subject.basket":           "Your {count} appointments at {business} are confirmed",
		"intro.basket":             "Thank you for booking with {business}. These appointments are confirmed, one after the other:",
		"basket.item":              "– {service}: {when}",
		"basket.item.staff":        "– {service} with {staff}: {when}",
		"basket.item.link":         "{item}; to cancel or change it: {url}",
		"subject.basket_cancelled": "Your appointments at {business} have been cancelled",
		"intro.basket_cancelled":   "These appointments at {business} have been cancelled:",
		"intro.pending_payment":    "Thank you for booking with {business}. Your appointment will be confirmed as soon as your payment has been received.",
		"intro.confirmed":          "Your appointment at {business} is confirmed.",
		"pay.amount":               "Amount to pay: {amount}.",
		"pay.link":                 "Pay securely here: {url}",
		"pay.instructions":         "Please complete the payment where you made the booking.",
		"manage.link":              "To cancel or change your appointment, use this link: {url}",
		"intro.cancelled":          "Your appointment at {business} has been cancelled. If this is unexpected, please contact {business}.",
		"intro.completed":          "Your appointment at {business} has been completed. Thank you for your visit.",
		"intro.no_show":            "Your appointment at {business} was marked as a no-show. If you think this is a mistake, please contact {business}.",
		"intro.status":             "The status of your appointment at {business} is now: {status}.",
		"intro.generic":            "This is an automatic notification from {business}: {kind}.",

		"kind.endpoint_disabled": "a webhook endpoint has been disabled",

		"subject.reminder": "Reminder: your appointment at {business} on {when}",
		"intro.reminder":   "This is a reminder of your appointment at {business} on {when}. We look forward to seeing you.",

		"subject.waitlist_offer":      "A time at {business} has become free for you",
		"intro.waitlist_offer":        "Good news: the {service} on {when} with {staff} has become free, and {business} is holding it for you until {expires}.",
		"intro.waitlist_offer.anyone": "Good news: the {service} on {when} has become free, and {business} is holding it for you until {expires}.",
		"howto.waitlist_offer":        "To take it, reply to {business} or book through their booking page before {expires}, quoting the offer reference below. After that, the time is offered to the next person on the waiting list.",
		"offer.service":               "appointment",
		"details.waitlist_offer":      "The time held for you",
		"label.held_until":            "Held until",
		"label.offer_reference":       "Offer reference",

		"subject.endpoint_disabled": "A webhook endpoint of {business} has been disabled",
		"intro.endpoint_disabled":   "The webhook endpoint {url} of {business} has been disabled after {failures} deliveries in a row failed every attempt. Events that happen while it is disabled will not be sent to it later.",
		"howto.endpoint_disabled":   "Once the endpoint answers again, switch it back on by sending isActive true to PATCH /api/v1/webhooks/{id}, and catch up on missed changes with updatedSince on the resource lists.",

		"status.pending_payment": "awaiting payment",
		"status.confirmed":       "confirmed",
		"status.cancelled":       "cancelled",
		"status.completed":       "completed",
		"status.no_show":         "a no-show",

		"greeting":           "Hello {name},",
		"greeting.anonymous": "Hello,",
		"details":            "Appointment details",
		"label.when":         "When",
		"label.service":      "Service",
		"label.staff":        "With",
		"label.price":        "Price",
		"label.deposit":      "Deposit",
		"label.status":       "Status",
		"label.reference":    "Reference",
		"duration":           "{service} ({minutes} min)",
		"closing":            "Kind regards,",
		"footer":             "This is an automatic message sent on behalf of {business}.",

		"date":          "{weekday} {day} {month} {year}",
		"time":          "{hour}:{minute}",
		"when":          "{date}, {start}–{end} ({zone})",
		"when.multiday": "{date}, {start} – {enddate}, {end} ({zone})",
		"moment":        "{date}, {time} ({zone})",
		"weekday.0":     "Sunday",
		"weekday.1":     "Monday",
		"weekday.2":     "Tuesday",
		"weekday.3":     "Wednesday",
		"weekday.4":     "Thursday",
		"weekday.5":     "Friday",
		"weekday.6":     "Saturday",
		"month.1":       "January",
		"month.2":       "February",
		"month.3":       "March",
		"month.4":       "April",
		"month.5":       "May",
		"month.6":       "June",
		"month.7":       "July",
		"month.8":       "August",
		"month.9":       "September",
		"month.10":      "October",
		"month.11":      "November",
		"month.12":      "December",

		"money":          "{symbol}{amount}",
		"money.code":     "{code} {amount}",
		"money.free":     "free",
		"number.decimal": ".",
		"number.group":   ",",
	},
}

// locale is one row of the table with English behind it.
type locale struct {
	name    string
	strings map[string]string
}

func localeFor(name string) locale {
	if m, ok := locales[name]; ok {
		return locale{name: name, strings: m}
	}
	return locale{name: DefaultLocale, strings: locales[DefaultLocale]}
}

// has reports whether key exists in this locale or in the default one.
func (l locale) has(key string) bool {
	if _, ok := l.strings[key]; ok {
		return true
	}
	_, ok := locales[DefaultLocale][key]
	return ok
}

// get returns the string for key with each {name} replaced by the value
// following it in kv. Values are inserted as they are, in one pass, so a
// value that itself looks like a placeholder stays as it is. A key missing
// everywhere is a programming error; it yields the key itself so that the
// tests notice.
func (l locale) get(key string, kv ...string) string {
	s, ok := l.strings[key]
	if !ok {
		if s, ok = locales[DefaultLocale][key]; !ok {
			return key
		}
	}
	if len(kv) == 0 {
		return s
	}
	return fill(s, kv)
}

// fill replaces each {name} in s whose name is a key of kv (the first
// such key wins) by the value following it, in one pass. It does what a
// strings.Replacer of the pairs does, without building one per message:
// that was 8 % of slotd's CPU in a booking storm (issue 22).
func fill(s string, kv []string) string {
	var b strings.Builder
	b.Grow(len(s) + 32)
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		if j := strings.IndexByte(s, '}'); j > 0 {
			if v, ok := lookup(kv, s[1:j]); ok {
				b.WriteString(v)
				s = s[j+1:]
				continue
			}
		}
		b.WriteByte('{')
		s = s[1:]
	}
}

// lookup returns the value following name in kv.
func lookup(kv []string, name string) (string, bool) {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == name {
			return kv[i+1], true
		}
	}
	return "", false
}
