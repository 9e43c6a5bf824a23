package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The defaults are issue 11's sizes: a bare `go run ./bench/harness`
// reproduces its table.
func TestDefaultsAreTheIssuesSizes(t *testing.T) {
	o, err := parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, defaults(), o)
	assert.Equal(t, 200, o.Businesses)
	assert.Equal(t, 20, o.Staff)
	assert.Equal(t, 2000, o.Appointments)
	assert.Equal(t, 60_000, o.Queries)
	assert.Equal(t, 64, o.StormConnections)
	assert.Equal(t, 64, o.RaceClients)
	assert.Equal(t, 50, o.RaceSlots)
	assert.Equal(t, clientCounts{16, 64}, o.PostgresClients)
	assert.Equal(t, 10_000, o.LoadBusinesses)
	assert.Equal(t, 1_000_000, o.LoadAppointments)
	assert.Equal(t, "auto", o.Postgres)
	assert.True(t, o.LoadPhase)
	// Issue 23's phases.
	assert.True(t, o.Mixed)
	assert.Equal(t, 30*time.Second, o.MixedDuration)
	assert.Equal(t, 64, o.MixedConnections)
	assert.True(t, o.SMTPStorm)
	assert.True(t, o.Tenancy)
	assert.Equal(t, 100_000, o.TenancyBusinesses)
	assert.Equal(t, 10_000, o.TenancyTouch)
	assert.Equal(t, 10, o.TenancyAppointments)
	// Issue 42's.
	assert.True(t, o.Series)
	assert.Equal(t, 300, o.SeriesN)
	// Issue 43's.
	assert.True(t, o.StormNew)
	assert.Equal(t, 2000, o.TenancyMaxResident)
	assert.Equal(t, 5000, o.TenancyIdleTouch)

	// 60,000 queries over 200 businesses × 3 services: 100 window starts.
	assert.Equal(t, 100, o.mainWorld().WindowDays)
	assert.Equal(t, 100, o.loadWorld().Appointments)
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{
		"-businesses", "3", "-staff", "4", "-appointments", "60", "-customers", "5", "-queries", "90", "-seed", "7",
		"-load=false", "-d", "1s", "-storm-d", "2s", "-c", "8", "-storm-c", "9", "-race-clients", "10", "-race-slots", "11",
		"-pg", "off", "-pg-clients", "4", "-pg-d", "3s", "-json", "out.json", "-svg", "out.svg", "-keep",
		"-drain-timeout", "1m", "-ready-timeout", "2m", "-timeout", "3s", "-slotd", "/bin/slotd", "-tmp", "/var/tmp",
		"-profile=false", "-from", "r.json",
		"-mixed=false", "-mixed-d", "4s", "-mixed-c", "5", "-smtp-storm=false", "-smtp-storm-d", "6s",
		"-tenancy=false", "-tenancy-businesses", "50", "-tenancy-touch", "7", "-tenancy-appointments", "3",
		"-series=false", "-series-n", "20",
		"-storm-new=false", "-tenancy-max-resident", "0", "-tenancy-idle-touch", "7",
	}, &bytes.Buffer{})
	require.NoError(t, err)
	want := defaults()
	want.Businesses, want.Staff, want.Appointments, want.Customers, want.Queries, want.Seed = 3, 4, 60, 5, 90, 7
	want.LoadPhase = false
	want.Duration, want.StormDuration = time.Second, 2*time.Second
	want.Connections, want.StormConnections, want.RaceClients, want.RaceSlots = 8, 9, 10, 11
	want.Postgres, want.PostgresClients, want.PostgresDur = "off", clientCounts{4}, 3*time.Second
	want.Mixed, want.MixedDuration, want.MixedConnections = false, 4*time.Second, 5
	want.SMTPStorm, want.SMTPDuration = false, 6*time.Second
	want.Tenancy, want.TenancyBusinesses, want.TenancyTouch, want.TenancyAppointments = false, 50, 7, 3
	want.Series, want.SeriesN = false, 20
	want.StormNew, want.TenancyMaxResident, want.TenancyIdleTouch = false, 0, 7
	want.JSON, want.SVG, want.Keep = "out.json", "out.svg", true
	want.DrainTimeout, want.ReadyTimeout, want.Timeout = time.Minute, 2*time.Minute, 3*time.Second
	want.Slotd, want.TempDir = "/bin/slotd", "/var/tmp"
	want.Profile, want.From = false, "r.json"
	assert.Equal(t, want, o)
}

