package flight

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// basicAuth is Flight's usual login: the client's Handshake carries
// "authorization: Basic base64(user:password)" and gets back a bearer
// token, which every later call carries. Written here rather than taken
// from arrow/go, whose helper panics on malformed headers.
type basicAuth struct {
	users  map[string]string
	ttl    time.Duration // a token's lifetime
	tokens sync.Map      // token -> session
	now    func() time.Time
}

// session is a token's user and the end of its lifetime.
type session struct {
	user    string
	expires time.Time
}

// DefaultTokenTTL is how long a Flight token lasts when the server's
// options give no lifetime.
const DefaultTokenTTL = 12 * time.Hour

var errUnauthenticated = status.Error(codes.Unauthenticated, "authenticate first (Basic auth in the Handshake, then the bearer token)")

func authHeader(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("authorization"); len(v) > 0 {
		return v[0]
	}
	return ""
}

// bearer checks a call's token.
func (a *basicAuth) bearer(ctx context.Context) error {
	tok, ok := strings.CutPrefix(authHeader(ctx), "Bearer ")
	if !ok {
		return errUnauthenticated
	}
	v, ok := a.tokens.Load(tok)
	if !ok {
		return status.Error(codes.Unauthenticated, "unknown or expired token")
	}
	if a.clock().After(v.(session).expires) {
		a.tokens.Delete(tok)
		return status.Error(codes.Unauthenticated, "expired token: authenticate again")
	}
	return nil
}

func (a *basicAuth) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// login checks Basic credentials and returns a new token.
func (a *basicAuth) login(ctx context.Context) (string, error) {
	enc, ok := strings.CutPrefix(authHeader(ctx), "Basic ")
	if !ok {
		return "", status.Error(codes.Unauthenticated, "the Handshake needs Basic authorization")
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return "", status.Error(codes.Unauthenticated, "bad Basic authorization encoding")
	}
	user, password, ok := strings.Cut(string(raw), ":")
	want, known := a.users[user]
	if !ok || !known || subtle.ConstantTimeCompare([]byte(password), []byte(want)) != 1 {
		return "", status.Errorf(codes.Unauthenticated, "access denied for user %q", user)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", status.Error(codes.Internal, "no randomness for a token")
	}
	tok := hex.EncodeToString(b)
	now := a.clock()
	// Expired tokens go at each login, so that clients that log in again
	// and again do not grow the table.
	a.tokens.Range(func(k, v any) bool {
		if now.After(v.(session).expires) {
			a.tokens.Delete(k)
		}
		return true
	})
	ttl := a.ttl
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	a.tokens.Store(tok, session{user: user, expires: now.Add(ttl)})
	return tok, nil
}

func (a *basicAuth) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := a.bearer(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (a *basicAuth) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasSuffix(info.FullMethod, "/Handshake") {
		tok, err := a.login(ss.Context())
		if err != nil {
			return err
		}
		return ss.SetHeader(metadata.Pairs("authorization", "Bearer "+tok))
	}
	if err := a.bearer(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}
