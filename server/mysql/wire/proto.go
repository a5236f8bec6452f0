package wire

import (
	"context"
	"errors"
	"fmt"
)

// Capability flags (the ones this server reads or announces).
const (
	capLongPassword     = 1 << 0
	capFoundRows        = 1 << 1
	capLongFlag         = 1 << 2
	capConnectWithDB    = 1 << 3
	capNoSchema         = 1 << 4
	capODBC             = 1 << 6
	capIgnoreSpace      = 1 << 8
	capProtocol41       = 1 << 9
	capInteractive      = 1 << 10
	capSSL              = 1 << 11
	capTransactions     = 1 << 13
	capSecureConnection = 1 << 15
	capMultiStatements  = 1 << 16
	capMultiResults     = 1 << 17
	capPSMultiResults   = 1 << 18
	capPluginAuth       = 1 << 19
	capConnectAttrs     = 1 << 20
	capPluginAuthLenEnc = 1 << 21
)

// serverCaps is what the server announces. CLIENT_DEPRECATE_EOF is left
// out: resultsets end with EOF packets, which every client reads.
const serverCaps = capLongPassword | capFoundRows | capLongFlag | capConnectWithDB |
	capNoSchema | capODBC | capIgnoreSpace | capProtocol41 | capInteractive |
	capTransactions | capSecureConnection | capMultiStatements | capMultiResults |
	capPSMultiResults | capPluginAuth | capConnectAttrs | capPluginAuthLenEnc

// Server status flags.
const (
	statusAutocommit  = 0x0002
	statusMoreResults = 0x0008
)

// Commands.
const (
	comQuit             = 0x01
	comInitDB           = 0x02
	comQuery            = 0x03
	comFieldList        = 0x04
	comStatistics       = 0x09
	comProcessKill      = 0x0c
	comPing             = 0x0e
	comStmtPrepare      = 0x16
	comStmtExecute      = 0x17
	comStmtSendLongData = 0x18
	comStmtClose        = 0x19
	comStmtReset        = 0x1a
	comSetOption        = 0x1b
	comResetConnection  = 0x1f
)

// charsetUTF8MB4 is utf8mb4_general_ci; charsetBinary is binary.
const (
	charsetUTF8MB4 = 45
	charsetBinary  = 63
)

// Error is a MySQL error: a code, a five-character SQLSTATE and a
// message. A Handler returns one to choose what the client sees; any other
// error is sent as 1105 (ER_UNKNOWN_ERROR) with SQLSTATE HY000.
type Error struct {
	Code  uint16
	State string
	Msg   string
	Err   error // the engine's error, if any
}

func (e *Error) Error() string { return fmt.Sprintf("ERROR %d (%s): %s", e.Code, e.State, e.Msg) }
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error.
func Errorf(code uint16, state, format string, args ...any) *Error {
	return &Error{Code: code, State: state, Msg: fmt.Sprintf(format, args...)}
}

// Error codes used by the protocol layer itself.
const (
	ErUnknownError        = 1105
	ErQueryInterrupted    = 1317
	ErUnknownComError     = 1047
	ErAccessDenied        = 1045
	ErNetPacketTooLarge   = 1153
	ErMalformedPacket     = 1835
	ErUnknownStmtHandler  = 1243
	ErWrongArguments      = 1210
	ErHandshake           = 1043
	ErQueryTimeout        = 3024
	ErServerShutdown      = 1053
	ErSecureTransportReqd = 3159
)

// toMySQL turns any error into the Error the client is sent.
func toMySQL(err error) *Error {
	var me *Error
	switch {
	case errors.As(err, &me):
		return me
	case errors.Is(err, context.Canceled):
		return &Error{Code: ErQueryInterrupted, State: "70100", Msg: "Query execution was interrupted", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: ErQueryTimeout, State: "HY000", Msg: "Query execution was interrupted, maximum statement execution time exceeded", Err: err}
	}
	return &Error{Code: ErUnknownError, State: "HY000", Msg: err.Error(), Err: err}
}

func okPacket(affected, insertID uint64, status uint16, info string) []byte {
	return okPacketWarnings(affected, insertID, status, 0, info)
}

// okPacketWarnings is an OK packet that counts the statement's warnings.
func okPacketWarnings(affected, insertID uint64, status, warnings uint16, info string) []byte {
	b := []byte{0x00}
	b = appendLenEnc(b, affected)
	b = appendLenEnc(b, insertID)
	b = appendUint16(b, status)
	b = appendUint16(b, warnings)
	return append(b, info...)
}

func errPacket(e *Error) []byte {
	b := []byte{0xff}
	b = appendUint16(b, e.Code)
	state := e.State
	if len(state) != 5 {
		state = "HY000"
	}
	b = append(b, '#')
	b = append(b, state...)
	msg := e.Msg
	if len(msg) > 8000 { // keep error packets small
		msg = msg[:8000]
	}
	return append(b, msg...)
}

func eofPacket(status uint16) []byte { return eofPacketWarnings(status, 0) }

// eofPacketWarnings is an EOF packet that counts the statement's warnings
// (after a resultset's rows).
func eofPacketWarnings(status, warnings uint16) []byte {
	b := appendUint16([]byte{0xfe}, warnings)
	return appendUint16(b, status)
}
