// Package wire is the MySQL client/server protocol, server side: packet
// framing, the v10 handshake and authentication (mysql_native_password,
// caching_sha2_password, TLS), command dispatch, and the encoding of Arrow
// results as text and binary resultsets. It knows nothing of the engine:
// statements go to a Handler, results come back as Arrow record readers,
// and the mapping from Arrow column types to MySQL column types is in
// types.go. docs/SERVER.md says why this is written here rather than taken
// from a library.
package wire
