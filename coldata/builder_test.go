package coldata

import (
	"errors"
	"testing"
)

func TestConcatCheckStops(t *testing.T) {
	var batches []*Batch
	for i := 0; i < 4; i++ {
		bl := NewBuilder(Int64, 2)
		bl.AppendInt(int64(i))
		bl.AppendInt(int64(-i))
		batches = append(batches, &Batch{Cols: []*Vec{bl.Finish()}, Len: 2})
	}
	calls := 0
	stop := errors.New("stop")
	if _, err := ConcatCheck(batches, 1, func() error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || calls != 3 {
		t.Fatalf("err %v after %d checks, want stop after 3", err, calls)
	}
	out, err := ConcatCheck(batches, 1, func() error { return nil })
	if err != nil || out.Len != 8 || out.Cols[0].Int(7) != -3 {
		t.Fatalf("ConcatCheck = %v, %v", out, err)
	}
}
