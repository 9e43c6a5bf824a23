package api

import (
	"context"
	"crypto/rand"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/deliver"
)

// Webhook endpoint management (api-v1 §4.5, decisions §3–4). Registration
// and a URL change are refused before their test ping when they can never
// succeed (validation, a duplicate URL, a sixth endpoint), so those spend
// nothing from the ping bucket; otherwise the signed webhook.test ping must
// be answered with 2xx before anything is stored. A ping the destination
// guard refused (the URL leads to a loopback, private or otherwise
// non-public address) is answered as such, invalid_url on url, not as a
// consumer that failed to answer; every failed ping is logged with its
// cause.

const (
	maxURL         = 2000
	maxDescription = 500
)

var (
	errPingFailed   = problem.FieldError("url", problem.Invalid, "The endpoint did not answer the signed webhook.test ping with a 2xx status.")
	errDestination  = problem.FieldError("url", problem.InvalidURL, "The destination is not allowed: webhooks are only sent to public internet addresses on port 443."+insecureHint)
	errIdemNotTaken = problem.FieldError("Idempotency-Key", problem.UnknownField, "This endpoint does not accept an Idempotency-Key; a URL can be registered once.")
)

func (s *Server) listWebhooks(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	c.writeWith(func(b []byte) []byte {
		b = append(b, `{"data":[`...)
		for i := range c.st.Endpoints() {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendEndpoint(b, &c.st.Endpoints()[i], false)
		}
		return append(b, `],"hasMore":false,"nextCursor":null}`...)
	})
}

func (s *Server) getWebhook(c *call) {
	getOne(c, c.st.Endpoint, func(b []byte, e *model.Endpoint) []byte { return wire.AppendEndpoint(b, e, false) })
}

func (s *Server) registerWebhook(c *call) {
	if len(c.ctx.Request.Header.Peek("Idempotency-Key")) > 0 {
		edge.WriteError(c.ctx, errIdemNotTaken)
		return
	}
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	in, err := s.decodeEndpoint(c.ctx.PostBody())
	if err == nil {
		err = c.st.CheckRegister(in.URL)
	}
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	secret, err := webhook.NewSecret(rand.Reader)
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	if perr := s.ping(c, in.URL, secret); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	c.endpoint(201, true)(directory.Do(rctx, s.Dir, c.st.Business().ID, directory.RegisterEndpoint{In: *in, Secret: secret}))
}

// decodeEndpoint validates a registration body.
func (s *Server) decodeEndpoint(body []byte) (*directory.EndpointInput, error) {
	var errs input.Errors
	in := &directory.EndpointInput{}
	if obj, ok := input.ParseObject(body, &errs); ok {
		in.URL = s.webhookURL(obj, &errs, input.Required)
		in.EventTypes = eventTypes(obj, input.Required)
		in.Description, _ = obj.String("description", input.Optional, maxDescription)
		obj.Done()
	}
	return in, errs.Err()
}

// webhookURL reads and checks the url member.
func (s *Server) webhookURL(obj input.Object, errs *input.Errors, p input.Presence) string {
	u, ok := obj.String("url", p, maxURL)
	if !ok {
		return ""
	}
	if err := deliver.CheckURL(u, s.WebhooksAllowInsecure); err != nil {
		errs.Add("url", problem.InvalidURL, "Must be an https:// URL on port 443."+insecureHint)
		return ""
	}
	return u
}

