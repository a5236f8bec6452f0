package mysql

import (
	"errors"

	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/server/mysql/wire"
)

// mysqlError gives a gsql error the MySQL code and SQLSTATE a MySQL
// client expects for the same mistake: those of its kind (errkind.Of,
// the one mapping both servers use). The message stays gsql's (it carries
// line and column), except for a cancelled or timed-out statement, which
// says so as MySQL does. An error holding a *wire.Error passes unchanged.
func mysqlError(err error) error {
	if err == nil {
		return nil
	}
	var we *wire.Error
	if errors.As(err, &we) {
		return err // already chosen (the protocol layer sends the *wire.Error)
	}
	return kindError(errkind.Of(err), err)
}

// kindError is err sent as an error of kind k.
func kindError(k errkind.Kind, err error) *wire.Error {
	code, state := k.MySQL()
	msg := err.Error()
	switch k {
	case errkind.Canceled:
		msg = "Query execution was interrupted"
	case errkind.Timeout:
		msg = "Query execution was interrupted, maximum statement execution time exceeded"
	}
	return &wire.Error{Code: code, State: state, Msg: msg, Err: err}
}
