package ledger

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// MaxEndpoints is how many webhook endpoints a business may register.
const MaxEndpoints = 5

var (
	errDuplicateURL = &problem.Error{Code: problem.Conflict, Message: "This URL is already registered for the business.",
		Fields: []problem.Field{{Path: "url", Reason: problem.Invalid, Message: "Already registered."}}}
	errTooManyEndpoints = problem.New(problem.Conflict, "The business already has the maximum of five webhook endpoints.")
	errNoEndpoint       = problem.New(problem.NotFound, "No such resource for this business.")
)

// EndpointInput is a validated registration.
type EndpointInput struct {
	URL         string
	EventTypes  []string
	Description string
}

// CheckRegister refuses a registration that can never succeed: a URL the
// business has already registered, or a sixth endpoint. The transport asks
// before it sends the test ping, so a refused registration spends nothing.
func CheckRegister(s *State, url string) error {
	if s.endpointWithURL(url, uuid.Nil) != nil {
		return errDuplicateURL
	}
	if len(s.endpoints) >= MaxEndpoints {
		return errTooManyEndpoints
	}
	return nil
}

func (s *State) endpointWithURL(url string, except uuid.UUID) *model.Endpoint {
	for i := range s.endpoints {
		if s.endpoints[i].URL == url && s.endpoints[i].ID != except {
			return &s.endpoints[i]
		}
	}
	return nil
}

// DecideRegister stores a new endpoint whose test ping was answered.
func DecideRegister(s *State, in *EndpointInput, secret string, now time.Time, ids IDs) (*record.Change, *model.Endpoint, error) {
	if err := CheckRegister(s, in.URL); err != nil {
		return nil, nil, err
	}
	e := model.Endpoint{ID: ids.UUID(), URL: in.URL, EventTypes: slices.Clone(in.EventTypes), Description: in.Description,
		IsActive: true, Status: model.EndpointActive, PayloadStyle: model.PayloadFull, Secret: secret, CreatedAt: now, UpdatedAt: now}
	ch := &record.Change{At: now, Endpoints: []model.Endpoint{e}}
	return ch, &ch.Endpoints[0], nil
}

// EndpointPatch is a validated PATCH /webhooks/{id}; nil members were absent.
type EndpointPatch struct {
	URL         *string
	EventTypes  []string // nil: absent
	Description *string
	IsActive    *bool
}

// CheckURLChange refuses a new URL another endpoint of the business has.
func CheckURLChange(s *State, id uuid.UUID, url string) error {
	if s.endpointWithURL(url, id) != nil {
		return errDuplicateURL
	}
	return nil
}

// DecideEndpointPatch applies a PATCH. isActive true re-enables an
// auto-disabled endpoint and zeroes its failure count in the same write.
func DecideEndpointPatch(s *State, id uuid.UUID, in *EndpointPatch, now time.Time) (*record.Change, *model.Endpoint, error) {
	old := s.Endpoint(id)
	if old == nil {
		return nil, nil, errNoEndpoint
	}
	e := *old
	if in.URL != nil {
		if err := CheckURLChange(s, id, *in.URL); err != nil {
			return nil, nil, err
		}
		e.URL = *in.URL
	}
	if in.EventTypes != nil {
		e.EventTypes = slices.Clone(in.EventTypes)
	}
	if in.Description != nil {
		e.Description = *in.Description
	}
	if in.IsActive != nil {
		e.IsActive = *in.IsActive
		if *in.IsActive && e.Status == model.EndpointAutoDisabled {
			e.Status, e.ConsecutiveFailures = model.EndpointActive, 0
		}
	}
	if e.URL == old.URL && slices.Equal(e.EventTypes, old.EventTypes) && e.Description == old.Description &&
		e.IsActive == old.IsActive && e.Status == old.Status && e.ConsecutiveFailures == old.ConsecutiveFailures {
		return nil, old, nil
	}
	e.UpdatedAt = now
	ch := &record.Change{At: now, Endpoints: []model.Endpoint{e}}
	return ch, &ch.Endpoints[0], nil
}

// DecideEndpointDelete removes an endpoint.
func DecideEndpointDelete(s *State, id uuid.UUID, now time.Time) (*record.Change, error) {
	if s.Endpoint(id) == nil {
		return nil, errNoEndpoint
	}
	return &record.Change{At: now, Removed: []uuid.UUID{id}}, nil
}

// AutoDisableAfter is how many exhausted deliveries in a row switch an
// endpoint off (api-v1 §6.5).
const AutoDisableAfter = 10

// DecideDeliveryOutcome keeps an endpoint's consecutiveFailures as its
// deliveries end (api-v1 §3.2): a delivery zeroes it, an exhausted delivery
// adds one, and the tenth in a row auto-disables the endpoint (status
// auto_disabled, isActive false) and e-mails the owner, in the same write.
// It returns a nil change when nothing moves: the endpoint is gone, already
// at zero after a delivery, or already disabled.
func DecideDeliveryOutcome(s *State, id uuid.UUID, delivered bool, now time.Time, ids IDs) *record.Change {
	old := s.Endpoint(id)
	if old == nil {
		return nil
	}
	e := *old
	switch {
	case delivered && e.ConsecutiveFailures == 0:
		return nil
	case delivered:
		e.ConsecutiveFailures = 0
	case e.Status != model.EndpointActive:
		return nil // nothing counts while disabled; a replay's failure never reaches here
	default:
		e.ConsecutiveFailures++
	}
	ch := &record.Change{At: now}
	if !delivered && e.ConsecutiveFailures >= AutoDisableAfter {
		e.Status, e.IsActive = model.EndpointAutoDisabled, false
		if to := s.Business.OwnerEmail; to != "" {
			epID := e.ID
			ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailEndpointDisabled, To: to, Endpoint: &epID, At: now}}
		}
	}
	e.UpdatedAt = now
	ch.Endpoints = []model.Endpoint{e}
	return ch
}

// RegisterEndpoint stores a webhook endpoint whose test ping succeeded
// (POST /webhooks).
type RegisterEndpoint struct {
	In     EndpointInput
	Secret string
}

func (o RegisterEndpoint) Decide(s *State, now time.Time, ids IDs) (*record.Change, model.Endpoint, error) {
	ch, ep, err := DecideRegister(s, &o.In, o.Secret, now, ids)
	return ch, deref(ep), err
}

// PatchEndpoint edits webhook endpoint ID (PATCH /webhooks/{id}).
type PatchEndpoint struct {
	ID uuid.UUID
	In EndpointPatch
}

func (o PatchEndpoint) Decide(s *State, now time.Time, _ IDs) (*record.Change, model.Endpoint, error) {
	ch, ep, err := DecideEndpointPatch(s, o.ID, &o.In, now)
	return ch, deref(ep), err
}

// DeleteEndpoint removes webhook endpoint ID and its delivery log
// (DELETE /webhooks/{id}).
type DeleteEndpoint struct{ ID uuid.UUID }

func (o DeleteEndpoint) Decide(s *State, now time.Time, _ IDs) (*record.Change, Done, error) {
	ch, err := DecideEndpointDelete(s, o.ID, now)
	return ch, Done{}, err
}
