package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/server/files"
	flightsrv "github.com/gsqlengine/gsql/server/flight"
	"github.com/gsqlengine/gsql/server/limits"
	"github.com/gsqlengine/gsql/server/mysql"
	"github.com/gsqlengine/gsql/server/mysql/wire"
	"github.com/gsqlengine/gsql/shell"
)

const serveUsage = `Usage: gsql serve [--mysql ADDR] [--flight ADDR] [flags]

Serves one database (in memory, or the on-disk one in --data DIR) over the
MySQL protocol and/or Arrow Flight SQL until SIGINT or SIGTERM; then it
stops accepting, lets running statements finish for --shutdown-timeout and
cancels the rest.

  gsql serve --mysql 127.0.0.1:3307 --flight 127.0.0.1:31337
  mariadb -h 127.0.0.1 -P 3307

Flags:
`

// runServe is `gsql serve`: it returns when a signal arrives.
func runServe(args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stderr, nil)
}

// serve runs the server until ctx ends; ready, when set, is told the
// listening address.
func serve(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) int {
	fs := flag.NewFlagSet("gsql serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("mysql", "", "listen for MySQL clients on `ADDR` (host:port)")
	flightAddr := fs.String("flight", "", "listen for Arrow Flight SQL clients on `ADDR` (host:port)")
	device := fs.String("device", "auto", "device to run queries on: auto, gpu or cpu")
	devices := fs.String("devices", "", "GPUs to open: all, or numbers such as 0,2 (default: GPU 0; queries run on the first)")
	data := fs.String("data", "", "serve the on-disk database in `DIR` (created if new; default: in memory)")
	poolLimit := fs.String("pool-limit", "", "GPU memory pool limit, e.g. 2GiB (default: no limit)")
	compression := fs.String("compression", "none", "compress the segments --data writes: none, lz4 or zstd")
	memLimit := fs.String("memory-limit", "", "cap each GROUP BY's and join's host memory, e.g. 1GiB; a GROUP BY or equi-join past it spills to disk, other joins fail (default: no cap)")
	user := fs.String("user", "", "the one user `NAME` allowed to log in (default: any user, no password)")
	passwordFile := fs.String("password-file", "", "read --user's password from the first line of `FILE`")
	authPlugin := fs.String("auth-plugin", wire.CachingSHA2, "authentication: caching_sha2_password or mysql_native_password")
	tlsCert := fs.String("tls-cert", "", "TLS certificate `FILE` (PEM); with --tls-key enables TLS")
	tlsKey := fs.String("tls-key", "", "TLS private key `FILE` (PEM)")
	requireTLS := fs.Bool("require-tls", false, "refuse clients that do not use TLS")
	maxPacket := fs.String("max-packet", "64MiB", "largest client packet; a larger one closes the connection")
	grace := fs.Duration("shutdown-timeout", 10*time.Second, "how long running statements may finish after a signal")
	maxConns := fs.Int("max-connections", 0, "refuse clients past `N` open connections (0: no limit)")
	maxQueries := fs.Int("max-queries", 0, "run at most `N` statements at once over all connections; more wait (0: no limit)")
	perConn := fs.Int("max-queries-per-connection", 0, "refuse a Flight SQL connection's statements past `N` running at once (0: no limit; a MySQL connection runs one at a time)")
	maxTime := fs.Duration("max-statement-time", 0, "cancel statements running longer (0: no limit)")
	admissionWait := fs.Duration("admission-wait", 0, "with --device auto, how long a GPU statement waits for its share of device memory before it runs on the CPU (0: 2s; negative: no bound)")
	tokenTTL := fs.Duration("token-ttl", flightsrv.DefaultTokenTTL, "how long a Flight SQL login token stays valid")
	filesDir := fs.String("files", "", "let statements read files (read_csv, read_parquet, ...) inside `DIR` (default: no file access)")
	database := fs.String("database", "gsql", "database `NAME` clients see (SHOW DATABASES, USE)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "gsql serve: "+format+"\n", args...)
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (the database directory is --data DIR)", fs.Arg(0))
	}
	if *addr == "" && *flightAddr == "" {
		return fail("--mysql ADDR or --flight ADDR is required")
	}
	if *authPlugin != wire.CachingSHA2 && *authPlugin != wire.NativePassword {
		return fail("--auth-plugin: want caching_sha2_password or mysql_native_password, got %q", *authPlugin)
	}
	if (*user == "") != (*passwordFile == "") {
		return fail("--user and --password-file go together")
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return fail("--tls-cert and --tls-key go together")
	}
	if *requireTLS && *tlsCert == "" {
		return fail("--require-tls needs --tls-cert and --tls-key")
	}
	limit, err := shell.ParseSize(*poolLimit)
	if err != nil {
		return fail("--pool-limit: %v", err)
	}
	memCap, err := shell.ParseSize(*memLimit)
	if err != nil {
		return fail("--memory-limit: %v", err)
	}
	maxPkt, err := shell.ParseSize(*maxPacket)
	if err != nil || maxPkt < 1024 || maxPkt > 1<<30 {
		return fail("--max-packet: want a size from 1KiB to 1GiB, got %q", *maxPacket)
	}
	if *maxConns < 0 || *maxQueries < 0 || *maxTime < 0 {
		return fail("--max-connections, --max-queries and --max-statement-time cannot be negative")
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	// One set of limits for both listeners: --max-queries counts the
	// statements of MySQL and Flight SQL clients together.
	shared := limits.New(*maxQueries, *maxTime).WithPerConnection(*perConn)
	cfg := mysql.Config{Database: *database, Limits: shared}
	cfg.MaxConnections = *maxConns
	cfg.Files = files.Policy{Dir: *filesDir}
	if *filesDir != "" {
		if st, err := os.Stat(*filesDir); err != nil || !st.IsDir() {
			return fail("--files: %q is not a directory", *filesDir)
		}
	}
	cfg.AuthPlugin = *authPlugin
	cfg.MaxPacket = int(maxPkt)
	cfg.Logger = log
	cfg.RequireTLS = *requireTLS
	if *user != "" {
		pw, err := os.ReadFile(*passwordFile)
		if err != nil {
			return fail("--password-file: %v", err)
		}
		line, _, _ := strings.Cut(string(pw), "\n")
		cfg.Users = map[string]string{*user: strings.TrimRight(line, "\r")}
	}
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fail("TLS: %v", err)
		}
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}

	db, err := gsql.Open(gsql.Options{Device: *device, Devices: *devices, PoolLimit: limit, MemoryLimit: memCap, Path: *data, Compression: *compression, AdmissionWait: *admissionWait})
	if err != nil {
		fmt.Fprintf(stderr, "gsql serve: %v\n", err)
		return 1
	}
	defer db.Close()
	srv := mysql.NewServer(db, cfg)
	if cfg.Users == nil && *addr != "" {
		log.Warn("no --user: every MySQL client may log in without a password")
	}
	errc := make(chan error, 2)
	listening := 0
	if *addr != "" {
		l, err := net.Listen("tcp", *addr)
		if err != nil {
			fmt.Fprintf(stderr, "gsql serve: %v\n", err)
			return 1
		}
		log.Info("serving MySQL protocol", "addr", l.Addr().String(), "device", db.Device(), "data", *data, "tls", cfg.TLS != nil)
		if ready != nil {
			ready(l.Addr().String())
		}
		go func() { errc <- srv.Serve(l) }()
		listening++
	}
	var gs *grpc.Server
	if *flightAddr != "" {
		var opts []grpc.ServerOption
		if cfg.TLS != nil {
			opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.TLS)))
		}
		gs, err = flightsrv.NewGRPCServerWith(db, flightsrv.Options{Catalog: *database, Users: cfg.Users, TokenTTL: *tokenTTL,
			Files: cfg.Files, Limits: shared}, opts...)
		if err != nil {
			fmt.Fprintf(stderr, "gsql serve: %v\n", err)
			return 1
		}
		fl, err := net.Listen("tcp", *flightAddr)
		if err != nil {
			fmt.Fprintf(stderr, "gsql serve: %v\n", err)
			return 1
		}
		if cfg.Users == nil {
			log.Warn("no --user: every Flight SQL client may run statements without logging in")
		}
		log.Info("serving Arrow Flight SQL", "addr", fl.Addr().String(), "device", db.Device(), "tls", cfg.TLS != nil)
		if ready != nil {
			ready(fl.Addr().String())
		}
		go func() { errc <- gs.Serve(fl) }()
		listening++
	}
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "gsql serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", grace.String(), "connections", srv.Conns())
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if gs != nil {
		go func() {
			<-sctx.Done()
			gs.Stop() // past the deadline: cancel the running streams
		}()
		go gs.GracefulStop()
	}
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown deadline passed: running statements were cancelled", "err", err)
	}
	for ; listening > 0; listening-- {
		<-errc
	}
	log.Info("stopped")
	return 0
}
