package datagen

import (
	"context"
	"runtime"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
)

// RangeGenerator emits the records of the n rows starting at row start.
type RangeGenerator func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error

// ParallelRows runs gen over rows 1 through total (1-based, as the
// generators number them) in ranges, one worker per CPU and about four
// ranges per worker (at least 8,192 rows each), and returns the records
// in row order, as Parallel does.
func ParallelRows(ctx context.Context, total int64, gen RangeGenerator) ([]arrow.Record, error) {
	workers := runtime.GOMAXPROCS(0)
	chunk := max(total/int64(4*workers), 8192)
	var starts []int64
	for s := int64(1); s <= total; s += chunk {
		starts = append(starts, s)
	}
	return Parallel(ctx, starts, chunk, workers, gen)
}

// Parallel runs gen over the chunk-row ranges starting at starts, workers
// at a time, and returns every record in range order (the order a
// sequential run gives), for the caller to release. The first error
// cancels the rest; the records made so far are released.
func Parallel(ctx context.Context, starts []int64, chunk int64, workers int, gen RangeGenerator) ([]arrow.Record, error) {
	parts := make([][]arrow.Record, len(starts))
	errs := make([]error, len(starts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(workers, len(starts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = gen(ctx, starts[i], chunk, func(r arrow.Record) error {
					parts[i] = append(parts[i], r)
					return nil
				})
				if errs[i] != nil {
					cancel()
				}
			}
		}()
	}
	for i := range starts {
		next <- i
	}
	close(next)
	wg.Wait()
	var recs []arrow.Record
	var err error
	for i, p := range parts {
		recs = append(recs, p...)
		if err == nil && errs[i] != nil {
			err = errs[i]
		}
	}
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, err
	}
	return recs, nil
}
