package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func spec() *model.Spec {
	biz := uuid.MustParse("f719a757-6018-5706-847c-e556c8b6c4b7")
	cat := uuid.New()
	return &model.Spec{
		Business:   model.Business{ID: biz, Name: "Salon", Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: model.Pro, Modules: model.AllModules, Rules: model.DefaultRules()},
		Keys:       []model.Key{{ID: uuid.New(), Hash: model.HashKey("sk_1"), Scopes: []string{"services:read"}}},
		Categories: []model.Category{{ID: cat, Name: "Hair"}},
		Services: []model.Service{
			{ID: uuid.New(), Name: "Cut", DurationMinutes: 30, PriceCents: 3500, IsActive: true, CategoryID: cat},
			{ID: uuid.New(), Name: "Colour", DurationMinutes: 90, PriceCents: 8500, IsActive: true, CategoryID: cat},
		},
		Staff:     []model.Staff{{ID: uuid.New(), Name: "Anna", IsActive: true, IsBookable: true}},
		Customers: []model.Customer{{ID: uuid.New(), FirstName: "Eva", Email: "Eva@Example.com"}},
	}
}

// put decides and applies a put, returning the new state and whether a
// record was written.
func put(t *testing.T, s *State, sp *model.Spec, now time.Time) (*State, bool) {
	t.Helper()
	rec, err := DecidePut(s, sp, now)
	require.NoError(t, err)
	if rec == nil {
		return s, false
	}
	seq := uint64(1)
	if s != nil {
		seq = s.Seq + 1
	}
	n, err := Apply(s, seq, rec)
	require.NoError(t, err)
	return n, true
}

func TestPutTwiceChangesNothing(t *testing.T) {
	sp := spec()
	s, changed := put(t, nil, sp, t0)
	require.True(t, changed)
	require.Equal(t, t0, s.Business.CreatedAt)
	again, changed := put(t, s, sp, t0.Add(time.Hour))
	require.False(t, changed)
	require.Same(t, s, again)
}

func TestPutMovesUpdatedAtOnlyOnRealChange(t *testing.T) {
	sp := spec()
	s, _ := put(t, nil, sp, t0)
	sp.Services[1].PriceCents = 9000
	t1 := t0.Add(time.Hour)
	s2, changed := put(t, s, sp, t1)
	require.True(t, changed)
	require.Equal(t, t0, s2.Service(sp.Services[0].ID).UpdatedAt)
	colour := s2.Service(sp.Services[1].ID)
	require.Equal(t, t0, colour.CreatedAt)
	require.Equal(t, t1, colour.UpdatedAt)
	require.Equal(t, 9000, colour.PriceCents)
	require.Equal(t, t0, s2.Business.UpdatedAt)
	require.Equal(t, 3500, s.Service(sp.Services[0].ID).PriceCents, "the old state is untouched")
	require.Equal(t, 8500, s.Service(sp.Services[1].ID).PriceCents, "the old state is untouched")
}

func TestPutRemovalIsAChange(t *testing.T) {
	sp := spec()
	s, _ := put(t, nil, sp, t0)
	sp.Staff = nil
	s2, changed := put(t, s, sp, t0.Add(time.Minute))
	require.True(t, changed)
	require.Empty(t, s2.Staff)
}

func TestCustomersAreAddedNeverChanged(t *testing.T) {
	sp := spec()
	s, _ := put(t, nil, sp, t0)
	require.NotNil(t, s.CustomerByEmail("  eva@example.COM "))
	sp.Customers[0].FirstName = "Changed"
	s2, changed := put(t, s, sp, t0.Add(time.Minute))
	require.False(t, changed)
	require.Equal(t, "Eva", s2.Customer(sp.Customers[0].ID).FirstName)

	sp.Customers = append(sp.Customers, model.Customer{ID: uuid.New(), FirstName: "Eve", Email: "eva@example.com"})
	_, err := DecidePut(s2, sp, t0)
	var pe *problem.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "customers.1.email", pe.Fields[0].Path)
}

func TestKeysIssueRevoke(t *testing.T) {
	s, _ := put(t, nil, spec(), t0)
	k := model.Key{ID: uuid.New(), Hash: model.HashKey("sk_2"), Scopes: []string{"staff:read"}}
	s2, err := Apply(s, s.Seq+1, DecideIssue(k, t0))
	require.NoError(t, err)
	require.NotNil(t, s2.Key(k.Hash))
	require.Nil(t, s.Key(k.Hash))
	rec, err := DecideRevoke(s2, k.ID, t0.Add(time.Minute))
	require.NoError(t, err)
	s3, err := Apply(s2, s2.Seq+1, rec)
	require.NoError(t, err)
	require.True(t, s3.Key(k.Hash).Revoked)
	rec, err = DecideRevoke(s3, k.ID, t0)
	require.NoError(t, err)
	require.Nil(t, rec, "revoking twice writes nothing")
	_, err = DecideRevoke(s3, uuid.New(), t0)
	require.Error(t, err)
}

func TestSnapshotRebuildsTheSameState(t *testing.T) {
	s, _ := put(t, nil, spec(), t0)
	r, err := FromSnapshot(s.Seq, Snapshot(s))
	require.NoError(t, err)
	require.Equal(t, s.Business, r.Business)
	require.Equal(t, s.Services, r.Services)
	require.Equal(t, s.CustomerCount(), r.CustomerCount())
	require.Equal(t, s.Keys, r.Keys)
}

