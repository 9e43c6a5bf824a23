package world

import (
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
)

// The parallel walks read a file's businesses on several goroutines: one
// walks the document and hands out each business's bytes, the others
// parse and read them. Reading was most of a world load's time on one
// core while the other waited (2026-11-27: a 400 MB file, 4.9 s to check
// and 5.2 s to read again on the walking goroutine).
//
// They are for files that are valid, which is what a load meets: on any
// problem CheckParallel says only that there is one, and the caller runs
// Check for the report, whose order of problems depends on reading the
// businesses one after the other.

// errInvalid stops a parallel walk at its first problem.
var errInvalid = errors.New("world: the file has a problem")

// CheckParallel reads the world file in r as Check does, on workers
// goroutines, and returns the outline Check returns for a valid file.
// valid is false when the file has any problem (run Check for the report);
// err is a failure to read r.
//
// When the businesses' JSON totals at most keep bytes, specs holds every
// business whole, in file order, so that a caller can put them without
// reading the file again; beyond keep (or with keep 0) specs is nil and
// memory holds a few businesses at a time. A spec takes less memory than
// its JSON (ids are 16 bytes, not 38).
func CheckParallel(r io.Reader, workers int, keep int64) (outline, specs []model.Spec, valid bool, err error) {
	var mu sync.Mutex
	var claims []claim
	var seen int64 // the businesses' bytes so far (the walking goroutine's)
	keeping := keep > 0
	err = walkParallel(r, workers, func(n int) {
		mu.Lock()
		defer mu.Unlock()
		if seen += int64(n); seen > keep && keeping {
			keeping, specs = false, nil
		}
	}, func(i int, spec model.Spec) error {
		c := claim{id: spec.Business.ID}
		for _, k := range spec.Keys {
			c.keys = append(c.keys, k.Hash)
		}
		mu.Lock()
		defer mu.Unlock()
		for len(outline) <= i {
			outline = append(outline, model.Spec{})
			claims = append(claims, claim{})
		}
		outline[i] = model.Spec{Business: spec.Business, Keys: spec.Keys}
		claims[i] = c
		if keeping {
			for len(specs) <= i {
				specs = append(specs, model.Spec{})
			}
			specs[i] = spec
		}
		return nil
	})
	switch {
	case errors.Is(err, errInvalid):
		return nil, nil, false, nil
	case err != nil:
		return nil, nil, false, err
	}
	// What only the whole file shows: an id or a key in two businesses.
	ids := make(map[uuid.UUID]bool, len(claims))
	keys := map[model.KeyHash]bool{}
	for _, c := range claims {
		if ids[c.id] {
			return nil, nil, false, nil
		}
		ids[c.id] = true
		for _, h := range c.keys {
			if keys[h] {
				return nil, nil, false, nil
			}
			keys[h] = true
		}
	}
	if !keeping {
		specs = nil
	}
	return outline, specs, true, nil
}

// claim is what a business takes that no other business may: its id and
// its keys.
type claim struct {
	id   uuid.UUID
	keys []model.KeyHash
}

// EachParallel reads the world file in r as Each does and calls fn with
// each business and its index in the file, on workers goroutines at once,
// in no particular order. Run it on a file Check accepted. It stops at fn's
// first error (businesses already being read may still be handed to fn)
// and returns it; a problem found after all (the file changed between the
// readings) stops it with an error that says so.
func EachParallel(r io.Reader, workers int, fn func(i int, spec model.Spec) error) error {
	return walkParallel(r, workers, nil, fn)
}

// walkParallel walks r, reading each business on one of workers
// goroutines and handing it to fn there; sized, if set, learns each
// business's size in bytes first, on the walking goroutine. A business with
// a problem, or a problem of the document, ends the walk with errInvalid.
func walkParallel(r io.Reader, workers int, sized func(n int), fn func(i int, spec model.Spec) error) error {
	type job struct {
		i   int
		raw []byte
	}
	jobs := make(chan job, workers)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
	for range max(workers, 1) {
		wg.Go(func() {
			var parser input.Reader
			for j := range jobs {
				if failed() != nil {
					continue // drain
				}
				// No valid(j.raw) first: the parser refuses whatever valid
				// refuses (and nests deeper than MaxDepth besides), and a
				// refusal here only sends the caller to Check for the exact
				// report. The second pass was 6 % of loading a world.
				var errs input.Errors
				o, ok := parser.ParseObjectAt(j.raw, "businesses."+strconv.Itoa(j.i), &errs)
				if !ok {
					fail(errInvalid)
					continue
				}
				spec, _ := readBusiness(o, &errs, map[model.KeyHash]bool{})
				o.Done()
				if !errs.Empty() {
					fail(errInvalid)
					continue
				}
				if err := fn(j.i, spec); err != nil {
					fail(err)
				}
			}
		})
	}
	w := &walker{s: newScanner(r), seenKeys: map[model.KeyHash]bool{}, seenIDs: map[uuid.UUID]bool{}}
	w.rawFn = func(i int, raw []byte) error {
		if err := failed(); err != nil {
			return err
		}
		if sized != nil {
			sized(len(raw))
		}
		jobs <- job{i, raw}
		return nil
	}
	err := w.walk()
	close(jobs)
	wg.Wait()
	var werr *Error
	switch {
	case errors.As(err, &werr):
		return errInvalid
	case err != nil:
		return err
	}
	return failed()
}
