package wire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/slotd/slotd/actors/deptest"
	"github.com/stretchr/testify/require"
)

func TestPure(t *testing.T) { deptest.RequirePure(t, "github.com/slotd/slotd/transport/wire") }

func TestResponseEncodingIsValidJSON(t *testing.T) {
	for _, s := range []string{"plain", "quote\" backslash\\ newline\n tab\t", "\x00\x1f control", "ünïcødé ✂", "bad \xff utf8", "</script>"} {
		b := AppendString(nil, s)
		var got string
		require.NoError(t, json.Unmarshal(b, &got), "%q -> %s", s, b)
		if s != "bad \xff utf8" {
			require.Equal(t, s, got)
		}
	}
	id := uuid.New()
	require.Equal(t, `"`+id.String()+`"`, string(AppendUUID(nil, id)))
	tm := time.Date(2026, 3, 29, 1, 2, 3, 4e6, time.FixedZone("x", 3600))
	require.Equal(t, `"2026-03-29T00:02:03.004Z"`, string(AppendTime(nil, tm)))
}
