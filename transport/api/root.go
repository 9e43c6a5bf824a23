package api

import (
	"encoding/json"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/transport/edge"
)

// root answers GET /: what this server is and where its API, the booking
// page and the documentation are, for a person who opens the public
// listener's address or curls it without a key. It needs no key and says
// nothing of any business.
func (s *Server) root(ctx *fasthttp.RequestCtx) {
	edge.WriteJSON(ctx, fasthttp.StatusOK, s.rootBody)
}

// rootBody is root's answer, made once.
func rootBody(public string) []byte {
	b, err := json.Marshal(struct {
		Name           string `json:"name"`
		About          string `json:"about"`
		API            string `json:"api"`
		Authentication string `json:"authentication"`
		Me             string `json:"me"`
		BookingPage    string `json:"bookingPage"`
		Documentation  string `json:"documentation"`
	}{
		Name:           "slotd",
		About:          "slotd is an appointment scheduling server; this is its public listener: the REST API, the booking page and customers' manage links.",
		API:            public + "/api/v1",
		Authentication: "Send Authorization: Bearer <API key>. The operator makes keys (world file or admin API); an empty data directory's first start prints the demo's.",
		Me:             public + "/api/v1/me",
		BookingPage:    public + "/book/{businessId}?key=<publishable key>",
		Documentation:  "docs/api-v1.md, docs/decisions.md and docs/openapi.json in slotd's source tree; the README's quick start.",
	})
	if err != nil {
		panic(err) // strings only
	}
	return b
}
