// Package admin is slotd's admin listener, the dashboard's side of slotd:
// health and readiness probes (/healthz, /readyz), metrics (/metrics),
// Go's profiles (/debug/pprof, pprof.go), and a small API (/admin/v1) that
// puts businesses in the world file format and issues or revokes API
// keys. It listens on loopback by default. With --admin-token every
// /admin/v1 call, /metrics and pprof need that bearer token; without one
// the admin API still answers reads (those included) but refuses writes.
// Only the probes, /healthz and /readyz, never need it.
//
// Every world reaches the engine through PutWorld (reload.go): --world at
// start, POST /admin/v1/world and PUT /admin/v1/businesses/{id}. In
// cluster mode a world is put business by business on each business's
// node (clusterworld.go), by the engine call only the hand-over listener
// carries (EnginePut).
package admin
