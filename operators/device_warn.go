package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
)

// Warnings of GPU batches. The device kernels compute the values MySQL
// gives for bad input (NULL for text that is no date, a zero divisor, an
// interval past 9999) but keep no warning list. A DeviceCompute whose
// expressions hold a call that warns on the CPU (one with an EvalW) runs,
// when the statement collects warnings, a probe over each batch: a filter
// kernel passing the rows where such a call is NULL although none of its
// arguments is, the rows the CPU warns on. Only a batch with such rows
// (bad input is rare) is copied to the host and evaluated there for its
// warnings, with the CPU kernels, so that the text and count are the
// CPU's; the values stay the GPU's. Warnings on rows whose result is not
// NULL (a date read by dropping trailing text, text that is a number only
// in part, a clamped TIME) are not probed: the GPU still leaves those out.
// A comparison's reading of text (expr.CmpTimestampName) gives the zero
// date, not NULL, for text that is no date: its probe passes the rows
// where it is the zero date.

// warnProbe is the predicate true on a row where a warning-giving call of
// exprs is NULL and none of its arguments is; nil when exprs hold no such
// call.
func warnProbe(exprs ...expr.Expr) (expr.Expr, error) {
	var probe expr.Expr
	seen := map[string]bool{}
	var walkErr error
	for _, e := range exprs {
		if e == nil {
			continue
		}
		expr.Walk(e, func(x expr.Expr) {
			c, ok := x.(*expr.Call)
			if !ok || c.Fn.EvalW == nil || walkErr != nil || seen[expr.Key(c)] || cannotWarn(c) {
				return
			}
			seen[expr.Key(c)] = true
			if c.Fn.Name == expr.CmpTimestampName {
				// A comparison's text that is no date is the zero date,
				// not NULL (expr/cmpdate.go): the rows it warns on.
				term, err := probeCall("=", c, &expr.Literal{Value: expr.ZeroTimestamp, T: coldata.Timestamp})
				if err == nil && probe != nil {
					term, err = probeCall("or", probe, term)
				}
				probe, walkErr = term, err
				return
			}
			term, err := probeCall("is_null", c)
			for _, a := range c.Args {
				if err != nil {
					break
				}
				if l, lit := a.(*expr.Literal); lit && l.Value != nil {
					continue // never NULL
				}
				var notNull expr.Expr
				if notNull, err = probeCall("is_null", a); err == nil {
					if notNull, err = probeCall("not", notNull); err == nil {
						term, err = probeCall("and", term, notNull)
					}
				}
			}
			if err == nil && probe != nil {
				term, err = probeCall("or", probe, term)
			}
			probe, walkErr = term, err
		})
	}
	return probe, walkErr
}

// cannotWarn reports a call whose warnings come only from text: a cast
// to a number of a number (AVG's cast of an integer to DECIMAL, in many
// device projections) never warns, and probing it would cost a pass over
// every batch.
func cannotWarn(c *expr.Call) bool {
	switch c.Fn.Name {
	case "cast_to_decimal", expr.CastFuncName(coldata.Float64), expr.CastFuncName(coldata.Int64):
		return len(c.Args) > 0 && c.Args[0].Type().Plain() != coldata.String
	}
	return false
}

func probeCall(name string, args ...expr.Expr) (expr.Expr, error) {
	f, ok := expr.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("internal error: no function %s", name)
	}
	return expr.NewCall(f, args)
}

// nopInput is the probe's input: the probe only computes batches handed to
// it.
type nopInput struct{}

func (nopInput) Open(context.Context) error                               { return nil }
func (nopInput) NextDevice(context.Context) (*gpuexec.DeviceBatch, error) { return nil, nil }
func (nopInput) Close() error                                             { return nil }

// warnBatch adds to w the warnings the CPU gives for batch in when the
// probe finds rows to warn on. A probe that cannot run leaves the batch
// without warnings (the values are already computed).
func (c *DeviceCompute) warnBatch(ctx context.Context, in *gpuexec.DeviceBatch, w *expr.Warnings) error {
	if c.probe == nil {
		pred, err := warnProbe(append([]expr.Expr{c.Pred}, c.outputs()...)...)
		if err != nil || pred == nil {
			c.noProbe = true
			return nil
		}
		p := &DeviceCompute{Input: nopInput{}, RT: c.RT, Types: c.Types, Pred: pred,
			Exprs: []expr.Expr{&expr.Literal{Value: int64(1), T: coldata.Int64}}, Fused: c.Fused, Strict: c.Strict, Tier: c.Tier,
			// The probe's predicate holds the calls it looks for: a probe
			// of its own would probe again, without end (it hung every
			// GPU query with a division on the H200).
			noProbe: true}
		if err := p.Open(ctx); err != nil {
			c.noProbe = true
			return nil
		}
		c.probe = p
	}
	hits, err := c.probe.compute(ctx, in)
	if err != nil {
		return ctx.Err()
	}
	n := hits.Len
	if err := hits.Release(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if c.Stats != nil {
		c.Stats.WarningBatches.Add(1)
	}
	_, err = c.hostEval(ctx, in, w)
	return err
}
