package main

import (
	"net/url"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// walk pages through a list with the given filters and page size, checking
// the envelope on every page, and returns the ids in the order seen.
func walk(t *testing.T, s *server, path string, filters url.Values, limit string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for page := 0; ; page++ {
		require.Less(t, page, 100, "walk does not end")
		q := url.Values{}
		for k, v := range filters {
			q[k] = v
		}
		if limit != "" {
			q.Set("limit", limit)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := s.get(path+"?"+q.Encode(), keyFull)
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		data := r.Body["data"].([]any)
		for _, d := range data {
			ids = append(ids, d.(map[string]any)["id"].(string))
		}
		if r.Body["hasMore"] == false {
			require.Nil(t, r.Body["nextCursor"])
			return ids
		}
		require.NotEmpty(t, data)
		cursor = r.Body["nextCursor"].(string)
	}
}

func TestListWalks(t *testing.T) {
	s := startWorld(t)
	cases := []struct {
		path    string
		filters url.Values
		want    int
	}{
		{"/api/v1/services", nil, 4}, // the deleted service never shows
		{"/api/v1/services", url.Values{"isActive": {"true"}}, 3},
		{"/api/v1/services", url.Values{"isActive": {"false"}}, 1},
		{"/api/v1/services", url.Values{"categoryId": {hairCatID}}, 2},
		{"/api/v1/services", url.Values{"categoryId": {hairCatID}, "isActive": {"true"}}, 1},
		{"/api/v1/services", url.Values{"categoryId": {"00000000-0000-4000-8000-000000000000"}}, 0},
		{"/api/v1/service-categories", nil, 3},
		{"/api/v1/staff", nil, 4}, // inactive staff included
	}
	for _, tc := range cases {
		all := walk(t, s, tc.path, tc.filters, "")
		require.Len(t, all, tc.want, "%s %v", tc.path, tc.filters)
		require.True(t, sort.StringsAreSorted(all), "same createdAt: id ascending")
		for _, limit := range []string{"1", "2", "3", "100"} {
			require.Equal(t, all, walk(t, s, tc.path, tc.filters, limit), "%s %v limit %s", tc.path, tc.filters, limit)
		}
	}
}

func TestListRecordShapes(t *testing.T) {
	s := startWorld(t)
	r := s.get("/api/v1/services?limit=100", keyFull)
	for _, d := range r.Body["data"].([]any) {
		require.NotContains(t, d, "pricingRules", "lists omit pricing rules")
	}
	r = s.get("/api/v1/services/"+haircutID, keyFull)
	require.Equal(t, 200, r.Status)
	b := r.Body
	require.Equal(t, "Haircut", b["name"])
	require.EqualValues(t, 3500, b["priceCents"])
	require.Equal(t, []any{map[string]any{"days": []any{"thu"}, "from": "18:00", "to": "21:00", "priceCents": 4000.0}}, b["pricingRules"])
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, b["createdAt"])

	r = s.get("/api/v1/services/d2694ab1-3c85-5e54-bf1d-996f6e4cd775", keyFull)
	segs := r.Body["segments"].([]any)
	require.Len(t, segs, 3)
	require.Equal(t, map[string]any{"position": 1.0, "kind": "gap", "durationMinutes": 40.0, "label": "Processing"}, segs[1])
	require.EqualValues(t, 2000, r.Body["depositCents"])

	r = s.get("/api/v1/staff/"+annaID, keyFull)
	require.Equal(t, 200, r.Status)
	require.ElementsMatch(t, []string{"id", "name", "isActive", "isBookable", "assignedServiceIds", "createdAt", "updatedAt"}, keys(r.Body))

	r = s.get("/api/v1/service-categories", keyFull)
	cats := r.Body["data"].([]any)
	for _, c := range cats {
		m := c.(map[string]any)
		if m["name"] == "Colour" {
			require.Equal(t, hairCatID, m["parentId"])
		}
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestStrictQueries(t *testing.T) {
	s := startWorld(t)
	requireField(t, s.get("/api/v1/services?colour=red", keyFull), "colour", "unknown_field")
	requireField(t, s.get("/api/v1/staff?isActive=true", keyFull), "isActive", "unknown_field")
	requireField(t, s.get("/api/v1/services/"+haircutID+"?x=1", keyFull), "x", "unknown_field")
	requireField(t, s.get("/api/v1/me?limit=1", keyFull), "limit", "unknown_field")
	requireField(t, s.get("/api/v1/services?limit=1&limit=2", keyFull), "limit", "invalid")
	requireField(t, s.get("/api/v1/services?isActive=", keyFull), "isActive", "required")
	requireField(t, s.get("/api/v1/services?isActive=yes", keyFull), "isActive", "invalid_option")
	requireField(t, s.get("/api/v1/services?categoryId=nope", keyFull), "categoryId", "invalid_format")
	requireField(t, s.get("/api/v1/services?limit=abc", keyFull), "limit", "invalid_format")
	requireField(t, s.get("/api/v1/services?limit=1.5", keyFull), "limit", "invalid_format")
	m := requireField(t, s.get("/api/v1/services?limit=0", keyFull), "limit", "too_small")
	require.EqualValues(t, 1, m["limit"])
	requireField(t, s.get("/api/v1/services?limit=-3", keyFull), "limit", "too_small")
	m = requireField(t, s.get("/api/v1/services?limit=101", keyFull), "limit", "too_large")
	require.EqualValues(t, 100, m["limit"])
	requireField(t, s.get("/api/v1/services?limit=99999999999999999999999", keyFull), "limit", "too_large")
	require.Equal(t, 200, s.get("/api/v1/services?limit=100", keyFull).Status)
	// Several problems are reported together.
	r := s.get("/api/v1/services?limit=0&bogus=1", keyFull)
	requireField(t, r, "limit", "too_small")
	requireField(t, r, "bogus", "unknown_field")
}

func TestCursorsCannotBeForgedOrMoved(t *testing.T) {
	s := startWorld(t)
	r := s.get("/api/v1/services?limit=1&isActive=true", keyFull)
	cur := r.Body["nextCursor"].(string)
	require.NotEmpty(t, cur)
	ok := s.get("/api/v1/services?limit=1&isActive=true&cursor="+url.QueryEscape(cur), keyFull)
	require.Equal(t, 200, ok.Status)

	for name, path := range map[string]string{
		"other filters": "/api/v1/services?limit=1&isActive=false&cursor=" + url.QueryEscape(cur),
		"no filters":    "/api/v1/services?limit=1&cursor=" + url.QueryEscape(cur),
		"other list":    "/api/v1/staff?limit=1&cursor=" + url.QueryEscape(cur),
		"garbage":       "/api/v1/services?cursor=not-a-cursor",
		"tampered":      "/api/v1/services?isActive=true&cursor=" + url.QueryEscape(flip(cur)),
		"empty":         "/api/v1/services?cursor=",
	} {
		t.Run(name, func(t *testing.T) {
			r := s.get(path, keyFull)
			requireError(t, r, 400, "VALIDATION_ERROR")
			require.Contains(t, string(r.Raw), `"path":"cursor"`)
		})
	}
	// Another business's key cannot use the salon's cursor either.
	r = s.get("/api/v1/services?limit=1&isActive=true&cursor="+url.QueryEscape(cur), keyStudio)
	requireField(t, r, "cursor", "invalid")
}

// flip changes one character in the middle of s.
func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
