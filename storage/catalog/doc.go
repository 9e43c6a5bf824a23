// Package catalog owns the data model of one business (tenant): its profile,
// booking rules, API keys, service catalogue, staff and customers, together
// with the entitlement rules that decide which plan grants which scope.
//
// The types here are plain values. They are decoded from the world file,
// carried in journal records and held in a business actor's state; nothing in
// this package does I/O, starts goroutines or reads the clock.
package catalog

import _ "time/tzdata" // business time zones must resolve on machines without zoneinfo
