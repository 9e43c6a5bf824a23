// Package world owns the world file (decisions.md §2): the strict reading
// of the JSON document that declares businesses with their catalogue,
// staff, keys, customers, appointments and recurring series, and its
// translation into model.Spec values. The admin API's business PUT uses
// the same rules through ParseBusiness.
//
// Reading is all or nothing. Every problem in the document is collected,
// each naming its JSON path ("businesses.0.staff.1.hours.mon.0"), and a
// document with any problem yields no specs at all, so an operator fixes
// the file in one pass and nothing is ever half-loaded.
//
// The package is pure: no I/O, no clock, no goroutines. Timestamps in the
// specs are left zero for the business actor to stamp.
package world
