package world

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

func TestFileRules(t *testing.T) {
	cases := []struct {
		name   string
		data   string
		fields []string
	}{
		{"not json", `{"businesses": [}`, []string{"(body) invalid"}},
		{"empty", ``, []string{"(body) required"}},
		{"not an object", `[]`, []string{"(body) invalid"}},
		{"trailing data", `{"businesses": []} {}`, []string{"(body) invalid"}},
		{"businesses missing", `{}`, []string{"businesses required"}},
		{"businesses null", `{"businesses": null}`, []string{"businesses required"}},
		{"businesses not array", `{"businesses": {}}`, []string{"businesses invalid"}},
		{"business not object", `{"businesses": [7]}`, []string{"businesses.0 invalid"}},
		{"unknown root member", `{"businesses": [], "version": 2}`, []string{"version unknown_field"}},
		{"duplicate root key", `{"businesses": [], "businesses": []}`, []string{"businesses invalid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := Parse([]byte(tc.data))
			require.Nil(t, specs)
			require.Equal(t, tc.fields, fieldsOf(t, err))
		})
	}
}

func TestEmptyBusinessesIsValid(t *testing.T) {
	specs, err := Parse([]byte(`{"businesses": []}`))
	require.NoError(t, err)
	require.NotNil(t, specs)
	require.Empty(t, specs)
}

func TestDuplicateBusinessID(t *testing.T) {
	a, b := minimal(), minimal()
	set(b, "apiKeys.0.key", "sk_test_second")
	specs, err := Parse(file(a, b))
	require.Nil(t, specs)
	require.Equal(t, []string{"businesses.1.id invalid"}, fieldsOf(t, err))
}

func TestManyProblemsAreAllReported(t *testing.T) {
	b := minimal()
	set(b, "currency", "eur")
	set(b, "services.0.durationMinutes", 0)
	set(b, "staff.0.hours", obj{"mon": arr{arr{"18:00", "09:00"}}})
	set(b, "customers.0.email", "nope")
	set(b, "extra", true)
	good := minimal()
	set(good, "id", otherID)
	set(good, "apiKeys.0.key", "sk_test_good")
	specs, err := Parse(file(good, b))
	require.Nil(t, specs, "one bad business spoils the file")
	require.Equal(t, []string{
		"businesses.1.currency invalid_format",
		"businesses.1.services.0.durationMinutes too_small 1",
		"businesses.1.staff.0.hours.mon.0 invalid",
		"businesses.1.customers.0.email invalid_email",
		"businesses.1.extra unknown_field",
	}, fieldsOf(t, err))
}

func TestErrorString(t *testing.T) {
	_, err := Parse([]byte(`{"businesses": [{"id": "x"}], "v": 1}`))
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Equal(t, "businesses.0.id: Must be a UUID.", lines[0])
	require.Equal(t, "v: Is not an accepted field.", lines[len(lines)-1])

	e := &Error{Fields: []problem.Field{{Path: "a", Message: "Bad."}}, Omitted: 3}
	require.Equal(t, "a: Bad.\n(and 3 more problems)", e.Error())
}

func TestErrorIsCapped(t *testing.T) {
	b := minimal()
	list := arr{}
	for i := 0; i < 150; i++ {
		list = append(list, obj{"id": "bad"})
	}
	set(b, "customers", list)
	_, err := ParseBusiness(mustJSON(b))
	var we *Error
	require.True(t, errors.As(err, &we))
	require.Len(t, we.Fields, input.MaxFields)
	require.Positive(t, we.Omitted)
	require.Contains(t, err.Error(), "more problems")
}

func TestParseBusinessRelativePaths(t *testing.T) {
	b := minimal()
	set(b, "staff.0.hours", obj{"mon": arr{arr{"09:00", "12:00"}, arr{"11:00", "13:00"}}})
	spec, err := ParseBusiness(mustJSON(b))
	require.Zero(t, spec.Business.ID)
	require.Equal(t, []string{"staff.0.hours.mon.1 invalid"}, fieldsOf(t, err))

	_, err = ParseBusiness([]byte(`not json`))
	require.Equal(t, []string{"(body) invalid"}, fieldsOf(t, err))

	ok, err := ParseBusiness(mustJSON(minimal()))
	require.NoError(t, err)
	require.Equal(t, "Shop", ok.Business.Name)
}
