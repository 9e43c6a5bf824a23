package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Resources (decisions §10), the catalogue: a business declares its rooms
// and machines with their quantities in the world file or through the
// admin API, and the API lists them (scope services:read, a list envelope
// like services).

const (
	roomID  = "0b8e2f7c-4d1a-4c6e-9f3b-2a5d7e8c1b40"
	laserID = "6f1d3e2a-9c4b-4a7e-8d5f-1b2c3d4e5f60"
)

func withResources(rs ...map[string]any) func(biz map[string]any) {
	return func(biz map[string]any) {
		list := make([]any, len(rs))
		for i, r := range rs {
			list[i] = r
		}
		biz["resources"] = list
	}
}

func TestResourceCatalogue(t *testing.T) {
	room := map[string]any{"id": roomID, "name": "Treatment room", "quantity": 2}
	laser := map[string]any{"id": laserID, "name": "Laser", "isActive": false}
	s := start(t, "", "--world", salonWorld(t, withResources(room, laser)))

	list := s.get("/api/v1/resources", keyFull)
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	data := list.Body["data"].([]any)
	require.Len(t, data, 2)
	got := map[string]map[string]any{}
	for _, x := range data {
		r := x.(map[string]any)
		got[r["id"].(string)] = r
	}
	assert.Equal(t, "Treatment room", got[roomID]["name"])
	assert.Equal(t, float64(2), got[roomID]["quantity"])
	assert.Equal(t, true, got[roomID]["isActive"])
	assert.Equal(t, float64(1), got[laserID]["quantity"], "quantity defaults to 1")
	assert.Equal(t, false, got[laserID]["isActive"])
	assert.Equal(t, false, list.Body["hasMore"])

	active := s.get("/api/v1/resources?isActive=true", keyFull)
	require.Equal(t, 200, active.Status, "%s", active.Raw)
	require.Len(t, active.Body["data"].([]any), 1)
	requireError(t, s.get("/api/v1/resources?isActive=yes", keyFull), 400, "VALIDATION_ERROR")

	one := s.get("/api/v1/resources/"+roomID, keyFull)
	require.Equal(t, 200, one.Status, "%s", one.Raw)
	assert.Equal(t, got[roomID], one.Body)
	requireError(t, s.get("/api/v1/resources/"+haircutID, keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/resources/not-a-uuid", keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/resources/"+roomID+"?x=1", keyFull), 400, "VALIDATION_ERROR")
	assert.Equal(t, 200, s.get("/api/v1/resources", keyServices).Status, "services:read is the scope")

	// The admin API's put changes a resource and refuses a bad one with
	// its path; nothing changes on a refusal.
	put := func(edit func(map[string]any)) resp {
		raw, err := os.ReadFile(salonWorld(t, edit))
		require.NoError(t, err)
		var w map[string]any
		require.NoError(t, json.Unmarshal(raw, &w))
		body, err := json.Marshal(w["businesses"].([]any)[0])
		require.NoError(t, err)
		return s.adminDo("PUT", "/admin/v1/businesses/"+salonID, body)
	}
	bad := put(withResources(map[string]any{"id": roomID, "name": "Treatment room", "quantity": 0}))
	requireError(t, bad, 400, "VALIDATION_ERROR")
	assert.Contains(t, string(bad.Raw), `"path":"resources.0.quantity"`)
	room["quantity"] = 3
	require.Equal(t, 200, put(withResources(room, laser)).Status)
	after := s.get("/api/v1/resources/"+roomID, keyFull)
	assert.Equal(t, float64(3), after.Body["quantity"])
	assert.Equal(t, got[roomID]["createdAt"], after.Body["createdAt"])

	// After a restart, from the journal.
	s.stop()
	s2 := start(t, s.data)
	assert.Equal(t, after.Body, s2.get("/api/v1/resources/"+roomID, keyFull).Body)
}
