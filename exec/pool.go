package exec

import (
	"context"
	"fmt"
	"sync"
)

// parallel runs fn(0..n-1) on at most workers goroutines and returns the
// first error. A panic in fn becomes an error, so it never crosses the API.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	workers = max(1, min(workers, n))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if stop || i >= n {
					return
				}
				if err := safeCall(ctx, i, fn); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func safeCall(ctx context.Context, i int, fn func(context.Context, int) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(fmt.Sprintf("task %d", i), r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(ctx, i)
}
