package catalog

import (
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

// Endpoint statuses.
const (
	EndpointActive       = "active"
	EndpointAutoDisabled = "auto_disabled"
)

// Subscribable is the event catalogue of api-v1 §6.1 an endpoint may
// subscribe to; webhook.test is sent to every endpoint and is not in it.
var Subscribable = []string{
	"appointment.created", "appointment.updated", "appointment.confirmed", "appointment.cancelled",
	"appointment.completed", "appointment.no_show", "customer.created", "payment.succeeded", "payment.refunded",
}

// Subscribes reports whether the endpoint wants events of type t.
func (e *Endpoint) Subscribes(t string) bool { return slices.Contains(e.EventTypes, t) }
