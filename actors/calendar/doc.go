// Package calendar owns slotd's scheduling decisions for one business: when a
// staff member works (in the business's time zone, DST included), what a
// service's footprint looks like, what a booking costs, whether a start time
// can be booked and by whom (the booking rules of api-v1 §7.3 in the order of
// decisions §4), and which start times the availability endpoint offers.
//
// # One judgement, two callers
//
// Availability must never offer a start that a booking at that moment would
// refuse, and must never hide one it would accept. The package makes that
// true by construction rather than by testing two implementations against
// each other. For a staff member, the free stretches are their merged working
// spans minus the active items of the interval index; a start is judged by
// one function, judge, over the stretches cut to the window of the start's
// local day (the day plus the footprint, widened by more than minGapMinutes):
// every active piece must lie inside one free stretch, and with preventGaps
// no stretch the booking touches may be left shorter than minGapMinutes.
// Decide computes the stretches of that one window for each candidate and
// asks judge once. Slots computes each candidate's stretches once for the
// whole query, which cut to any day's window are exactly what Decide would
// compute, and sweeps the grid starts in order with a pointer that only moves
// forward, asking judge only for starts whose first active piece falls in a
// free stretch; a week costs O(staff × (slots + stretches)) instead of a tree
// query per slot. The rules that depend on the start alone (notice, advance,
// restricted periods, the grid) are checked in both from the same
// definitions.
//
// Everything here is a pure function of its arguments: no goroutines, no
// clock, no I/O. Times of day are local wall-clock times converted with
// time.Date in the business's location; instants are Unix milliseconds, as in
// package interval.
package calendar
