package world

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ids of the minimal business used by the rule tables.
const (
	bizID    = "11111111-1111-4111-8111-111111111111"
	catID    = "22222222-2222-4222-8222-222222222222"
	svcID    = "33333333-3333-4333-8333-333333333333"
	staffID  = "44444444-4444-4444-8444-444444444444"
	custID   = "55555555-5555-4555-8555-555555555555"
	seriesID = "66666666-6666-4666-8666-666666666666"
	apptID   = "77777777-7777-4777-8777-777777777777"
	otherID  = "88888888-8888-4888-8888-888888888888"
)

type obj = map[string]any
type arr = []any

// minimal is the smallest business that exercises every section; the rule
// tables mutate a fresh copy of it.
func minimal() obj {
	return obj{
		"id": bizID, "name": "Shop", "timezone": "Europe/Amsterdam", "currency": "EUR", "plan": "pro",
		"apiKeys":    arr{obj{"key": "sk_test_minimal", "scopes": arr{"appointments:read"}}},
		"categories": arr{obj{"id": catID, "name": "Hair"}},
		"services": arr{obj{"id": svcID, "name": "Cut", "durationMinutes": 30, "priceCents": 1000,
			"categoryId": catID}},
		"staff": arr{obj{"id": staffID, "name": "Anna", "assignedServiceIds": arr{svcID},
			"hours": obj{"mon": arr{arr{"09:00", "17:00"}}}}},
		"customers": arr{obj{"id": custID, "firstName": "Eva", "email": "eva@example.com"}},
		"recurringSeries": arr{obj{"id": seriesID, "customerId": custID, "serviceId": svcID,
			"rule": "FREQ=WEEKLY;COUNT=4", "firstStart": "2027-01-05T09:00:00Z"}},
		"appointments": arr{obj{"id": apptID, "customerId": custID, "serviceId": svcID,
			"startTime": "2027-01-04T09:00:00Z", "status": "confirmed"}},
	}
}

// file wraps businesses into a world file.
func file(businesses ...obj) []byte {
	list := arr{}
	for _, b := range businesses {
		list = append(list, b)
	}
	data, err := json.Marshal(obj{"businesses": list})
	if err != nil {
		panic(err)
	}
	return data
}

// set replaces the value at a dotted path ("services.0.segments"); a path
// whose last step names a missing map key adds it.
func set(root obj, path string, v any) {
	parent, last := walk(root, path)
	switch p := parent.(type) {
	case obj:
		p[last] = v
	case arr:
		i, _ := strconv.Atoi(last)
		p[i] = v
	}
}

// del removes the map key at a dotted path.
func del(root obj, path string) {
	parent, last := walk(root, path)
	delete(parent.(obj), last)
}

func walk(root obj, path string) (any, string) {
	steps := strings.Split(path, ".")
	var cur any = root
	for _, s := range steps[:len(steps)-1] {
		switch c := cur.(type) {
		case obj:
			cur = c[s]
		case arr:
			i, err := strconv.Atoi(s)
			if err != nil {
				panic(fmt.Sprintf("bad path %q", path))
			}
			cur = c[i]
		}
	}
	return cur, steps[len(steps)-1]
}

// fieldsOf returns the problems of a world error as "path reason [limit]".
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var we *Error
	require.True(t, errors.As(err, &we), "want *world.Error, got %v", err)
	out := []string{}
	for _, f := range we.Fields {
		require.NotEmpty(t, f.Path)
		require.NotEmpty(t, f.Message)
		s := f.Path + " " + string(f.Reason)
		if f.Limit != nil {
			s += fmt.Sprintf(" %d", *f.Limit)
		}
		out = append(out, s)
	}
	return out
}
