package shell

import "strings"

// splitStatements splits text at ';' outside quotes and comments. complete is
// false when text ends inside a quote or block comment, or holds a statement
// not yet ended by ';'. Comment-only pieces are dropped.
func splitStatements(text string) (stmts []string, complete bool) {
	start := 0
	content := false // the current piece has something besides comments
	i := 0
	n := len(text)
	for i < n {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			content = true
			j := i + 1
			for {
				if j >= n {
					return stmts, false
				}
				if text[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < n && text[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
			continue
		case c == '-' && i+1 < n && text[i+1] == '-' || c == '#':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				i = n
			} else {
				i += j + 1
			}
			continue
		case c == '/' && i+1 < n && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return stmts, false
			}
			i += j + 4
			continue
		case c == ';':
			if content {
				stmts = append(stmts, strings.TrimSpace(text[start:i]))
			}
			start, content = i+1, false
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			content = true
		}
		i++
	}
	return stmts, !content
}
