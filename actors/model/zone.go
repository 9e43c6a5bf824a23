package model

import (
	"sync"
	"time"
)

// Zone is time.LoadLocation, remembered: LoadLocation reads and parses the
// zone's data on every call (tens of microseconds, and a new copy of its
// transitions each time), and a business's zone is loaded whenever its
// state is built or its world is read — for every business of a world
// file, and again at each one's first request after a restart. A
// *time.Location is safe to share. Only zones that load are remembered,
// so names that are not zones cannot grow the cache.
func Zone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

var zones sync.Map // zone name -> *time.Location
