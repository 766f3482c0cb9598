package policy

import (
	"context"

	"github.com/sweatpants-go/sweatpants/middleware"
)

// levels are the policy's scope levels of a context, outermost first.
type levels struct {
	list []*Level
	// program says the outermost level is the program's, whose allow
	// lifts the default ask.
	program bool
}

var scopeLevels = middleware.NewValue[*levels]("policy", nil)

// Level is a scope level's rules, compiled once to be set in many
// contexts: the program's rules in every turn's, an agent's in each of its
// turns'. Program and Narrow compile their rules each time they are
// called; a Level's methods do not.
type Level struct {
	rules []compiled
}

// NewLevel compiles rules into a level, each as well as it can be read:
// a rule Check would refuse is taken the strict way. With an unknown
// action it denies, with a tool pattern that cannot be read it covers
// every tool (and, an allow, none), and its condition, if it cannot be
// read, is never met nor missed.
func NewLevel(rules ...Rule) *Level {
	lv := &Level{rules: make([]compiled, len(rules))}
	for i, r := range rules {
		lv.rules[i], _ = compile(r)
	}
	return lv
}

// Program returns a context whose calls are decided under rules as the
// program's: the outermost scope level, the only one whose allow lifts the
// default ask for a tool with effects. It takes effect so only on a context
// with no policy yet, as a program's root scope is; on one that has some,
// nothing may widen what is there, and Program narrows it as Narrow does.
// With no rules it still marks the program's level as set, so that nothing
// inside can claim it.
func Program(ctx context.Context, rules ...Rule) context.Context {
	return NewLevel(rules...).Program(ctx)
}

// Narrow returns a context whose calls are decided under rules as well,
// as a scope level inside those ctx has: an agent's, a conversation's, an
// inner tool's. Inner scopes inherit it. A level narrows and never
// widens: its deny, finalDeny and ask apply, while its allow lifts
// nothing the outer levels or the default would ask (see the package
// documentation). A rule Check would refuse is taken the strict way, as
// NewLevel says.
func Narrow(ctx context.Context, rules ...Rule) context.Context {
	if len(rules) == 0 {
		return ctx
	}
	return NewLevel(rules...).Narrow(ctx)
}

// Program returns a context whose calls are decided under l as the
// program's level, as the function Program does with rules. A nil Level
// has no rules.
func (l *Level) Program(ctx context.Context) context.Context {
	if l == nil {
		l = &Level{}
	}
	if scopeLevels.Get(ctx) != nil {
		return l.Narrow(ctx)
	}
	return scopeLevels.With(ctx, &levels{list: []*Level{l}, program: true})
}

// Narrow returns a context whose calls are decided under l as well, a
// level inside those of ctx, as the function Narrow does with rules.
func (l *Level) Narrow(ctx context.Context) context.Context {
	if l == nil || len(l.rules) == 0 {
		return ctx
	}
	outer := scopeLevels.Get(ctx)
	ls := &levels{}
	if outer != nil {
		ls.program = outer.program
		ls.list = make([]*Level, len(outer.list), len(outer.list)+1)
		copy(ls.list, outer.list)
	}
	ls.list = append(ls.list, l)
	return scopeLevels.With(ctx, ls)
}
