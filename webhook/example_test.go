package webhook_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/slotd/slotd/webhook"
)

// An integrator receiving slotd webhooks in a net/http server. The body must
// be verified exactly as received, before any JSON decoding.
func Example() {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // from the slotd dashboard

	verifier, err := webhook.NewVerifier(secret)
	if err != nil {
		panic(err) // a malformed secret is a configuration error
	}

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		err = verifier.Verify(
			r.Header.Get(webhook.HeaderID),
			r.Header.Get(webhook.HeaderTimestamp),
			r.Header.Get(webhook.HeaderSignature),
			body,
			time.Now(),
		)
		if err != nil {
			// Do not process it; slotd will retry a genuine message.
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		// Deduplicate on webhook-id here: retries reuse the same id.
		w.WriteHeader(http.StatusNoContent)
	})

	// What slotd sends, simulated here so the example is self-contained.
	send := func(body []byte, tamper bool) int {
		now := time.Now().Unix()
		sig, err := webhook.Sign(secret, "msg_2Nk1", now, body)
		if err != nil {
			panic(err)
		}
		if tamper {
			body = append(body, ' ')
		}
		req := httptest.NewRequest(http.MethodPost, "/hooks/slotd", bytes.NewReader(body))
		req.Header.Set(webhook.HeaderID, "msg_2Nk1")
		req.Header.Set(webhook.HeaderTimestamp, strconv.FormatInt(now, 10))
		req.Header.Set(webhook.HeaderSignature, sig)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec.Code
	}

	fmt.Println(send([]byte(`{"type":"booking.created"}`), false))
	fmt.Println(send([]byte(`{"type":"booking.created"}`), true))
	// Output:
	// 204
	// 401
}
