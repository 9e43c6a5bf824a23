package model

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Endpoint is a business's webhook endpoint (api-v1 §2.6). Secret is kept
// to sign deliveries; the API shows it only in the answer that created it.
type Endpoint struct {
	ID                  uuid.UUID `json:"id"`
	URL                 string    `json:"url"`
	EventTypes          []string  `json:"eventTypes"`
	Description         string    `json:"description"`
	IsActive            bool      `json:"isActive"`
	Status              string    `json:"status"` // EndpointActive or EndpointAutoDisabled
	PayloadStyle        string    `json:"payloadStyle"`
	ConsecutiveFailures int       `json:"consecutiveFailures"`
	Secret              string    `json:"secret"`
	CreatedAt           time.Time `json:"createdAt"`
	UpdatedAt           time.Time `json:"updatedAt"`
}

// PayloadFull is the one payload style (api-v1 §2.6): the whole resource.
const PayloadFull = "full"

// Endpoint statuses.
const (
	EndpointActive       = "active"
	EndpointAutoDisabled = "auto_disabled"
)

// Subscribable is what an endpoint may subscribe to: the event catalogue
// (EventTypes). webhook.test is sent to every endpoint and is not in it.
var Subscribable = EventTypes.Strings()

// Subscribes reports whether the endpoint wants events of type t.
func (e *Endpoint) Subscribes(t string) bool { return slices.Contains(e.EventTypes, t) }

// Delivers reports whether an event of type t made now gets a delivery
// record on the endpoint: it is switched on, not auto-disabled, and
// subscribed. Events made while an endpoint is disabled are never
// backfilled (api-v1 §6.5).
func (e *Endpoint) Delivers(t string) bool {
	return e.IsActive && e.Status == EndpointActive && e.Subscribes(t)
}

// Delivery is one attempt to deliver one event to one endpoint (api-v1
// §2.7). Every attempt is its own record; a record is written pending and
// rewritten once with its outcome.
type Delivery struct {
	// ID is a UUIDv7 whose time is CreatedAt, so records sort by creation
	// time and then id simply by sorting ids.
	ID             uuid.UUID       `json:"id"`
	EndpointID     uuid.UUID       `json:"endpointId"`
	EventID        string          `json:"eventId"`
	EventType      string          `json:"eventType"`
	Status         string          `json:"status"`
	Attempt        int             `json:"attempt"`
	ResponseStatus int             `json:"responseStatus,omitempty"` // 0: none (shown as null)
	ResponseBody   *string         `json:"responseBody,omitempty"`
	ErrorMessage   string          `json:"errorMessage,omitempty"` // empty: shown as null
	DurationMs     int64           `json:"durationMs"`
	NextRetryAt    time.Time       `json:"nextRetryAt,omitzero"`
	DeliveredAt    time.Time       `json:"deliveredAt,omitzero"`
	Payload        json.RawMessage `json:"payload"`
	CreatedAt      time.Time       `json:"createdAt"`
}

// Delivery statuses (api-v1 §3.3).
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed" // a retry is scheduled at NextRetryAt
	DeliveryExhausted = "exhausted"
)

// Open reports whether the delivery still has an attempt to make: it is
// being attempted, or a retry is scheduled.
func (d *Delivery) Open() bool { return d.Status == DeliveryPending || d.Status == DeliveryFailed }
