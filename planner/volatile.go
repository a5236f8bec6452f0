package planner

import "github.com/gsqlengine/gsql/expr"

// Volatile reports whether e calls a function that keeps state (a
// correlated subquery): the rewrites leave those where they are, and the
// builder keeps them on one goroutine.
func Volatile(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) {
		if c, ok := x.(*expr.Call); ok && c.Fn.Volatile {
			found = true
		}
	})
	return found
}

// volatile is Volatile, under the name the rewrites use.
func volatile(e expr.Expr) bool { return Volatile(e) }
