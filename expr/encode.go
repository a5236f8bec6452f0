package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
)

// Hashes and encodings, MySQL semantics:
//
//   - md5(s), sha1(s) (alias sha), sha2(s, bits): lower-case hex digests;
//     sha2 takes 224, 256, 384, 512 or 0 (= 256), any other length gives
//     NULL.
//   - hex(x): a string's bytes, or a BIGINT's value, as upper-case hex;
//     unhex(s): the bytes back, NULL for a character that is not hex.
//   - to_base64(s), from_base64(s): standard base64 with padding;
//     from_base64 gives NULL for invalid input. (MySQL wraps to_base64's
//     output every 76 characters; gsql does not.)

func init() {
	s, i64 := coldata.String, coldata.Int64
	Register(&Function{Name: "md5", MinArgs: 1, MaxArgs: 1, Check: Fixed(s, s), Eval: digestEval(func(int64) hash.Hash { return md5.New() })})
	Register(&Function{Name: "sha1", MinArgs: 1, MaxArgs: 1, Check: Fixed(s, s), Eval: digestEval(func(int64) hash.Hash { return sha1.New() })})
	Alias("sha", "sha1")
	Register(&Function{Name: "sha2", MinArgs: 2, MaxArgs: 2, Check: Fixed(s, s, i64), Eval: digestEval(sha2Of)})
	Register(&Function{Name: "hex", MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			if args[0] == coldata.Int64 || args[0] == coldata.Bool {
				return s, []coldata.Type{i64}, nil
			}
			return s, []coldata.Type{s}, nil
		}, Eval: hexEval})
	Register(&Function{Name: "unhex", MinArgs: 1, MaxArgs: 1, Check: Fixed(s, s), Eval: mapStrings(func(x string) (string, bool) {
		b, err := hex.DecodeString(x)
		return string(b), err == nil
	})})
	Register(&Function{Name: "to_base64", MinArgs: 1, MaxArgs: 1, Check: Fixed(s, s), Eval: mapStrings(func(x string) (string, bool) {
		return base64.StdEncoding.EncodeToString([]byte(x)), true
	})})
	Register(&Function{Name: "from_base64", MinArgs: 1, MaxArgs: 1, Check: Fixed(s, s), Eval: mapStrings(func(x string) (string, bool) {
		b, err := base64.StdEncoding.DecodeString(x)
		return string(b), err == nil
	})})
}

func sha2Of(bits int64) hash.Hash {
	switch bits {
	case 0, 256:
		return sha256.New()
	case 224:
		return sha256.New224()
	case 384:
		return sha512.New384()
	case 512:
		return sha512.New()
	}
	return nil
}

// digestEval hashes argument 0 (with the hash chosen by argument 1, when
// given) into lower-case hex.
func digestEval(newHash func(int64) hash.Hash) func([]*coldata.Vec, int) (*coldata.Vec, error) {
	return func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
		out := coldata.NewBuilder(coldata.String, n)
		for i := 0; i < n; i++ {
			vals, ok := regexArgs(args, i)
			if !ok {
				out.AppendNull()
				continue
			}
			h := newHash(optInt(vals, 1, 0))
			if h == nil {
				out.AppendNull()
				continue
			}
			h.Write([]byte(vals[0].(string)))
			out.AppendString(hex.EncodeToString(h.Sum(nil)))
		}
		return out.Finish(), nil
	}
}

func hexEval(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		vals, ok := regexArgs(args, i)
		if !ok {
			out.AppendNull()
			continue
		}
		switch x := vals[0].(type) {
		case int64:
			// MySQL: the value as a 64-bit unsigned number.
			out.AppendString(strings.ToUpper(strconv.FormatUint(uint64(x), 16)))
		case string:
			out.AppendString(strings.ToUpper(hex.EncodeToString([]byte(x))))
		}
	}
	return out.Finish(), nil
}

// mapStrings applies f to every non-NULL string; ok false gives NULL.
func mapStrings(f func(string) (string, bool)) func([]*coldata.Vec, int) (*coldata.Vec, error) {
	return func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
		out := coldata.NewBuilder(coldata.String, n)
		for i := 0; i < n; i++ {
			vals, ok := regexArgs(args, i)
			if !ok {
				out.AppendNull()
				continue
			}
			if r, ok := f(vals[0].(string)); ok {
				out.AppendString(r)
			} else {
				out.AppendNull()
			}
		}
		return out.Finish(), nil
	}
}

// regexArgs reads row i's arguments as Go values (int64 or string); ok is
// false when one is NULL.
func regexArgs(args []*coldata.Vec, i int) (vals []any, ok bool) {
	vals = make([]any, len(args))
	for k, a := range args {
		if a.Type == coldata.Null || a.IsNull(i) {
			return nil, false
		}
		if a.Type == coldata.Int64 {
			vals[k] = a.Int(i)
		} else {
			vals[k] = string(a.Str(i))
		}
	}
	return vals, true
}

// optInt is optional integer argument k of vals (def when absent).
func optInt(v []any, k int, def int64) int64 {
	if k < len(v) {
		return v[k].(int64)
	}
	return def
}
