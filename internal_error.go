package gsql

import (
	"fmt"
	"runtime/debug"

	"github.com/gsqlengine/gsql/errkind"
)

// InternalError is a bug in gsql caught at the API boundary: the statement
// failed instead of crashing the process. The fuzz targets treat any
// InternalError as a failure.
type InternalError struct {
	Value any
	Stack string
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error (please report): %v", e.Value)
}

// PanicStack is the goroutine stack where the panic was caught, for test
// runners that print it beside the failure.
func (e *InternalError) PanicStack() string { return e.Stack }

// ErrorKind implements errkind.Kinded: errkind.Internal.
func (e *InternalError) ErrorKind() errkind.Kind { return errkind.Internal }

// recoverInternal turns a panic into an InternalError stored in *err.
func recoverInternal(err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Value: r, Stack: string(debug.Stack())}
	}
}