// eventTypes reads the eventTypes member: subscribable types, no repeats.
func eventTypes(obj input.Object, p input.Presence) []string {
	arr, ok := obj.Array("eventTypes", p)
	if !ok {
		return nil
	}
	out := []string{}
	seen := map[string]bool{}
	for i := 0; i < arr.Len(); i++ {
		t, ok := arr.Option(i, model.Subscribable...)
		if ok && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// ping sends the signed webhook.test event to url and waits for its answer
// (at most the delivery timeout). It spends from the business's bucket.
func (s *Server) ping(c *call, url, secret string) *problem.Error {
	if perr := s.spendPing(c); perr != nil {
		return perr
	}
	now := s.Clock.Now()
	id := "evt_" + ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()
	body := append([]byte(`{"id":`), wire.AppendString(nil, id)...)
	body = append(body, `,"type":"webhook.test","createdAt":`...)
	body = wire.AppendTime(body, now)
	body = append(body, `,"apiVersion":"v1","data":{"object":"test"}}`...)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res := s.Webhooks.Send(ctx, deliver.Request{URL: url, ID: id, Timestamp: now, Body: body, Secret: secret})
	if res.Status >= 200 && res.Status <= 299 {
		s.metrics.pingOK.Inc()
		return nil
	}
	cause := res.ErrMessage
	if res.Status != 0 {
		cause = "HTTP " + strconv.Itoa(res.Status)
		if res.ErrMessage != "" {
			cause += ", " + res.ErrMessage
		}
	}
	log := s.Log.With("request_id", edge.RequestID(c.ctx), "business", c.st.Business().ID, "host", hostOf(url), "cause", cause)
	if reason, refused := deliver.Refusal(res.Err); refused {
		s.metrics.pingRefd.Inc()
		log.Info("webhook ping refused by the destination guard")
		return destinationRefused(reason)
	}
	s.metrics.pingFail.Inc()
	log.Info("webhook ping failed")
	return errPingFailed
}

// destinationRefused is the 400 of a URL the destination guard refused to
// connect to, naming the class of the address (never the address, which
// would echo input): "a loopback address", "a private address", ...
func destinationRefused(reason string) *problem.Error {
	if !strings.HasPrefix(reason, "a ") && !strings.HasPrefix(reason, "an ") {
		return errDestination
	}
	return problem.FieldError("url", problem.InvalidURL,
		"The destination is not allowed: the URL's host is "+reason+", and webhooks are only sent to public internet addresses."+insecureHint)
}

// insecureHint ends the refusals of a local or plain-http webhook URL: an
// integrator trying webhooks on a laptop needs the development flag's name.
const insecureHint = " (For local testing, a server started with --webhooks-allow-insecure accepts http://, any port and private or loopback addresses.)"

// hostOf is the host of a URL, for the log: the rest of a webhook URL may
// carry the consumer's own secrets.
func hostOf(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

func (s *Server) patchWebhook(c *call) {
	id, ok := c.pathID("id")
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	e := (*model.Endpoint)(nil)
	if ok {
		e = c.st.Endpoint(id)
	}
	if e == nil {
		edge.WriteError(c.ctx, errNotFound)
		return
	}
	var errs input.Errors
	var in directory.EndpointPatch
	if obj, ok := input.ParseObject(c.ctx.PostBody(), &errs); ok {
		if obj.Has("url") {
			if u := s.webhookURL(obj, &errs, input.Required); u != "" {
				in.URL = &u
			}
		}
		if obj.Has("eventTypes") {
			in.EventTypes = eventTypes(obj, input.Required)
		}
		if d, ok := obj.String("description", input.Optional, maxDescription); ok {
			in.Description = &d
		}
		if v, ok := obj.Bool("isActive", input.Optional); ok {
			in.IsActive = &v
		}
		obj.Done()
	}
	err := errs.Err()
	if err == nil && in.URL != nil && *in.URL != e.URL {
		if err = c.st.CheckURLChange(id, *in.URL); err == nil {
			if perr := s.ping(c, *in.URL, e.Secret); perr != nil {
				err = perr
			}
		}
	}
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	c.endpoint(200, false)(directory.Do(rctx, s.Dir, c.st.Business().ID, directory.PatchEndpoint{ID: id, In: in}))
}

func (s *Server) deleteWebhook(c *call) {
	deleteByID(c, func(id uuid.UUID) bool { return c.st.Endpoint(id) != nil },
		func(id uuid.UUID) directory.DeleteEndpoint { return directory.DeleteEndpoint{ID: id} })
}

// endpoint returns the writer of an endpoint answer with status; the
// secret is shown only in the answer of a registration.
func (c *call) endpoint(status int, withSecret bool) func(model.Endpoint, error) {
	return func(e model.Endpoint, err error) {
		if err != nil {
			c.s.Fail(c.ctx, err)
			return
		}
		edge.WriteJSON(c.ctx, status, wire.AppendEndpoint(nil, &e, withSecret))
	}
}