func TestParseFlagsRefuses(t *testing.T) {
	for name, args := range map[string][]string{
		"no businesses":          {"-businesses", "0"},
		"negative appointments":  {"-appointments", "-1"},
		"zero duration":          {"-d", "0s"},
		"huge duration":          {"-storm-d", "48h"},
		"too many connections":   {"-c", "20000"},
		"unknown pg mode":        {"-pg", "maybe"},
		"stray argument":         {"now"},
		"unknown flag":           {"-fast"},
		"no race clients":        {"-race-clients", "0"},
		"calendar beyond 10 yrs": {"-businesses", "1", "-queries", "20000"},
		"load world, no staff":   {"-load-staff", "0"},
		"no pg clients":          {"-pg-clients", "0"},
		"pg clients not a list":  {"-pg-clients", "16;64"},
		"pg clients twice":       {"-pg-clients", "16,16"},
		"pg clients empty":       {"-pg-clients", ""},
		"too many pg clients":    {"-pg-clients", "16,200"},
		"no mixed connections":   {"-mixed-c", "0"},
		"zero mixed duration":    {"-mixed-d", "0s"},
		"touch more than exist":  {"-tenancy-businesses", "10", "-tenancy-touch", "11"},
		"negative tenancy appts": {"-tenancy-appointments", "-1"},
		"no series":              {"-series-n", "0"},
		"negative max resident":  {"-tenancy-max-resident", "-1"},
		"idle burst too big":     {"-tenancy-businesses", "10", "-tenancy-touch", "5", "-tenancy-idle-touch", "11"},
		"negative idle burst":    {"-tenancy-idle-touch", "-1"},
		"series beyond 10 yrs":   {"-businesses", "1", "-staff", "1", "-queries", "30", "-series-n", "300"},
	} {
		_, err := parseFlags(args, &bytes.Buffer{})
		assert.Error(t, err, name)
	}
	// Without the load phase its sizes are not checked.
	_, err := parseFlags([]string{"-load=false", "-load-staff", "0"}, &bytes.Buffer{})
	assert.NoError(t, err)
	_, err = parseFlags([]string{"-tenancy=false", "-tenancy-touch", "0", "-mixed=false", "-mixed-c", "0"}, &bytes.Buffer{})
	assert.NoError(t, err)
	_, err = parseFlags([]string{"-businesses", "1", "-staff", "1", "-queries", "30", "-series=false"}, &bytes.Buffer{})
	assert.NoError(t, err)
	_, err = parseFlags([]string{"-businesses", "1", "-staff", "1", "-queries", "30", "-series-n", "250"}, &bytes.Buffer{})
	assert.NoError(t, err, "250 rounds of one staff member end within the horizon")
}

func TestClientCounts(t *testing.T) {
	o, err := parseFlags([]string{"-pg-clients", "8, 32,4"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, clientCounts{8, 32, 4}, o.PostgresClients, "in the order given: the runs go in that order")
	assert.Equal(t, "8,32,4", o.PostgresClients.String())

	assert.True(t, clientCounts{64, 8, 16}.covers(clientCounts{16, 64}))
	assert.False(t, clientCounts{16}.covers(clientCounts{16, 64}))

	// The JSON report keeps a list; a report from before the list held
	// one count, and -from still reads it.
	var c clientCounts
	require.NoError(t, json.Unmarshal([]byte(`[16,64]`), &c))
	assert.Equal(t, clientCounts{16, 64}, c)
	require.NoError(t, json.Unmarshal([]byte(`16`), &c))
	assert.Equal(t, clientCounts{16}, c)
	assert.Error(t, json.Unmarshal([]byte(`"16"`), &c))
	b, err := json.Marshal(Options{PostgresClients: clientCounts{16, 64}})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"PostgresClients":[16,64]`)
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &out)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, out.String(), "go run ./bench/harness")
	assert.Contains(t, out.String(), "-storm-c")
	for _, flag := range []string{"-mixed-d", "-smtp-storm", "-tenancy-touch", "-pg-clients list", "-series-n", "-storm-new", "-tenancy-max-resident", "-tenancy-idle-touch"} {
		assert.Contains(t, out.String(), flag)
	}
}
