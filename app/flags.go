package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/transport"
	"github.com/sweatpants-go/sweatpants/policy"
)

// envName is the environment variable a flag is also read from:
// SWEATPANTS_ and the flag's name in capitals, dashes as underscores
// (--max-body is SWEATPANTS_MAX_BODY).
func envName(flag string) string {
	return "SWEATPANTS_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// usageError is a mistake on the command line or in the environment. The
// program says what was wrong, points at the command's help and exits 2,
// as command-line tools conventionally do for a bad invocation.
type usageError struct {
	cmd string // the command whose help to point at; "" for the program's
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// parseFlags parses args into fs, then fills every flag not given on the
// command line from its environment variable (envName); a flag given wins,
// and an empty variable counts as unset. Each flag's value checks itself,
// so a bad value is refused naming the flag or the variable it came from
// and what was given. Positional arguments are refused: the flag package
// stops at the first one, so `serve extra --addr :9090` would otherwise
// ignore --addr. --help prints the usage to stdout and returns
// flag.ErrHelp, which is no failure.
func parseFlags(fs *flag.FlagSet, synopsis string, args []string, getenv func(string) string, stdout io.Writer) error {
	fs.SetOutput(io.Discard) // errors are returned and said once, by main
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printFlags(stdout, fs, synopsis)
			return flag.ErrHelp
		}
		return &usageError{fs.Name(), err}
	}
	if fs.NArg() > 0 {
		return &usageError{fs.Name(), fmt.Errorf("%s takes no arguments, only flags: %q is not a flag (flags are written --name value)", fs.Name(), fs.Arg(0))}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		key := envName(f.Name)
		v := getenv(key)
		if err != nil || given[f.Name] || v == "" {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = &usageError{fs.Name(), fmt.Errorf("invalid value %q for %s: %w", v, key, e)}
		}
	})
	return err
}

// printFlags prints a command's usage: the synopsis, then each flag with
// its environment variable and default.
func printFlags(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprintf(w, "%s\n\nFlags (each may be set by its environment variable instead; a flag given wins):\n", synopsis)
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(w, "  --%s (%s", f.Name, envName(f.Name))
		if f.DefValue != "" {
			fmt.Fprintf(w, ", default %s", f.DefValue)
		}
		fmt.Fprintf(w, ")\n        %s\n", f.Usage)
	})
}

// The flag values below check what they are given when it is given, so
// that a refusal names its source (flag.FlagSet adds the flag's name;
// parseFlags the variable's). Their messages say what is wanted.

// choiceFlag is one of a few words.
type choiceFlag struct {
	p       *string
	choices []string
}

func (f choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			*f.p = s
			return nil
		}
	}
	return fmt.Errorf("want %s", strings.Join(f.choices, " or "))
}

func (f choiceFlag) String() string { return deref(f.p) }

// durationFlag is a duration that ok accepts (any when ok is nil).
type durationFlag struct {
	p    *time.Duration
	ok   func(time.Duration) bool
	want string
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || (f.ok != nil && !f.ok(d)) {
		return errors.New("want " + f.want)
	}
	*f.p = d
	return nil
}

func (f durationFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}

// intFlag is a whole number no smaller than min.
type intFlag[T int | int64] struct {
	p    *T
	min  T
	want string
}

func (f intFlag[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < int64(f.min) || int64(T(n)) != n {
		return errors.New("want " + f.want)
	}
	*f.p = T(n)
	return nil
}

func (f intFlag[T]) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatInt(int64(*f.p), 10)
}

// maxReplyFlag is the bound on a model's reply (chat.Config.MaxReply), in
// bytes, which serve and chat share.
func maxReplyFlag(p *int) intFlag[int] {
	return intFlag[int]{p, chat.MinMaxReply, fmt.Sprintf("a number of bytes, at least %d", chat.MinMaxReply)}
}

const maxReplyUsage = "longest reply a model may give, in bytes of text; a longer one is cut there, with a note saying so"

// boolFlag is true or false; given alone (--secure-cookies) it is true.
type boolFlag struct{ p *bool }

func (f boolFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*f.p = b
	return nil
}

func (f boolFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatBool(*f.p)
}

func (f boolFlag) IsBoolFlag() bool { return true }

// listFlag is a comma-separated list of names; blanks are dropped.
type listFlag struct{ p *[]string }

func (f listFlag) Set(s string) error {
	*f.p = nil
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*f.p = append(*f.p, v)
		}
	}
	return nil
}

func (f listFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

// prefixesFlag is a comma-separated list of addresses or CIDR prefixes.
type prefixesFlag struct {
	p   *[]netip.Prefix
	raw *string
}

func (f prefixesFlag) Set(s string) error {
	ps, err := transport.ParsePrefixes(s)
	if err != nil {
		return err
	}
	*f.p, *f.raw = ps, s
	return nil
}

func (f prefixesFlag) String() string { return deref(f.raw) }

// ruleFile is a rule file of the permission policy, read and parsed when
// the flag is set, so a file that cannot be read stops the program before
// anything starts, with each bad line named (policy.Parse).
type ruleFile struct {
	path  string
	rules []policy.Rule
}

// policyFlag sets a ruleFile.
type policyFlag struct{ p *ruleFile }

func (f policyFlag) Set(path string) error {
	if path == "" {
		return errors.New("want a rule file")
	}
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	rules, err := policy.Parse(path, file)
	if err != nil {
		return err
	}
	// A rule's source is shown beside each decision it makes (the audit,
	// a refused edit on an approval card): the file's name says which
	// file, while its folders would show where the program was installed.
	for i := range rules {
		rules[i].Source = filepath.Base(path) + strings.TrimPrefix(rules[i].Source, path)
	}
	*f.p = ruleFile{path: path, rules: rules}
	return nil
}

func (f policyFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.path
}

const policyUsage = "rule file of the permission policy for tool calls, the program's rules: one rule a line, " +
	"as docs/configuration.md says (default: none; a tool that declares effects asks the user)"

// nonEmptyFlag is a string that must not be empty.
type nonEmptyFlag struct{ p *string }

func (f nonEmptyFlag) Set(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	*f.p = s
	return nil
}

func (f nonEmptyFlag) String() string { return deref(f.p) }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
