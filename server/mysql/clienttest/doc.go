// Package clienttest tests gsql's MySQL protocol server with real
// clients: the go-sql-driver/mysql connector and the mariadb command-line
// client. It is its own module so that the connector stays out of the
// engine's go.mod.
package clienttest
