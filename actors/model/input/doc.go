// Package input owns the strict reading of untrusted JSON: HTTP request
// bodies and the world file.
//
// A document is scanned once (ParseObject: a strict one-pass scanner, no
// encoding/json, into a flat slice of nodes; see tree.go and scan.go) and
// then read through typed accessors (Object, Array) that never stop at the first
// mistake: every problem is collected in an Errors value as a problem.Field
// naming its dotted path ("customer.email", "eventTypes.0"), so a client or
// an operator sees everything wrong in one round trip. Keys nobody read are
// reported as unknown_field by Object.Done, which is what makes parsing
// strict without every caller listing the keys it accepts twice.
//
// Messages are fixed sentences written here; they never echo input values,
// because error bodies end up in logs and in third-party dashboards.
//
// The package is pure: it does no I/O and keeps no state between calls.
package input
