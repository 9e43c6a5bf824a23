package mail

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// TestSkeletonIsTheComposedMessage: a message filled into its kind's
// skeleton is, byte for byte, the message composed from its strings up,
// for rows of every kind with values of every shape: present or absent,
// escaped in HTML, long enough to break a quoted-printable line at any
// place around a hole, not ASCII, starting a line with "From ".
func TestSkeletonIsTheComposedMessage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	word := func() string {
		return pick("", "Ana", "Zoë", "From here", "Tom & <Jerry>", "=3D", "x", "a very long name that goes on and on past the end of a quoted-printable line for sure",
			strings.Repeat("é", rng.IntN(60)), strings.Repeat("w", rng.IntN(90)), "trailing ", "  two  spaces\tand a tab ")
	}
	statuses := []string{"confirmed", "pending_payment", "cancelled", "completed", "no_show", "some_new_status", ""}
	kinds := []string{model.MailConfirmation, model.MailConfirmation, model.MailStatus, model.MailStatus, model.MailWaitlistOffer, model.MailEndpointDisabled, "some_new_kind"}
	for i := range 3000 {
		start := time.Date(2026, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 15*rng.IntN(4), 0, 0, time.UTC)
		r := &record.MailRow{ID: "01JSKEL" + strings.Repeat("A", i%5), Kind: pick(kinds...), To: "ana@example.com", At: testAt,
			Locale:   pick("", "en", "xx"),
			Business: record.MailBusiness{ID: testBiz.String(), Name: word(), Timezone: pick("", "Europe/Amsterdam", "America/New_York", "Nowhere/Else")}}
		if rng.IntN(10) > 0 {
			r.Appointment = &record.MailAppointment{ID: "a", Status: pick(statuses...), StartTime: start,
				EndTime:  start.Add(time.Duration(rng.IntN(3000)) * time.Minute),
				Customer: record.MailPerson{FirstName: word()},
				Service:  record.MailService{Name: word(), DurationMinutes: rng.IntN(3) * 30, PriceCents: rng.IntN(3) * 1250},
				Currency: pick("EUR", "USD", "JPY", "KWD", "", "abc")}
			if rng.IntN(2) == 0 {
				r.Appointment.StaffMember = &record.MailStaff{Name: word()}
			}
			if rng.IntN(2) == 0 {
				r.Appointment.DepositCents = ptr(rng.IntN(3) * 500)
			}
			if rng.IntN(2) == 0 {
				r.Appointment.TotalPriceCents = ptr(rng.IntN(100000000))
			}
			r.Appointment.BookingReference = json.RawMessage(pick(``, `"BK-1"`, `42`, `"a \"quoted\" ref"`, `null`))
			if rng.IntN(8) == 0 {
				r.Appointment.StartTime = time.Time{}
			}
		}
		if rng.IntN(3) == 0 {
			r.Payment = &record.MailPayment{AmountCents: rng.IntN(100000), Currency: "EUR", CheckoutURL: pick("", "https://pay.example/c/123?a=<b>&c=d", word())}
		}
		if rng.IntN(2) == 0 {
			r.ManageURL = pick("https://book.example/manage/"+strings.Repeat("Ab9_-", 13), word())
		}
		if r.Kind == model.MailWaitlistOffer && rng.IntN(5) > 0 {
			r.Offer = &record.MailOffer{HoldID: "hold-" + word(), ExpiresAt: start.Add(-time.Hour)}
		}
		if r.Kind == model.MailEndpointDisabled && rng.IntN(5) > 0 {
			r.Endpoint = &record.MailEndpoint{ID: "ep", URL: "https://crm.example/" + word(), ConsecutiveFailures: 10}
		}
		slow, slowErr := renderRow(r, "", false)
		fast, fastErr := renderRow(r, "", true)
		require.Equal(t, slowErr, fastErr, "row %d", i)
		if slowErr != nil {
			continue
		}
		require.Equal(t, slow.Subject, fast.Subject, "row %d: %+v", i, r)
		require.Equal(t, slow.Text(), fast.Text(), "row %d: %+v", i, r)
		require.Equal(t, slow.HTML(), fast.HTML(), "row %d: %+v", i, r)
		require.Equal(t, string(slow.Bytes()), string(fast.Bytes()), "row %d: %+v", i, r)
		require.Equal(t, string(appendMboxrd(nil, slow)), string(appendMboxrd(nil, fast)), "row %d", i)
	}
	skeletons.RLock()
	n := len(skeletons.m)
	skeletons.RUnlock()
	require.Positive(t, n, "the skeletons were used")
}
