package exec

import "github.com/apache/arrow-go/v18/arrow"

// scratch holds one task's buffers: reused batch after batch and, with the
// task (Query.newTask), trigger after trigger.
type scratch struct {
	// sels hands out selections that live until the end of the trigger:
	// the filter's, the routed ones and the prepare phase's temporaries.
	sels   int32Arena
	keys   []arrow.Array
	hashes []uint64
	partOf []int32
	counts []int32
	next   []int32
	// starts and lasts hold window starts.
	starts, lasts []int64
	// shuffles are this task's shuffles of the running trigger.
	shuffles []*shuffled
	used     int
}

// shuffle returns an empty shuffle for one route of the task, reusing one
// of an earlier trigger.
func (sc *scratch) shuffle() *shuffled {
	if sc.used == len(sc.shuffles) {
		sc.shuffles = append(sc.shuffles, &shuffled{})
	}
	s := sc.shuffles[sc.used]
	sc.used++
	return s
}

// reset makes the scratch ready for another trigger: the selections handed
// out are dead (their batches were consumed), the shuffles released.
func (sc *scratch) reset() {
	sc.sels.reset()
	sc.used = 0
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/8)
	}
	return s[:n]
}

// int32Arena hands out int32 slices carved from one large chunk, all freed
// at once by reset; after reset the chunk is reused, so a trigger like the
// one before allocates nothing.
type int32Arena struct {
	cur   []int32 // the chunk being carved, its length what is handed out
	spent int     // the sizes of the chunks filled before cur
}

// take returns an empty slice with room for n values (at least one, so it
// is never nil).
func (a *int32Arena) take(n int) []int32 {
	n = max(n, 1)
	l := len(a.cur)
	if cap(a.cur)-l < n {
		a.spent += cap(a.cur)
		a.cur = make([]int32, 0, max(n, 2*cap(a.cur), 4096))
		l = 0
	}
	a.cur = a.cur[:l+n]
	return a.cur[l : l : l+n]
}

// keep returns a copy of sel from the arena (nil stays nil).
func (a *int32Arena) keep(sel []int32) []int32 {
	if sel == nil {
		return nil
	}
	return append(a.take(len(sel)), sel...)
}

// reset frees everything handed out. A trigger that needed more than one
// chunk gets one chunk of the size of them all for the next.
func (a *int32Arena) reset() {
	if a.spent > 0 {
		a.cur = make([]int32, 0, a.spent+cap(a.cur))
		a.spent = 0
	}
	a.cur = a.cur[:0]
}
