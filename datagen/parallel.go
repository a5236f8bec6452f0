package datagen

import (
	"context"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
)

// RangeGenerator emits the records of the n rows starting at row start.
type RangeGenerator func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error

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
