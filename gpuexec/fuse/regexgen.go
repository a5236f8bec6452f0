package fuse

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// A fused kernel runs each literal pattern through a matcher generated for
// it: the backtracker of rt/regex.cuh (re_backtrack) with the program unrolled
// into labelled C++ statements, so that every instruction's operands and
// character class are constants of the code rather than words the thread
// fetches and dispatches on for every character. The generic backtracker
// spent most of its time on that dispatch: ClickBench Q29's REGEXP_REPLACE
// over the Referers took as long either way, two orders of magnitude more
// than a LENGTH over the same rows (docs/benchlog/2026-11-26-clickbench-gpu.md). The generated matcher keeps the generic one's
// results and limits (leftmost-first, the step budget, the fixed stack,
// -1 handing the row to the Pike VM), and the kernel source (and so its
// compile) is per pattern: the interpreter answers while it compiles.

// reMaxInlineRanges bounds the [lo, hi] pairs a class tests inline; a
// larger class searches its ranges in the program.
const reMaxInlineRanges = 6

// matcherSource is the C++ of a matcher struct named name for program pr,
// usable as re_match's M parameter.
func matcherSource(pr *reProg, name string) string {
	words := make([]int32, len(pr.blob)/4)
	for i := range words {
		words[i] = int32(binary.LittleEndian.Uint32([]byte(pr.blob[4*i:])))
	}
	n, start, anchored := int(words[1]), words[2], words[4] != 0
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("struct %s {", name)
	w("template <int NCAP>")
	w("static GSQL_RE_MEMBER int32_t run(const int32_t* P, SV s, int32_t pos0, int32_t* m) {")
	w("  int32_t spc[GSQL_RE_BT_STACK], spos[GSQL_RE_BT_STACK];")
	w("  int32_t cap[NCAP > 0 ? NCAP : 1];")
	w("  const char* p = s.p;")
	w("  int32_t n = s.n, start = pos0, pos = 0, sp = 0, pc = 0, r = 0, w = 0;")
	if anchored {
		w("  if (pos0 != 0) return 0;")
	}
	w("  int32_t rest = n - pos0;")
	w("  int32_t budget = rest < (1 << 26) ? 16 * (rest + 1) + 256 : 0x7fffffff;")
	w("next_start:")
	w("  for (int32_t k = 0; k < NCAP; k++) cap[k] = -1;")
	w("  if (NCAP > 0) cap[0] = start;")
	w("  sp = 0;")
	w("  pos = start;")
	w("  goto L%d;", start)
	alts := map[int32]bool{}
	for pc := 0; pc < n; pc++ {
		at := reHdr + 4*pc
		op, out, arg, cnt := words[at], words[at+1], words[at+2], words[at+3]
		w("L%d:", pc)
		switch op {
		case reFail:
			w("  goto fail;")
		case reAlt:
			if loopClass, ok := possessiveLoop(words, int32(pc)); ok {
				// The loop never gives characters back (possessiveLoop):
				// run it with no backtracking entries.
				w("  while (pos < n) {")
				w("    r = (uint8_t)p[pos];")
				w("    w = 1;")
				w("    if (r >= 0x80) r = re_rune(s, pos, &w);")
				w("    if (!(%s)) break;", loopClass)
				w("    pos += w;")
				w("  }")
				w("  goto L%d;", arg)
				break
			}
			alts[arg] = true
			w("  if (--budget < 0 || sp == GSQL_RE_BT_STACK) return -1;")
			w("  spc[sp] = %d;", arg)
			w("  spos[sp++] = pos;")
			w("  goto L%d;", out)
		case reNop:
			w("  goto L%d;", out)
		case reCap:
			w("  if (NCAP > %d) {", arg)
			w("    if (sp == GSQL_RE_BT_STACK) return -1;")
			w("    spc[sp] = %d;", -arg-1)
			w("    spos[sp++] = cap[%d < NCAP ? %d : 0];", arg, arg)
			w("    cap[%d < NCAP ? %d : 0] = pos;", arg, arg)
			w("  }")
			w("  goto L%d;", out)
		case reEmpty:
			w("  if ((re_context_at(s, pos) & %d) != %d) goto fail;", arg, arg)
			w("  goto L%d;", out)
		case reMatch:
			w("  if (NCAP > 0) {")
			w("    cap[NCAP > 1 ? 1 : 0] = pos;")
			w("    for (int32_t k = 0; k < NCAP; k++) m[k] = cap[k];")
			w("  }")
			w("  return 1;")
		case reRune1:
			if arg < 0x80 {
				w("  if (pos >= n || p[pos] != (char)%d) goto fail;", arg)
				w("  pos++;")
			} else {
				w("  if (pos >= n) goto fail;")
				w("  r = re_rune(s, pos, &w);")
				w("  if (r != %d) goto fail;", arg)
				w("  pos += w;")
			}
			w("  goto L%d;", out)
		case reAny, reAnyNotNL, reRune:
			w("  if (pos >= n) goto fail;")
			w("  r = (uint8_t)p[pos];")
			w("  w = 1;")
			w("  if (r >= 0x80) r = re_rune(s, pos, &w);")
			switch op {
			case reAnyNotNL:
				w("  if (r == '\\n') goto fail;")
			case reRune:
				w("  if (!(%s)) goto fail;", classTest(words, arg, cnt))
			}
			w("  pos += w;")
			w("  goto L%d;", out)
		default:
			// Unknown to this generator: the generic engines answer.
			w("  return -1;")
		}
	}
	w("fail:")
	w("  if (--budget < 0) return -1;")
	w("  if (sp == 0) goto done;")
	w("  sp--;")
	w("  pos = spos[sp];")
	w("  pc = spc[sp];")
	w("  if (pc < 0) {")
	w("    cap[-pc - 1 < NCAP ? -pc - 1 : 0] = pos;")
	w("    goto fail;")
	w("  }")
	w("  switch (pc) {")
	targets := make([]int, 0, len(alts))
	for t := range alts {
		targets = append(targets, int(t))
	}
	sort.Ints(targets)
	for _, t := range targets {
		w("    case %d: goto L%d;", t, t)
	}
	w("  }")
	w("  return -1;")
	w("done:")
	if anchored {
		w("  return 0;")
	} else {
		w("  if (start >= n) return 0;")
		w("  re_rune(s, start, &w);")
		w("  start += w;")
		w("  goto next_start;")
	}
	w("}")
	w("};")
	return b.String()
}