func TestApplyOnMissingBusinessFails(t *testing.T) {
	_, err := Apply(nil, 1, &record.Record{Kind: record.KindKey, Key: &record.KeyState{}})
	require.Error(t, err)
}

// replayed encodes r as the journal holds it and applies the decoded copy.
func replayed(t *testing.T, s *State, seq uint64, r *record.Record) *State {
	t.Helper()
	b, err := record.Encode(nil, r)
	require.NoError(t, err)
	d, err := record.Decode(b)
	require.NoError(t, err)
	n, err := Apply(s, seq, d)
	require.NoError(t, err)
	return n
}

// TestKeysJournalledWithoutOrigin: a journal written before keys recorded
// their origin still loads, each key's origin told by its id, so a reload
// of the same file changes nothing and keeps the key issued through the
// admin API; a snapshot then carries the origins.
func TestKeysJournalledWithoutOrigin(t *testing.T) {
	sp := spec()
	biz := sp.Business.ID
	file := model.Key{ID: model.WorldKeyID(biz, model.HashKey("sk_file")), Hash: model.HashKey("sk_file"),
		Scopes: []string{"services:read"}, CreatedAt: t0, UpdatedAt: t0}
	issued := model.Key{ID: uuid.New(), Hash: model.HashKey("sk_issued"), Scopes: []string{"staff:read"}, CreatedAt: t0, UpdatedAt: t0}
	biz0 := sp.Business
	biz0.CreatedAt, biz0.UpdatedAt = t0, t0
	old := &record.Record{Kind: record.KindCatalog, Catalog: &record.Catalog{At: t0, Business: biz0, Keys: []model.Key{file}}}
	b, err := record.Encode(nil, old)
	require.NoError(t, err)
	require.NotContains(t, string(b), "origin", "the old format")
	s := replayed(t, nil, 1, old)
	s = replayed(t, s, 2, &record.Record{Kind: record.KindKey, Key: &record.KeyState{At: t0, Key: issued}})
	require.Equal(t, model.FromWorld, s.Key(file.Hash).Origin)
	require.Equal(t, model.FromAdmin, s.Key(issued.Hash).Origin)

	sp.Keys = []model.Key{{ID: file.ID, Hash: file.Hash, Scopes: file.Scopes}}
	sp.Categories, sp.Services, sp.Staff, sp.Customers = nil, nil, nil, nil
	rec, err := DecidePut(s, sp, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Nil(t, rec, "the same file again changes nothing")

	sp.Keys = nil
	after, changed := put(t, s, sp, t0.Add(time.Hour))
	require.True(t, changed)
	require.Nil(t, after.Key(file.Hash), "a key the file no longer declares is gone")
	require.Equal(t, issued.ID, after.Key(issued.Hash).ID, "the issued key stays")

	snap, err := record.EncodeSnapshot(Snapshot(s))
	require.NoError(t, err)
	require.Contains(t, string(snap), `"origin":"admin"`)
}

// Metadata given at booking and by PATCH lives in the state through the
// journal (step encodes and decodes every change) and through a snapshot
// encoded as the journal stores it; a PATCH replaces it whole.
func TestMetadataThroughJournalAndSnapshot(t *testing.T) {
	sp := spec()
	sp.Staff[0].AssignedServiceIDs = []uuid.UUID{sp.Services[0].ID}
	s, _ := put(t, nil, sp, t0)
	ids := &seqIDs{}
	in := &CreateInput{ServiceID: sp.Services[0].ID, Start: t0.Add(72 * time.Hour).Truncate(time.Hour), Enforce: false,
		Customer: model.Customer{FirstName: "M", Email: "m@example.com"}, Metadata: map[string]string{"utm_source": "news", "b": ""}}
	ch, a, err := DecideCreate(s, in, t0, ids)
	require.NoError(t, err)
	s = step(t, s, ch)
	require.Equal(t, in.Metadata, s.Appointment(a.ID).Metadata)

	ch, _, err = DecidePatch(s, a.ID, &PatchInput{MetadataSet: true, Metadata: map[string]string{"crm": "42"}}, t0, ids)
	require.NoError(t, err)
	s = step(t, s, ch)
	require.Equal(t, map[string]string{"crm": "42"}, s.Appointment(a.ID).Metadata)
	require.Equal(t, 2, s.Appointment(a.ID).Version)
	ch, _, err = DecidePatch(s, a.ID, &PatchInput{MetadataSet: true, Metadata: map[string]string{"crm": "42"}}, t0, ids)
	require.NoError(t, err)
	require.Nil(t, ch, "the same metadata again is no change")

	b, err := record.EncodeSnapshot(Snapshot(s))
	require.NoError(t, err)
	snap, err := record.DecodeSnapshot(b)
	require.NoError(t, err)
	r, err := FromSnapshot(s.Seq, snap)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"crm": "42"}, r.Appointment(a.ID).Metadata)

	ch, _, err = DecidePatch(r, a.ID, &PatchInput{MetadataSet: true}, t0, ids)
	require.NoError(t, err)
	r = step(t, r, ch)
	require.Nil(t, r.Appointment(a.ID).Metadata, "replaced by none")
}
