package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestClusterLargeBusinessTakeOver: a business of 100,000 appointments in
// cluster mode — its world entry one write of tens of megabytes, its
// snapshots far over NATS's default payload — is loaded, written to, and
// taken over by a survivor when its node is killed, with every
// appointment and every acknowledged booking there. The take-over time is
// logged (docs/cluster.md quotes it).
func TestClusterLargeBusinessTakeOver(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	const appts = 100_000
	file := filepath.Join(t.TempDir(), "large.json")
	writeLargeWorld(t, file, appts)
	procs := startNodesWorld(t, bin, 3, file)
	victim := ownerOf(t, procs, largeKey)

	// Writes after the load: enough for the business actor to snapshot
	// (it snapshots once the journal since the last outweighs a quarter
	// of the state) is too many for a test; a few bookings show the
	// writes go on and survive the take-over.
	var acked []string
	for i := range 20 {
		start := time.Date(2029, 1, 8, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i/5*7).Add(time.Duration(i%5) * time.Hour)
		status, body, _, err := largeCall("POST", victim.pub, "/api/v1/appointments",
			fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"customer":{"firstName":"Late","email":"late%d@example.com"}}`,
				largeService.String(), start.Format(time.RFC3339), i), "Idempotency-Key", fmt.Sprintf("large-%d", i))
		require.NoError(t, err)
		require.Equal(t, 201, status, "%v", body)
		acked = append(acked, body["appointment"].(map[string]any)["id"].(string))
	}

	var survivor *clusterProc
	for _, p := range procs {
		if p != victim {
			survivor = p
		}
	}
	require.NoError(t, victim.cmd.Process.Kill())
	killed := time.Now()
	require.Eventually(t, func() bool {
		status, _, _, err := largeCall("GET", survivor.pub, "/api/v1/me", "")
		return err == nil && status == 200
	}, 120*time.Second, 50*time.Millisecond, "the large business never answered again")
	t.Logf("take-over of a business of %d appointments: answered on %s %v after its node was killed", appts, survivor.name, time.Since(killed).Round(time.Millisecond))

	for _, id := range acked {
		status, _, _, err := largeCall("GET", survivor.pub, "/api/v1/appointments/"+id, "")
		require.NoError(t, err)
		require.Equal(t, 200, status, "acknowledged booking %s", id)
	}
	// The imported appointments are all there: the last of them by id.
	status, _, _, err := largeCall("GET", survivor.pub, "/api/v1/appointments/"+largeAppointment(appts-1).String(), "")
	require.NoError(t, err)
	require.Equal(t, 200, status)
}

var (
	largeBusiness = uuid.MustParse("5a1e0000-0000-4000-8000-000000000001")
	largeService  = uuid.MustParse("5a1e0000-0000-4000-8000-000000000002")
	largeCustomer = uuid.MustParse("5a1e0000-0000-4000-8000-000000000003")
	largeCategory = uuid.MustParse("5a1e0000-0000-4000-8000-000000000004")
)

const largeKey = "sk_large_business_full"

func largeStaff(s int) uuid.UUID { return uuid.NewSHA1(largeBusiness, fmt.Appendf(nil, "staff %d", s)) }
func largeAppointment(k int) uuid.UUID {
	return uuid.NewSHA1(largeBusiness, fmt.Appendf(nil, "appointment %d", k))
}

// writeLargeWorld writes a world of one business with n appointments of
// 30 minutes: 20 staff, 16 a weekday each, from 2027-01-04 on.
func writeLargeWorld(t *testing.T, path string, n int) {
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	const staff = 20
	fmt.Fprintf(w, `{"businesses":[{"id":%q,"name":"Large Salon","timezone":"UTC","currency":"EUR","plan":"zakelijk",`+
		`"modules":["appointments","customers","webhooks","payments"],"ownerEmail":"owner@large.example","assignment":"first_available",`+
		`"closedDates":[],"bookingRules":{"minNoticeMinutes":0,"maxAdvanceDays":1000,"slotIntervalMinutes":30,"requireExistingCustomer":false,`+
		`"restrictedPeriods":[],"preventGaps":false,"minGapMinutes":30},"apiKeys":[{"key":%q,"scopes":["appointments:read","appointments:write",`+
		`"customers:read","customers:write","services:read","staff:read"],"revoked":false,"expiresAt":null,"limits":{"perMinute":100000,"perHour":1000000,"mutationsPerMinute":100000}}],`+
		`"categories":[{"id":%q,"name":"Everything","parentId":null,"position":0}],"services":[{"id":%q,"name":"Cut","description":null,"durationMinutes":30,"priceCents":3000,"isActive":true,"categoryId":%q,`+
		`"paymentRequired":false,"depositCents":null,"imageUrl":null,"deleted":false,"segments":[],"pricingRules":[]}],"staff":[`,
		largeBusiness, largeKey, largeCategory, largeService, largeCategory)
	for s := range staff {
		if s > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, `{"id":%q,"name":"Staff %d","isActive":true,"isBookable":true,"assignedServiceIds":[%q],"hours":{`+
			`"mon":[["09:00","17:00"]],"tue":[["09:00","17:00"]],"wed":[["09:00","17:00"]],"thu":[["09:00","17:00"]],`+
			`"fri":[["09:00","17:00"]],"sat":[],"sun":[]},"exceptions":[]}`, largeStaff(s), s, largeService)
	}
	fmt.Fprintf(w, `],"customers":[{"id":%q,"firstName":"Regular","lastName":"Customer","email":"regular@large.example","phone":"+31600000000"}],"appointments":[`, largeCustomer)
	day := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	for k := range n {
		perDay := staff * 16
		d, slot := k/perDay, k%perDay
		date := day.AddDate(0, 0, d/5*7+d%5) // weekdays only
		start := date.Add(time.Duration(slot%16) * 30 * time.Minute)
		if k > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, `{"id":%q,"customerId":%q,"serviceId":%q,"staffMemberId":%q,"startTime":%q,"status":"confirmed","notes":null,"recurringSeriesId":null,"isRecurringOccurrence":false}`,
			largeAppointment(k), largeCustomer, largeService, largeStaff(slot/16), start.Format(time.RFC3339))
	}
	w.WriteString(`],"recurringSeries":[]}]}`)
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// startNodesWorld is startNodes with another world file.
func startNodesWorld(t *testing.T, bin string, n int, world string) []*clusterProc {
	return startNodes(t, bin, n, false, "--world", world)
}

// largeCall is clusterCall with the large business's key.
func largeCall(method, base, path, body string, headers ...string) (int, map[string]any, http.Header, error) {
	return clusterCallKey(largeKey, method, base, path, body, headers...)
}
