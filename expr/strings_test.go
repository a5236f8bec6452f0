package expr

import (
	"math"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Expected values marked "manual" are the examples of the MySQL 8 reference
// manual (String Functions and Operators); SPLIT_PART's are the examples of
// the PostgreSQL/Databricks documentation, whose semantics DuckDB shares
// except for index 0 (DuckDB: '', see strSplitPartSpan).

func TestStrLength(t *testing.T) {
	strRunTable(t, "length", "S", []strCase{
		{[]any{"text"}, 4}, // manual
		{[]any{""}, 0},
		{[]any{nil}, nil},
		{[]any{"héllo"}, 6},
		{[]any{"日本語"}, 9},
		{[]any{"😀x"}, 5},
	})
	strRunTable(t, "octet_length", "S", []strCase{{[]any{"héllo"}, 6}})
	strRunTable(t, "char_length", "S", []strCase{
		{[]any{"text"}, 4},
		{[]any{""}, 0},
		{[]any{nil}, nil},
		{[]any{"héllo"}, 5},
		{[]any{"日本語"}, 3},
		{[]any{"😀x"}, 2},
		{[]any{"a\xff\xfeb"}, 4},       // invalid bytes count one each
		{[]any{"\xe6\x97"}, 2},         // truncated sequence
		{[]any{"\xe6\x97\xa5\xa5"}, 2}, // 日 + stray continuation
		{[]any{"abcdefgh日abcdefgh"}, 17},
	})
	strRunTable(t, "character_length", "S", []strCase{{[]any{"日本語"}, 3}})
}

func TestStrCase(t *testing.T) {
	strRunTable(t, "upper", "S", []strCase{
		{[]any{"Hej"}, "HEJ"}, // manual
		{[]any{""}, ""},
		{[]any{nil}, nil},
		{[]any{"héllo"}, "HÉLLO"},
		{[]any{"日本語 abc"}, "日本語 ABC"},
		{[]any{"😀x"}, "😀X"},
		{[]any{"ıi"}, "II"}, // U+0131 (2 bytes) -> 'I' (1 byte)
		{[]any{"ⱥa"}, "ȺA"}, // U+2C65 (3 bytes) -> U+023A (2 bytes)
		{[]any{"a\xffb"}, "A\xffB"},
	})
	strRunTable(t, "ucase", "S", []strCase{{[]any{"abc"}, "ABC"}})
	strRunTable(t, "lower", "S", []strCase{
		{[]any{"QUADRATICALLY"}, "quadratically"}, // manual
		{[]any{""}, ""},
		{[]any{nil}, nil},
		{[]any{"HÉLLO"}, "héllo"},
		{[]any{"İX"}, "ix"}, // U+0130 (2 bytes) -> 'i'
		{[]any{"ȺA"}, "ⱥa"}, // U+023A (2 bytes) -> U+2C65 (3 bytes)
		{[]any{"\xe6\x97A"}, "\xe6\x97a"},
	})
	strRunTable(t, "lcase", "S", []strCase{{[]any{"ABC"}, "abc"}})
}

func TestStrSubstring(t *testing.T) {
	cases := []strCase{
		{[]any{"Quadratically", 5}, "ratically"}, // manual
		{[]any{"foobarbar", 4}, "barbar"},        // manual
		{[]any{"Quadratically", 5, 6}, "ratica"}, // manual
		{[]any{"Sakila", -3}, "ila"},             // manual
		{[]any{"Sakila", -5, 3}, "aki"},          // manual
		{[]any{"Sakila", -4, 2}, "ki"},           // manual
		{[]any{"hello", -2}, "lo"},
		{[]any{"hello", 0}, ""},
		{[]any{"hello", 0, 3}, ""},
		{[]any{"hello", 6}, ""},
		{[]any{"hello", 5}, "o"},
		{[]any{"hello", -5}, "hello"},
		{[]any{"hello", -6}, ""},
		{[]any{"hello", 2, 0}, ""},
		{[]any{"hello", 2, -1}, ""},
		{[]any{"hello", 2, 100}, "ello"},
		{[]any{"hello", 2, nil}, nil},
		{[]any{"hello", nil}, nil},
		{[]any{nil, 1}, nil},
		{[]any{"", 1}, ""},
		{[]any{"", -1}, ""},
		{[]any{"héllo", 2, 3}, "éll"},
		{[]any{"héllo", -4, 2}, "él"},
		{[]any{"日本語", -2}, "本語"},
		{[]any{"日本語", 2, 1}, "本"},
		{[]any{"😀x", 2}, "x"},
		{[]any{"😀x", 1, 1}, "😀"},
		{[]any{"a\xffb", 2, 1}, "\xff"},
		{[]any{"hello", int64(math.MinInt64)}, ""},
		{[]any{"hello", int64(math.MaxInt64)}, ""},
		{[]any{"hello", 1, int64(math.MaxInt64)}, "hello"},
		{[]any{"hello", -3, int64(math.MaxInt64)}, "llo"},
		{[]any{"héllo", int64(math.MinInt64), 2}, ""},
	}
	strRunTable(t, "substring", "SII", cases)
	strRunTable(t, "substr", "SII", cases[:6])
	strRunTable(t, "mid", "SII", cases[:6])
}

func TestStrLeftRight(t *testing.T) {
	strRunTable(t, "left", "SI", []strCase{
		{[]any{"foobarbar", 5}, "fooba"}, // manual
		{[]any{"foobarbar", 0}, ""},
		{[]any{"foobarbar", -1}, ""},
		{[]any{"foobarbar", 9}, "foobarbar"},
		{[]any{"foobarbar", 100}, "foobarbar"},
		{[]any{"héllo", 2}, "hé"},
		{[]any{"日本語", 2}, "日本"},
		{[]any{"😀x", 1}, "😀"},
		{[]any{"", 3}, ""},
		{[]any{nil, 3}, nil},
		{[]any{"abc", nil}, nil},
		{[]any{"abcdefghijklmnopqrstuvwxyz日", 20}, "abcdefghijklmnopqrst"},
		{[]any{"abcdefghijklmnopqrstuvwxyz日", 27}, "abcdefghijklmnopqrstuvwxyz日"},
		{[]any{"abc", int64(math.MaxInt64)}, "abc"},
	})
	strRunTable(t, "right", "SI", []strCase{
		{[]any{"foobarbar", 4}, "rbar"}, // manual
		{[]any{"foobarbar", 0}, ""},
		{[]any{"foobarbar", -2}, ""},
		{[]any{"foobarbar", 9}, "foobarbar"},
		{[]any{"foobarbar", 50}, "foobarbar"},
		{[]any{"héllo", 4}, "éllo"},
		{[]any{"日本語", 2}, "本語"},
		{[]any{"😀x", 1}, "x"},
		{[]any{"😀x", 2}, "😀x"},
		{[]any{"", 3}, ""},
		{[]any{nil, 3}, nil},
		{[]any{"abc", nil}, nil},
		{[]any{"abc", int64(math.MinInt64)}, ""},
	})
}

func TestStrConcat(t *testing.T) {
	strRunTable(t, "concat", "S", []strCase{
		{[]any{"My", "S", "QL"}, "MySQL"}, // manual
		{[]any{"My", nil, "QL"}, nil},     // manual
		{[]any{"a"}, "a"},
		{[]any{nil}, nil},
		{[]any{"", ""}, ""},
		{[]any{"日本", "語", "😀"}, "日本語😀"},
		{[]any{"x", ""}, "x"},
	})
	strRunTable(t, "concat_ws", "S", []strCase{
		{[]any{",", "First name", "Second name", "Last Name"}, "First name,Second name,Last Name"}, // manual
		{[]any{",", "First name", nil, "Last Name"}, "First name,Last Name"},                       // manual
		{[]any{nil, "a", "b"}, nil},
		{[]any{",", nil}, ""},
		{[]any{",", nil, nil}, ""},
		{[]any{",", "", "a"}, ",a"},
		{[]any{",", "a", nil}, "a"},
		{[]any{",", nil, "a"}, "a"},
		{[]any{"", "a", "b"}, "ab"},
		{[]any{"—", "日", "本"}, "日—本"},
	})
}

func TestStrSubstringIndex(t *testing.T) {
	strRunTable(t, "substring_index", "SSI", []strCase{
		{[]any{"www.mysql.com", ".", 2}, "www.mysql"},  // manual
		{[]any{"www.mysql.com", ".", -2}, "mysql.com"}, // manual
		{[]any{"www.mysql.com", ".", 1}, "www"},
		{[]any{"www.mysql.com", ".", -1}, "com"},
		{[]any{"www.mysql.com", ".", 3}, "www.mysql.com"},
		{[]any{"www.mysql.com", ".", -3}, "www.mysql.com"},
		{[]any{"www.mysql.com", ".", 0}, ""},
		{[]any{"www.mysql.com", "", 1}, ""},
		{[]any{"", ".", 1}, ""},
		{[]any{"xyz", "abc", int64(math.MaxInt64)}, "xyz"},
		{[]any{"xyz", "abc", int64(math.MinInt64)}, "xyz"},
		{[]any{"a.b.c", ".", int64(math.MaxInt64)}, "a.b.c"},
		{[]any{".a", ".", 1}, ""},
		{[]any{"a.", ".", -1}, ""},
		{[]any{"a.", ".", -2}, "a."},
		{[]any{".a", ".", -2}, ".a"},
		{[]any{"aaa", "aa", 1}, ""},
		// MySQL (utf8mb4) finds a self-overlapping delimiter left to right
		// also for a negative count: 'aa' in 'aaaaa' is at 0 and 2.
		{[]any{"aaa", "aa", -1}, "a"},
		{[]any{"aaaa", "aa", -2}, "aa"},
		{[]any{"aaaaa", "aa", -1}, "a"},
		{[]any{"aaaaa", "aa", -2}, "aaa"},
		{[]any{"aaaaa", "aa", -3}, "aaaaa"},
		{[]any{"a::b::c", "::", 2}, "a::b"},
		{[]any{"a::b::c", "::", -2}, "b::c"},
		{[]any{"日本語日本", "本", 1}, "日"},
		{[]any{"日本語日本", "本", -2}, "語日本"},
		{[]any{"A.b", "a", 1}, "A.b"}, // case-sensitive
		{[]any{nil, ".", 1}, nil},
		{[]any{"a.b", nil, 1}, nil},
		{[]any{"a.b", ".", nil}, nil},
	})
}

func TestStrSplitPart(t *testing.T) {
	strRunTable(t, "split_part", "SSI", []strCase{
		{[]any{"Hello,world,!", ",", 1}, "Hello"},
		{[]any{"Hello,world,!", ",", 2}, "world"},
		{[]any{"Hello,world,!", ",", 3}, "!"},
		{[]any{"Hello,world,!", ",", 100}, ""},
		{[]any{"Hello,world,!", ",", -1}, "!"},
		{[]any{"Hello,world,!", ",", -2}, "world"},
		{[]any{"Hello,world,!", ",", -3}, "Hello"},
		{[]any{"Hello,world,!", ",", -100}, ""},
		{[]any{"", ",", 1}, ""},
		{[]any{"", ",", -1}, ""},
		{[]any{"Hello,world,!", ",", 0}, ""},
		{[]any{"abc~@~def~@~ghi", "~@~", 2}, "def"}, // PostgreSQL manual
		{[]any{"abc,def,ghi,jkl", ",", -2}, "ghi"},  // PostgreSQL manual
		{[]any{"abc~@~def~@~ghi", "~@~", -1}, "ghi"},
		{[]any{"abc~@~def~@~ghi", "~@~", -3}, "abc"},
		{[]any{"abc~@~def~@~ghi", "~@~", -4}, ""},
		{[]any{"First Last", " ", 2}, "Last"},
		{[]any{"First Last", " ", 1}, "First"},
		{[]any{"NoSpace", " ", 1}, "NoSpace"},
		{[]any{"NoSpace", " ", 2}, ""},
		{[]any{"NoSpace", " ", -1}, "NoSpace"},
		{[]any{",a,", ",", 1}, ""},
		{[]any{",a,", ",", 3}, ""},
		{[]any{",a,", ",", 2}, "a"},
		{[]any{"aaa", "aa", 1}, ""},
		{[]any{"aaa", "aa", 2}, "a"},
		{[]any{"aaa", "aa", -1}, "a"},
		{[]any{"aaa", "aa", -2}, ""},
		{[]any{"aaa", "aa", -3}, ""},
		{[]any{"abc", "", 2}, "b"},
		{[]any{"abc", "", 4}, ""},
		{[]any{"日本語", "", -1}, "語"},
		{[]any{"日本語", "", 1}, "日"},
		{[]any{"日本語", "", -4}, ""},
		{[]any{"日本語", "本", 2}, "語"},
		{[]any{"😀x😀y", "😀", 3}, "y"},
		{[]any{"a,b", ",", int64(math.MaxInt64)}, ""},
		{[]any{"a,b", ",", int64(math.MinInt64)}, ""},
		{[]any{"a,b", "", int64(math.MinInt64)}, ""},
		{[]any{nil, ",", 1}, nil},
		{[]any{"a,b", nil, 1}, nil},
		{[]any{"a,b", ",", nil}, nil},
	})
}

func TestStrLocate(t *testing.T) {
	strRunTable(t, "locate", "SSI", []strCase{
		{[]any{"bar", "foobarbar"}, 4},    // manual
		{[]any{"xbar", "foobar"}, 0},      // manual
		{[]any{"bar", "foobarbar", 5}, 7}, // manual
		{[]any{"", "abc"}, 1},
		{[]any{"", ""}, 1},
		{[]any{"", "abc", 3}, 3},
		{[]any{"", "abc", 4}, 4},
		{[]any{"", "abc", 5}, 0},
		{[]any{"", "héllo", 6}, 6},
		{[]any{"", "héllo", 7}, 0},
		{[]any{"bar", "foobarbar", 0}, 0},
		{[]any{"bar", "foobarbar", -1}, 0},
		{[]any{"bar", "foobarbar", 8}, 0},
		{[]any{"bar", "foobarbar", 7}, 7},
		{[]any{"bar", "foobarbar", int64(math.MaxInt64)}, 0},
		{[]any{"BAR", "foobarbar"}, 0},
		{[]any{"語", "日本語"}, 3},
		{[]any{"l", "héllo", 4}, 4},
		{[]any{"l", "héllo", 5}, 0},
		{[]any{"x", "😀x"}, 2},
		{[]any{"\x97", "日x\x97"}, 3}, // the \x97 inside 日 is not a character
		{[]any{"\xe6", "x\xe6"}, 2},
		{[]any{nil, "abc"}, nil},
		{[]any{"a", nil}, nil},
		{[]any{"a", "abc", nil}, nil},
	})
	strRunTable(t, "instr", "SS", []strCase{
		{[]any{"foobarbar", "bar"}, 4}, // manual
		{[]any{"xbar", "foobar"}, 0},   // manual
		{[]any{"日本語", "本"}, 2},
		{[]any{"abc", ""}, 1},
		{[]any{nil, "a"}, nil},
	})
}

func TestStrReplace(t *testing.T) {
	strRunTable(t, "replace", "SSS", []strCase{
		{[]any{"www.mysql.com", "w", "Ww"}, "WwWwWw.mysql.com"}, // manual
		{[]any{"abc", "", "x"}, "abc"},
		{[]any{"aaa", "aa", "b"}, "ba"},
		{[]any{"héllo", "é", "e"}, "hello"},
		{[]any{"a-b-c", "-", ""}, "abc"},
		{[]any{"abc", "ABC", "x"}, "abc"},
		{[]any{"", "a", "b"}, ""},
		{[]any{"日本日本", "日本", "語"}, "語語"},
		{[]any{nil, "a", "b"}, nil},
		{[]any{"a", nil, "b"}, nil},
		{[]any{"a", "a", nil}, nil},
		// MySQL reads the replacement only when there is a match.
		{[]any{"abc", "", nil}, "abc"},
		{[]any{"abc", "x", nil}, "abc"},
		{[]any{"abc", "b", nil}, nil},
	})
}

func TestStrTrim(t *testing.T) {
	strRunTable(t, "trim", "SS", []strCase{
		{[]any{"  bar   "}, "bar"},       // manual
		{[]any{"xxxbarxxx", "x"}, "bar"}, // manual: TRIM(BOTH 'x' FROM 'xxxbarxxx')
		{[]any{"\tbar \n"}, "\tbar \n"},  // only spaces
		{[]any{"   "}, ""},
		{[]any{""}, ""},
		{[]any{"abc", ""}, "abc"},
		{[]any{"aaa", "aa"}, "a"},
		{[]any{"ababXab", "ab"}, "X"},
		{[]any{"日日x日", "日"}, "x"},
		{[]any{nil}, nil},
		{[]any{"a", nil}, nil},
	})
	strRunTable(t, "ltrim", "SS", []strCase{
		{[]any{"  barbar"}, "barbar"},       // manual
		{[]any{"xxxbarxxx", "x"}, "barxxx"}, // manual: TRIM(LEADING 'x' FROM 'xxxbarxxx')
		{[]any{"  b  "}, "b  "},
		{[]any{"xyzxyzA", "xyz"}, "A"},
		{[]any{nil}, nil},
	})
	strRunTable(t, "rtrim", "SS", []strCase{
		{[]any{"barbar   "}, "barbar"},    // manual
		{[]any{"barxxyz", "xyz"}, "barx"}, // manual: TRIM(TRAILING 'xyz' FROM 'barxxyz')
		{[]any{"  b  "}, "  b"},
		{[]any{"aaaa", "aa"}, ""},
		{[]any{nil, "x"}, nil},
	})
}

func TestStrPad(t *testing.T) {
	strRunTable(t, "lpad", "SIS", []strCase{
		{[]any{"hi", 4, "??"}, "??hi"}, // manual
		{[]any{"hi", 1, "??"}, "h"},    // manual
		{[]any{"hi", 5, "ab"}, "abahi"},
		{[]any{"hi", 2, "x"}, "hi"},
		{[]any{"hi", 0, "x"}, ""},
		{[]any{"hi", -1, "x"}, nil},
		{[]any{"hi", 5, ""}, nil},
		{[]any{"hi", 2, ""}, "hi"},
		{[]any{"hi", 1, ""}, "h"},
		{[]any{"", 3, "x"}, "xxx"},
		{[]any{"日", 4, "ab"}, "aba日"},
		{[]any{"日", 2, "x"}, "x日"},
		{[]any{"日", 1, ""}, "日"},
		{[]any{"日本語", 2, "x"}, "日本"},
		{[]any{"é", 3, "日本語"}, "日本é"},
		{[]any{nil, 3, "x"}, nil},
		{[]any{"a", nil, "x"}, nil},
		{[]any{"a", 3, nil}, nil},
		{[]any{"a", int64(math.MaxInt64), "x"}, strErr{}},
		{[]any{"a", 1 << 31, "x"}, strErr{}},
	})
	strRunTable(t, "rpad", "SIS", []strCase{
		{[]any{"hi", 5, "?"}, "hi???"}, // manual
		{[]any{"hi", 1, "?"}, "h"},     // manual
		{[]any{"hi", 5, "ab"}, "hiaba"},
		{[]any{"hi", -5, "?"}, nil},
		{[]any{"hi", 3, ""}, nil},
		{[]any{"é", 3, "日本語"}, "é日本"},
		{[]any{"😀x", 1, "?"}, "😀"},
		{[]any{"a", int64(math.MaxInt64), "xy"}, strErr{}},
	})
}

func TestStrReverseRepeatSpace(t *testing.T) {
	strRunTable(t, "reverse", "S", []strCase{
		{[]any{"abc"}, "cba"}, // manual
		{[]any{""}, ""},
		{[]any{nil}, nil},
		{[]any{"héllo"}, "olléh"},
		{[]any{"😀x日"}, "日x😀"},
		{[]any{"a\xffb"}, "b\xffa"},
		{[]any{"\xe6\x97a"}, "a\x97\xe6"},
	})
	strRunTable(t, "repeat", "SI", []strCase{
		{[]any{"MySQL", 3}, "MySQLMySQLMySQL"}, // manual
		{[]any{"ab", 0}, ""},
		{[]any{"ab", -1}, ""},
		{[]any{"", 5}, ""},
		{[]any{"", int64(math.MaxInt64)}, ""},
		{[]any{"日", 2}, "日日"},
		{[]any{nil, 2}, nil},
		{[]any{"a", nil}, nil},
		{[]any{"ab", int64(math.MaxInt64)}, strErr{}},
		{[]any{"ab", 1 << 30}, strErr{}},
	})
	strRunTable(t, "space", "I", []strCase{
		{[]any{6}, "      "}, // manual
		{[]any{0}, ""},
		{[]any{-3}, ""},
		{[]any{nil}, nil},
		{[]any{int64(math.MaxInt64)}, strErr{}},
	})
}

func TestStrPredicates(t *testing.T) {
	strRunTable(t, "starts_with", "SS", []strCase{
		{[]any{"abc", "a"}, true},
		{[]any{"abc", "b"}, false},
		{[]any{"abc", ""}, true},
		{[]any{"", ""}, true},
		{[]any{"", "a"}, false},
		{[]any{"abc", "ABC"}, false},
		{[]any{"日本語", "日本"}, true},
		{[]any{nil, "a"}, nil},
		{[]any{"a", nil}, nil},
	})
	strRunTable(t, "prefix", "SS", []strCase{{[]any{"abc", "ab"}, true}})
	strRunTable(t, "ends_with", "SS", []strCase{
		{[]any{"abc", "c"}, true},
		{[]any{"abc", "b"}, false},
		{[]any{"abc", ""}, true},
		{[]any{"日本語", "語"}, true},
		{[]any{nil, "a"}, nil},
	})
	strRunTable(t, "suffix", "SS", []strCase{{[]any{"abc", "bc"}, true}})
	strRunTable(t, "contains", "SS", []strCase{
		{[]any{"abc", "a"}, true},
		{[]any{"abc", "bc"}, true},
		{[]any{"abc", "x"}, false},
		{[]any{"abc", ""}, true},
		{[]any{"", ""}, true},
		{[]any{"日本語", "本"}, true},
		{[]any{"a", nil}, nil},
	})
}

func TestStrASCIIStrcmp(t *testing.T) {
	strRunTable(t, "ascii", "S", []strCase{
		{[]any{"2"}, 50},   // manual
		{[]any{"dx"}, 100}, // manual
		{[]any{""}, 0},
		{[]any{"é"}, 0xc3},
		{[]any{nil}, nil},
	})
	strRunTable(t, "strcmp", "SS", []strCase{
		{[]any{"text", "text2"}, -1}, // manual
		{[]any{"text2", "text"}, 1},  // manual
		{[]any{"text", "text"}, 0},   // manual
		{[]any{"a", "B"}, 1},         // binary collation
		{[]any{"", ""}, 0},
		{[]any{"a ", "a"}, 1}, // trailing spaces count
		{[]any{nil, "a"}, nil},
	})
}

func TestStrRegistry(t *testing.T) {
	names := []string{"length", "octet_length", "char_length", "character_length", "upper", "ucase", "lower", "lcase",
		"substring", "substr", "mid", "left", "right", "concat", "concat_ws", "substring_index", "split_part",
		"locate", "instr", "replace", "trim", "ltrim", "rtrim", "lpad", "rpad", "reverse", "repeat", "space",
		"starts_with", "prefix", "ends_with", "suffix", "contains", "like", "ascii", "strcmp"}
	for _, n := range names {
		f := strFn(t, strings.ToUpper(n))
		if f.Check == nil || f.Eval == nil {
			t.Errorf("%s: incomplete registration", n)
		}
	}
	if f := strFn(t, "concat"); f.MinArgs != 1 || f.MaxArgs >= 0 {
		t.Errorf("concat arity %d..%d", f.MinArgs, f.MaxArgs)
	}
	if f := strFn(t, "concat_ws"); f.MinArgs != 2 || f.MaxArgs >= 0 {
		t.Errorf("concat_ws arity %d..%d", f.MinArgs, f.MaxArgs)
	}
}

func TestStrBadCalls(t *testing.T) {
	for _, name := range []string{"substring", "instr", "concat", "like", "lpad", "split_part"} {
		f := strFn(t, name)
		if _, err := f.Eval(nil, 1); err == nil {
			t.Errorf("%s with no arguments: no error", name)
		}
		// Arguments of the wrong type are an error, not a panic.
		bad := []*coldata.Vec{strVec(coldata.Float64, 1.5), strVec(coldata.Float64, 2.5), strVec(coldata.Float64, 3.5)}
		if _, err := f.Eval(bad[:f.MinArgs], 1); err == nil {
			t.Errorf("%s with DOUBLE arguments: no error", name)
		}
		// Zero rows.
		args := make([]*coldata.Vec, f.MinArgs)
		for i := range args {
			args[i] = strConst(coldata.String, "a", 0)
			if name == "substring" && i > 0 || name == "lpad" && i == 1 || name == "split_part" && i == 2 {
				args[i] = strConst(coldata.Int64, 1, 0)
			}
		}
		if out, err := f.Eval(args, 0); err != nil || (out.Len != 0 && !out.Const) {
			t.Errorf("%s on 0 rows: %v, %v", name, out, err)
		}
	}
}
