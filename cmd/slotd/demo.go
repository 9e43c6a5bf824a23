package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/world"
	"github.com/slotd/slotd/transport/admin"
)

//go:embed demo.json
var demoWorld string

// seedDemo puts the built-in demo business with fresh keys and prints
// them: they are stored hashed, so this is the only time they are shown.
// Besides the two secret keys for curl, the demo has a publishable key
// allowed from slotd's own origin (demoOrigin), and the booking page's
// URL is printed ready to open: a newcomer sees the page without making a
// key first (decisions §1).
func seedDemo(ctx context.Context, dir *directory.Directory, public string, out *banner) error {
	full, read, pub := admin.NewKey(), admin.NewKey(), admin.NewPublishableKey()
	origin, err := demoOrigin(public)
	if err != nil {
		return err
	}
	list, _ := json.Marshal([]string{origin})
	doc := strings.NewReplacer("{{KEY_FULL}}", full, "{{KEY_READ}}", read, "{{KEY_PUBLISHABLE}}", pub,
		"{{ORIGINS}}", string(list)).Replace(demoWorld)
	specs, err := world.Parse([]byte(doc))
	if err != nil {
		return fmt.Errorf("demo world: %w", err)
	}
	if _, err := dir.Put(ctx, specs); err != nil {
		return fmt.Errorf("seed demo business: %w", err)
	}
	b := specs[0].Business
	page := fmt.Sprintf("%s/book/%s?key=%s", public, b.ID, pub)
	out.say(fmt.Sprintf("empty data directory: seeded the demo business %q (id %s, timezone %s)", b.Name, b.ID, b.Timezone),
		"business", b.ID.String(), "name", b.Name, "timezone", b.Timezone)
	out.say("demo API key, all scopes: "+full, "key", full, "kind", "secret", "scopes", "all")
	out.say("demo API key, read-only:  "+read, "key", read, "kind", "secret", "scopes", "read")
	out.say(fmt.Sprintf("demo publishable key:     %s (allowed from %s)", pub, origin), "key", pub, "kind", "publishable", "allowedOrigin", origin)
	out.say("demo booking page:        "+page, "url", page)
	out.say("keys are stored hashed and will not be shown again.")
	return nil
}

// demoOrigin is the origin of public, the base of the links slotd gives
// out, as a browser sends it: the one origin the demo's publishable key
// lists. (The API takes a publishable key from slotd's own pages on any
// name of the server anyway; the key needs one origin to be valid.)
func demoOrigin(public string) (string, error) {
	o, ok := model.OriginOf(public)
	if !ok { // the command line's check refuses such a --public-url first
		return "", fmt.Errorf("--public-url %s: not an http or https URL", public)
	}
	return o, nil
}
