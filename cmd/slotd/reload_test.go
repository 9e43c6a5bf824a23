package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

// editSalonKeys returns testdata/world.json with the salon's apiKeys
// entries passed through edit (nil drops an entry).
func editSalonKeys(t *testing.T, edit func(entry map[string]any) map[string]any) []byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, "testdata/world.json"), &doc))
	salon := doc["businesses"].([]any)[0].(map[string]any)
	require.Equal(t, salonID, salon["id"])
	var keys []any
	for _, k := range salon["apiKeys"].([]any) {
		if e := edit(k.(map[string]any)); e != nil {
			keys = append(keys, e)
		}
	}
	salon["apiKeys"] = keys
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// salonKeyID is the id of a key the world file declares for the salon.
func salonKeyID(plain string) string {
	return model.WorldKeyID(uuid.MustParse(salonID), model.HashKey(plain)).String()
}

// requireStopLogged asserts that the log has a line naming key id of the
// salon as stopped by a reload, for reason.
func requireStopLogged(t *testing.T, log, id, reason string) {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "stopped working") && strings.Contains(line, "key_id="+id) {
			require.Contains(t, line, "business="+salonID)
			require.Contains(t, line, reason)
			return
		}
	}
	t.Fatalf("no log line names the stopped key %s:\n%s", id, log)
}

// changedOf returns each business's "changed" in a POST /admin/v1/world answer.
func changedOf(t *testing.T, r resp) []any {
	t.Helper()
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	var out []any
	for _, b := range r.Body["businesses"].([]any) {
		out = append(out, b.(map[string]any)["changed"])
	}
	return out
}

// TestWorldReloadKeepsIssuedKeys: keys issued through the admin API are the
// operator's and survive reloading the world, however it is reloaded
// (POST /admin/v1/world, PUT of one business, --world at start); the
// file's keys follow the file, and each one a reload stops is logged by
// id and business, never by its value.
func TestWorldReloadKeepsIssuedKeys(t *testing.T) {
	s := startWorld(t)
	issued, issuedID := s.issueKey(salonID, "services:read")
	world := mustRead(t, "testdata/world.json")

	require.Equal(t, []any{false, false}, changedOf(t, s.adminDo("POST", "/admin/v1/world", world)), "the same file changes nothing")
	require.Equal(t, 200, s.get("/api/v1/services", issued).Status)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(world, &doc))
	salon, err := json.Marshal(doc["businesses"].([]any)[0])
	require.NoError(t, err)
	r := s.adminDo("PUT", "/admin/v1/businesses/"+salonID, salon)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, false, r.Body["changed"])
	require.Equal(t, 200, s.get("/api/v1/services", issued).Status)

	origins := map[string]any{}
	for _, k := range s.adminDo("GET", "/admin/v1/businesses/"+salonID+"/keys", nil).Body["data"].([]any) {
		origins[k.(map[string]any)["id"].(string)] = k.(map[string]any)["origin"]
	}
	require.Equal(t, "admin", origins[issuedID])
	require.Equal(t, "world", origins[salonKeyID(keyRead)])

	// The file drops one key and revokes another.
	edited := editSalonKeys(t, func(k map[string]any) map[string]any {
		switch k["key"] {
		case keyRead:
			return nil
		case keyServices:
			k["revoked"] = true
		}
		return k
	})
	require.Equal(t, []any{true, false}, changedOf(t, s.adminDo("POST", "/admin/v1/world", edited)))
	requireError(t, s.get("/api/v1/services", keyRead), 401, "UNAUTHORIZED")
	requireError(t, s.get("/api/v1/services", keyServices), 401, "KEY_REVOKED")
	require.Equal(t, 200, s.get("/api/v1/services", issued).Status, "the operator's key survives")
	require.Equal(t, 200, s.get("/api/v1/services", keyFull).Status)
	requireStopLogged(t, s.log.String(), salonKeyID(keyRead), "removed from the world file")
	requireStopLogged(t, s.log.String(), salonKeyID(keyServices), "revoked by the world file")
	require.Equal(t, []any{false, false}, changedOf(t, s.adminDo("POST", "/admin/v1/world", edited)))

	// At start with --world, from the journal: the same rules.
	s.stop()
	withoutFull := editSalonKeys(t, func(k map[string]any) map[string]any {
		if k["key"] == keyRead || k["key"] == keyFull {
			return nil
		}
		if k["key"] == keyServices {
			k["revoked"] = true
		}
		return k
	})
	path := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(path, withoutFull, 0o644))
	s2 := start(t, s.data, "--world", path)
	require.Equal(t, 200, s2.get("/api/v1/services", issued).Status)
	requireError(t, s2.get("/api/v1/services", keyFull), 401, "UNAUTHORIZED")
	requireStopLogged(t, s2.log.String(), salonKeyID(keyFull), "removed from the world file")
	require.Equal(t, []any{false, false}, changedOf(t, s2.adminDo("POST", "/admin/v1/world", withoutFull)))

	for _, log := range []string{s.log.String(), s2.log.String()} {
		require.NotContains(t, log, "sk_", "a key's value is never logged")
	}
}