// classTest is the C condition that r lies in the cnt [lo, hi] pairs at
// word off of the program: comparisons for a few pairs, else re_class.
func classTest(words []int32, off, cnt int32) string {
	if cnt > reMaxInlineRanges {
		return fmt.Sprintf("re_class(P + %d, %d, r)", off, cnt)
	}
	if cnt == 0 {
		return "false"
	}
	var parts []string
	for k := int32(0); k < cnt; k++ {
		lo, hi := words[off+2*k], words[off+2*k+1]
		switch {
		case lo == hi:
			parts = append(parts, fmt.Sprintf("r == %d", lo))
		case lo == 0:
			parts = append(parts, fmt.Sprintf("r <= %d", hi))
		default:
			parts = append(parts, fmt.Sprintf("(r >= %d && r <= %d)", lo, hi))
		}
	}
	return strings.Join(parts, " || ")
}

// inst is instruction pc of a program's words.
func inst(words []int32, pc int32) (op, out, arg, cnt int32) {
	at := reHdr + 4*pc
	return words[at], words[at+1], words[at+2], words[at+3]
}

// consumed is the character set a consuming instruction matches, as
// sorted [lo, hi] pairs (nil for other instructions).
func consumed(words []int32, pc int32) []int32 {
	op, _, arg, cnt := inst(words, pc)
	switch op {
	case reRune1:
		return []int32{arg, arg}
	case reRune:
		return words[arg : arg+2*cnt]
	case reAny:
		return []int32{0, unicode.MaxRune}
	case reAnyNotNL:
		return []int32{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	}
	return nil
}

func rangesMeet(a, b []int32) bool {
	for i := 0; i+1 < len(a); i += 2 {
		for j := 0; j+1 < len(b); j += 2 {
			if a[i] <= b[j+1] && b[j] <= a[i+1] {
				return true
			}
		}
	}
	return false
}

// possessiveLoop reports whether the ALT at pc is a greedy loop over one
// consuming instruction B (ALT out B, B out the ALT) whose exit can never
// succeed at a position where the loop could have stopped earlier: every
// character such a position is followed by is one B matched, so if the
// exit's first characters exclude B's set, and it reaches MATCH without
// consuming only through an end-of-text assertion, giving characters back
// cannot lead to a match, and the loop need not remember its positions.
// The condition for B is returned as C.
func possessiveLoop(words []int32, pc int32) (string, bool) {
	_, body, exit, _ := inst(words, pc)
	set := consumed(words, body)
	if set == nil {
		return "", false
	}
	if _, bodyOut, _, _ := inst(words, body); bodyOut != pc {
		return "", false
	}
	const eot = 8 // syntax.EmptyEndText
	type state struct {
		pc     int32
		hasEOT bool
	}
	seen := map[state]bool{}
	stack := []state{{exit, false}}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[st] {
			continue
		}
		seen[st] = true
		if st.pc == pc || st.pc == body {
			return "", false
		}
		op, out, arg, _ := inst(words, st.pc)
		switch op {
		case reFail:
		case reMatch:
			if !st.hasEOT {
				return "", false
			}
		case reAlt:
			stack = append(stack, state{out, st.hasEOT}, state{arg, st.hasEOT})
		case reNop, reCap:
			stack = append(stack, state{out, st.hasEOT})
		case reEmpty:
			stack = append(stack, state{out, st.hasEOT || arg&eot != 0})
		case reRune1, reRune, reAny, reAnyNotNL:
			if rangesMeet(consumed(words, st.pc), set) {
				return "", false
			}
		default:
			return "", false
		}
	}
	_, _, barg, bcnt := inst(words, body)
	switch op, _, _, _ := inst(words, body); op {
	case reRune:
		return classTest(words, barg, bcnt), true
	case reRune1:
		return fmt.Sprintf("r == %d", barg), true
	case reAny:
		return "true", true
	default:
		return "r != '\\n'", true
	}
}
