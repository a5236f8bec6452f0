package tpch

import (
	"strings"
	"sync"
	"sync/atomic"
)

// textPoolSize is the size of dbgen's pre-generated text: every comment is
// a random window of it.
const textPoolSize = 300 * 1024 * 1024

var (
	poolMu sync.Mutex // held while building
	pool   atomic.Pointer[[]byte]
)

// textPool returns the 300 MiB of sentences dbgen builds from its grammar
// with stream 5 before the first comment; it is built once per process,
// or again after ReleaseTextPool.
func textPool() []byte {
	if p := pool.Load(); p != nil {
		return *p
	}
	poolMu.Lock()
	defer poolMu.Unlock()
	if p := pool.Load(); p != nil {
		return *p
	}
	s := &stream{seed: streamDefs[sdTextPool].seed, boundary: 1}
	buf := make([]byte, 0, textPoolSize)
	sent := make([]byte, 0, 512)
	for len(buf) < textPoolSize {
		sent = sentence(sent[:0], s)
		need := textPoolSize - len(buf)
		if need >= len(sent)+1 {
			buf = append(buf, sent...)
			buf = append(buf, ' ')
		} else {
			buf = append(buf, sent[:need]...)
		}
	}
	pool.Store(&buf)
	return buf
}

// ReleaseTextPool drops the text pool that generating comments builds (300
// MiB, kept for the next generation otherwise), for a process that has
// generated all it will: a benchmark then measures queries without it in
// the heap. Generating again rebuilds it.
func ReleaseTextPool() {
	pool.Store(nil)
}

// sentence appends one sentence of the grammar (clause 4.2.2.14): a
// template such as "N V P T" whose noun phrases, verb phrases and
// prepositional phrases expand into words, each followed by a space,
// and whose terminator replaces the last space.
func sentence(dst []byte, s *stream) []byte {
	for _, tok := range strings.Fields(distGrammar.pickText(s)) {
		switch tok[0] {
		case 'V':
			dst = phrase(dst, distVerbPhrases, s)
		case 'N':
			dst = phrase(dst, distNounPhrases, s)
		case 'P':
			dst = append(dst, distPrepositions.pickText(s)...)
			dst = append(dst, " the "...)
			dst = phrase(dst, distNounPhrases, s)
		case 'T':
			dst = dst[:len(dst)-1]
			dst = append(dst, distTerminators.pickText(s)...)
		}
	}
	return dst
}

// phrase appends a noun or verb phrase: a template such as "J, J N" whose
// letters name the word list (article, adjective, adverb, noun, verb,
// auxiliary) and whose trailing punctuation follows the word.
func phrase(dst []byte, templates *dist, s *stream) []byte {
	for _, tok := range strings.Fields(templates.pickText(s)) {
		var src *dist
		switch tok[0] {
		case 'A':
			src = distArticles
		case 'J':
			src = distAdjectives
		case 'D':
			src = distAdverbs
		case 'N':
			src = distNouns
		case 'V':
			src = distVerbs
		case 'X':
			src = distAuxiliaries
		}
		dst = append(dst, src.pickText(s)...)
		if len(tok) > 1 {
			dst = append(dst, tok[1])
		}
		dst = append(dst, ' ')
	}
	return dst
}

// text is dbgen's TEXT: a window of the pool whose length is uniform in
// [0.4, 1.6] times avg, at an offset uniform over the pool.
func (st *streams) text(avg int, sd int) string {
	lo, hi := int64(float64(avg)*0.4), int64(float64(avg)*1.6)
	p := textPool()
	off := st.random(0, textPoolSize-hi, sd)
	n := st.random(lo, hi, sd)
	return string(p[off : off+n])
}

// alphaNum is the alphabet of dbgen's random strings (addresses).
const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// vstring is dbgen's V_STR: a string of length uniform in [0.4, 1.6]
// times avg drawn from alphaNum, six bits of a 31-bit draw per character
// and a fresh draw every five characters.
func (st *streams) vstring(avg int, sd int) string {
	lo, hi := int64(float64(avg)*0.4), int64(float64(avg)*1.6)
	n := st.random(lo, hi, sd)
	b := make([]byte, n)
	var r int64
	for i := range b {
		if i%5 == 0 {
			r = st.random(0, maxLong, sd)
		}
		b[i] = alphaNum[r&077]
		r >>= 6
	}
	return string(b)
}
