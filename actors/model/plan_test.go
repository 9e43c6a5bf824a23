package model

import "testing"

func TestEntitlements(t *testing.T) {
	for _, tc := range []struct {
		plan     Plan
		scope    string
		entitled bool
		cheapest Plan
	}{
		{Groei, "appointments:read", true, Groei},
		{Groei, "customers:read", true, Groei},
		{Groei, "appointments:write", false, Pro},
		{Groei, "webhooks:manage", false, Pro},
		{Groei, "customers:write", false, Pro},
		{"starter-2019", "services:read", true, Groei},
		{"starter-2019", "appointments:write", false, Pro},
		{Pro, "appointments:write", true, Pro},
		{Pro, "payments:refund", false, Zakelijk},
		{Zakelijk, "payments:refund", true, Zakelijk},
		{Zakelijk, "webhooks:manage", true, Pro},
	} {
		if got := tc.plan.Entitles(tc.scope); got != tc.entitled {
			t.Errorf("%s entitles %s = %v, want %v", tc.plan, tc.scope, got, tc.entitled)
		}
		if got := RequiredPlan(tc.scope); got != tc.cheapest {
			t.Errorf("RequiredPlan(%s) = %s, want %s", tc.scope, got, tc.cheapest)
		}
	}
}

func TestClockAndDate(t *testing.T) {
	if got := Clock(-5).String(); got != "00:-5" {
		t.Errorf("Clock(-5) = %q: out of range still renders", got)
	}
	for s, want := range map[string]Clock{"00:00": 0, "09:30": 570, "24:00": 1440, "17:05": 1025, "23:59": 1439} {
		if c, err := ParseClock(s); err != nil || c != want || c.String() != s {
			t.Errorf("ParseClock(%q) = %v, %v", s, c, err)
		}
	}
	for _, s := range []string{"24:01", "9:30", "09:60", "ab:cd", "", "09:30:00"} {
		if _, err := ParseClock(s); err == nil {
			t.Errorf("ParseClock(%q) succeeded", s)
		}
	}
	if _, err := ParseDate("2026-02-30"); err == nil {
		t.Error("2026-02-30 parsed")
	}
}
