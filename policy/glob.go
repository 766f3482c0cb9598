package policy

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// glob is a compiled pattern in the syntax of path.Match: * matches any
// run of characters, ? any one character, [abc], [a-z] and [^a-z] one
// character of (or not of) a class, and \ quotes the character after it.
// Unlike path.Match's, a * crosses a /, so that "https://host/*" covers
// every URL under the host: a rule about a string must not miss what a
// reader of it would expect it to cover. It is compiled once, when a
// rule is parsed or narrowed, so a decision only walks it.
type glob struct {
	exact string // the pattern when it has no wildcard
	all   bool   // the pattern is "*"
	toks  []globTok
}

type globKind uint8

const (
	globLit   globKind = iota // lit, as it is
	globStar                  // any run
	globOne                   // any one character
	globClass                 // one character in (or, negated, out of) ranges
)

type globTok struct {
	kind    globKind
	lit     string
	ranges  []rune // pairs lo, hi
	negated bool
}

// compileGlob compiles pattern, or says what is wrong with it.
func compileGlob(pattern string) (glob, error) {
	if !strings.ContainsAny(pattern, `*?[\`) {
		return glob{exact: pattern}, nil
	}
	if pattern == "*" {
		return glob{all: true}, nil
	}
	var g glob
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			g.toks = append(g.toks, globTok{kind: globLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); {
		switch c := pattern[i]; c {
		case '*':
			flush()
			if n := len(g.toks); n == 0 || g.toks[n-1].kind != globStar {
				g.toks = append(g.toks, globTok{kind: globStar})
			}
			i++
		case '?':
			flush()
			g.toks = append(g.toks, globTok{kind: globOne})
			i++
		case '\\':
			if i+1 == len(pattern) {
				return glob{}, errors.New(`it ends in a \ that quotes nothing`)
			}
			_, n := utf8.DecodeRuneInString(pattern[i+1:])
			lit.WriteString(pattern[i+1 : i+1+n]) // as it is, even when no UTF-8
			i += 1 + n
		case '[':
			flush()
			tok, n, err := compileClass(pattern[i:])
			if err != nil {
				return glob{}, err
			}
			g.toks = append(g.toks, tok)
			i += n
		default:
			_, n := utf8.DecodeRuneInString(pattern[i:])
			lit.WriteString(pattern[i : i+n])
			i += n
		}
	}
	flush()
	return g, nil
}

// compileClass compiles the class that s starts with ("[a-z]…") and
// returns it with the bytes it took.
func compileClass(s string) (globTok, int, error) {
	tok := globTok{kind: globClass}
	i := 1
	if i < len(s) && (s[i] == '^' || s[i] == '!') {
		tok.negated = true
		i++
	}
	// char reads one character of the class, quoted or not.
	char := func() (rune, error) {
		if i < len(s) && s[i] == '\\' {
			i++
		}
		if i == len(s) {
			return 0, errors.New("a [ is never closed by a ]")
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		return r, nil
	}
	for {
		if i == len(s) {
			return tok, 0, errors.New("a [ is never closed by a ]")
		}
		if s[i] == ']' {
			if len(tok.ranges) == 0 {
				return tok, 0, errors.New("a class [] matches no character")
			}
			return tok, i + 1, nil
		}
		lo, err := char()
		if err != nil {
			return tok, 0, err
		}
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			i++
			if hi, err = char(); err != nil {
				return tok, 0, err
			}
			if hi < lo {
				return tok, 0, errors.New("a range " + string(lo) + "-" + string(hi) + " runs backwards")
			}
		}
		tok.ranges = append(tok.ranges, lo, hi)
	}
}

// match reports whether s matches the whole pattern. A * is matched
// lazily and widened one character at a time on a mismatch; only the
// last * needs widening, since any earlier one's extent can be taken by
// the later one, so a match costs at most len(s) times the pattern.
func (g *glob) match(s string) bool {
	switch {
	case g.all:
		return true
	case g.toks == nil:
		return s == g.exact
	}
	ti, si := 0, 0
	starT, starS := -1, 0
	for {
		if ti < len(g.toks) {
			t := &g.toks[ti]
			switch t.kind {
			case globStar:
				starT, starS = ti, si
				ti++
				continue
			case globLit:
				if strings.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			case globOne:
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ti++
					continue
				}
			case globClass:
				if si < len(s) {
					r, n := utf8.DecodeRuneInString(s[si:])
					if t.has(r) {
						si += n
						ti++
						continue
					}
				}
			}
		} else if si == len(s) {
			return true
		}
		if starT < 0 || starS == len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		ti, si = starT+1, starS
	}
}

// has reports whether the class t takes r.
func (t *globTok) has(r rune) bool {
	in := false
	for i := 0; i < len(t.ranges); i += 2 {
		if t.ranges[i] <= r && r <= t.ranges[i+1] {
			in = true
			break
		}
	}
	return in != t.negated
}
