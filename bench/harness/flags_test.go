package main

import (
	"bytes"
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
	assert.Equal(t, 16, o.PostgresClients)
	assert.Equal(t, 10_000, o.LoadBusinesses)
	assert.Equal(t, 1_000_000, o.LoadAppointments)
	assert.Equal(t, "auto", o.Postgres)
	assert.True(t, o.LoadPhase)

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
	}, &bytes.Buffer{})
	require.NoError(t, err)
	want := defaults()
	want.Businesses, want.Staff, want.Appointments, want.Customers, want.Queries, want.Seed = 3, 4, 60, 5, 90, 7
	want.LoadPhase = false
	want.Duration, want.StormDuration = time.Second, 2*time.Second
	want.Connections, want.StormConnections, want.RaceClients, want.RaceSlots = 8, 9, 10, 11
	want.Postgres, want.PostgresClients, want.PostgresDur = "off", 4, 3*time.Second
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
	} {
		_, err := parseFlags(args, &bytes.Buffer{})
		assert.Error(t, err, name)
	}
	// Without the load phase its sizes are not checked.
	_, err := parseFlags([]string{"-load=false", "-load-staff", "0"}, &bytes.Buffer{})
	assert.NoError(t, err)
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &out)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, out.String(), "go run ./bench/harness")
	assert.Contains(t, out.String(), "-storm-c")
}
