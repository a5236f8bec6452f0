package mysql

import (
	"errors"
	"strings"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/server/mysql/wire"
	"github.com/gsqlengine/gsql/sql"
	"github.com/gsqlengine/gsql/storage"
)

// mysqlError gives a gsql error the MySQL code and SQLSTATE a MySQL
// client expects for the same mistake; the message stays gsql's (it
// carries line and column). Errors it does not know pass through and the
// protocol layer sends them as 1105 (or 1317 for a cancelled query).
func mysqlError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*wire.Error); ok {
		return err // already chosen
	}
	code, state := codeOf(err)
	if code == 0 {
		return err
	}
	return &wire.Error{Code: code, State: state, Msg: err.Error(), Err: err}
}

func codeOf(err error) (uint16, string) {
	var se *sql.Error
	var pe *planner.Error
	var oe *catalog.ObjectError
	var ve *catalog.ViewError
	var ae *expr.ArgError
	var oom *memory.OutOfMemoryError
	var le *storage.LockedError
	var ie *gsql.InternalError
	switch {
	case errors.As(err, &se):
		if se.Kind == sql.ErrUnsupported {
			return 1235, "42000" // ER_NOT_SUPPORTED_YET
		}
		if se.Kind == sql.ErrOperand {
			return 1241, "21000" // ER_OPERAND_COLUMNS
		}
		return 1064, "42000" // ER_PARSE_ERROR
	case errors.As(err, &pe):
		switch pe.Kind {
		case planner.UnknownTable:
			return 1146, "42S02" // ER_NO_SUCH_TABLE
		case planner.UnknownColumn:
			return 1054, "42S22" // ER_BAD_FIELD_ERROR
		case planner.AmbiguousColumn:
			return 1052, "23000" // ER_NON_UNIQ_ERROR
		case planner.UnknownFunction:
			return 1305, "42000" // ER_SP_DOES_NOT_EXIST
		case planner.Unsupported:
			return 1235, "42000"
		}
		return 1210, "HY000" // ER_WRONG_ARGUMENTS
	case errors.As(err, &oe):
		if oe.Exists {
			return 1050, "42S01" // ER_TABLE_EXISTS_ERROR
		}
		return 1051, "42S02" // ER_BAD_TABLE_ERROR
	case errors.As(err, &ve):
		return 1347, "HY000" // ER_WRONG_OBJECT
	case errors.As(err, &ae):
		return 1582, "42000" // ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT
	case errors.As(err, &oom):
		return 1037, "HY001" // ER_OUTOFMEMORY
	case errors.As(err, &le), errors.Is(err, storage.ErrReadOnly):
		return 1290, "HY000" // ER_OPTION_PREVENTS_STATEMENT
	case errors.As(err, &ie):
		return 1105, "HY000"
	case strings.Contains(err.Error(), "exceeds the memory limit"): // operators' plain errors
		return 1037, "HY001"
	case strings.Contains(err.Error(), "cannot be NULL"), strings.Contains(err.Error(), "cannot be null"):
		return 1048, "23000" // ER_BAD_NULL_ERROR
	}
	return 0, ""
}
