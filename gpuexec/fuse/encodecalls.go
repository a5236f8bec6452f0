package fuse

import (
	"fmt"

	"github.com/gsqlengine/gsql/expr"
)

// encodeCall generates HEX, UNHEX, TO_BASE64, FROM_BASE64, MD5, SHA1 and
// SHA2 (rt/encode_digest.cuh), with expr/encode.go's results:
// upper-case HEX, lower-case digests, NULL for input UNHEX or FROM_BASE64
// rejects and for a SHA2 length other than 0, 224, 256, 384 and 512. It
// returns (nil, nil) for other names.
func (g *gen) encodeCall(name string, c *expr.Call, args []*val) (*val, error) {
	switch name {
	case "hex", "unhex", "to_base64", "from_base64", "md5", "sha1", "sha2":
	default:
		return nil, nil
	}
	// One byte at a time: no warp-wide form.
	g.warpAvoid = true
	if name == "hex" && args[0].kind == kInt {
		x := args[0].c
		return &val{kind: kGen, null: args[0].null, size: fmt.Sprintf("hex_int_len(%s)", x),
			write: func(dst string) string { return fmt.Sprintf("hex_int_write(%s, %s);", x, dst) }}, nil
	}
	if !isStr(args[0]) {
		return nil, g.notFusable(name)
	}
	s := g.asSV(args[0]).c
	null := args[0].null
	switch name {
	case "hex":
		return &val{kind: kGen, null: null, size: fmt.Sprintf("(int32_t)((int64_t)%s.n * 2)", s),
			write: func(dst string) string { return fmt.Sprintf("hex_write(%s, %s);", s, dst) }}, nil
	case "to_base64":
		return &val{kind: kGen, null: null, size: fmt.Sprintf("b64_size(%s)", s),
			write: func(dst string) string { return fmt.Sprintf("b64_write(%s, %s);", s, dst) }}, nil
	case "md5", "sha1":
		n := map[string]int{"md5": 32, "sha1": 40}[name]
		return &val{kind: kGen, null: null, size: fmt.Sprint(n),
			write: func(dst string) string { return fmt.Sprintf("%s_write(%s, %s);", name, s, dst) }}, nil
	case "unhex", "from_base64":
		size, rnull := g.tmp(), g.tmp()
		if name == "unhex" {
			g.emit("int32_t %s = %s ? 0 : unhex_size(%s);", size, nullFlag(args[0]), s)
		} else {
			g.emit("int32_t %s = %s ? 0 : unb64(%s, (char*)0);", size, nullFlag(args[0]), s)
		}
		g.emit("bool %s = %s || %s < 0;", rnull, nullFlag(args[0]), size)
		write := func(dst string) string { return fmt.Sprintf("unhex_write(%s, %s);", s, dst) }
		if name == "from_base64" {
			write = func(dst string) string { return fmt.Sprintf("unb64(%s, %s);", s, dst) }
		}
		return &val{kind: kGen, null: rnull, size: fmt.Sprintf("(%s < 0 ? 0 : %s)", size, size), write: write}, nil
	}
	// sha2
	bits := asInt(args[1])
	size, rnull := g.tmp(), g.tmp()
	g.emit("int32_t %s = sha2_size(%s);", size, bits)
	g.emit("bool %s = %s || %s < 0;", rnull, g.nullOf(args), size)
	return &val{kind: kGen, null: rnull, size: fmt.Sprintf("(%s ? 0 : %s)", rnull, size),
		write: func(dst string) string { return fmt.Sprintf("sha2_write(%s, %s, %s);", s, bits, dst) }}, nil
}
