package expr

import (
	"encoding/binary"
	"unicode/utf8"
)

// Character model shared by every string function (and by the GPU kernels
// that mirror them): a string is a sequence of characters as
// utf8.DecodeRune splits it. A valid UTF-8 sequence is one character; every
// byte that does not start a valid sequence (a stray continuation byte, a
// truncated or overlong sequence, an encoded surrogate) is a character of
// its own, one byte wide. Consequences used throughout:
//   - a byte < 0x80 is always a whole character;
//   - a byte that is not a continuation byte (0x80..0xBF) always starts a
//     character, so a match of a valid UTF-8 needle found bytewise always
//     begins on a character boundary;
//   - UTF-8 is prefix-free: a valid sequence decodes the same whatever
//     follows it, so comparing valid text bytewise equals comparing it
//     character by character.

const strHighBits = 0x8080808080808080

// strIsASCII reports whether every byte of s is below 0x80.
func strIsASCII(s []byte) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(s[i:])&strHighBits != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// strCharLen returns the number of characters of s.
func strCharLen(s []byte) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(s[i:])&strHighBits != 0 {
			return i + utf8.RuneCount(s[i:])
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i + utf8.RuneCount(s[i:])
		}
	}
	return len(s)
}

// strCharWidth returns the byte width of the character starting at s[i]
// (i < len(s)).
func strCharWidth(s []byte, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRune(s[i:])
	return w
}

// strCharOffset returns the byte offset just past the first k characters of
// s, or len(s) when s has fewer than k characters. k <= 0 gives 0.
func strCharOffset(s []byte, k int64) int {
	if k >= int64(len(s)) {
		return len(s) // every character is at least one byte
	}
	i := 0
	for k >= 8 && i+8 <= len(s) && binary.LittleEndian.Uint64(s[i:])&strHighBits == 0 {
		i += 8
		k -= 8
	}
	for i < len(s) && k > 0 {
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRune(s[i:])
			i += w
		}
		k--
	}
	return i
}

// strCharRange returns the byte range of the characters [from, from+count)
// of s (0-based, from >= 0, count >= 0), clamped to s.
func strCharRange(s []byte, from, count int64) (lo, hi int) {
	lo = strCharOffset(s, from)
	if count >= int64(len(s)-lo) {
		return lo, len(s)
	}
	return lo, lo + strCharOffset(s[lo:], count)
}

// strIsCont reports whether c is a UTF-8 continuation byte.
func strIsCont(c byte) bool { return c&0xC0 == 0x80 }
