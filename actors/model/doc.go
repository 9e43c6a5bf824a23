// Package model is slotd's domain model: a business's profile, booking
// rules, API keys, service catalogue, staff and customers, its
// appointments, holds, waitlist, payments and webhook endpoints, each
// enumeration with its frozen codes (Enum), and the entitlement rules
// that decide which plan grants which scope. Every layer speaks it.
//
// The types here are plain values. They are decoded from the world file,
// carried in journal records and held in a business actor's state; nothing in
// this package does I/O, starts goroutines or reads the clock.
package model

import _ "time/tzdata" // business time zones must resolve on machines without zoneinfo
