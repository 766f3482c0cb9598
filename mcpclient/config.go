// Package mcpclient lets agents use the tools of outside MCP servers: a
// server started by command (stdio) or reached by URL (Streamable HTTP,
// with a bearer token), named by a Server (in app.Config.MCPServers, or a
// file Parse reads). A Loop takes their tools as its own through a
// ToolSource (All, Named): listed to the model with their schemas and
// descriptions, called through the same tool middleware and permission
// policy as any tool (asking the user by default: they reach outside the
// program), recorded, and answered from the record on replay, so that a
// replay never calls the server again. A server's questions during a call
// (elicitation/create) become questions of the conversation, and its
// progress the turn's. The connections themselves are the program's,
// made on the official Go SDK's client.
package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Server is one outside MCP server: started by Command (with Args,
// speaking MCP on its stdin and stdout) or reached at URL (Streamable
// HTTP, sending Token as a bearer token when set). Exactly one of Command
// and URL is set.
//
// A command's environment is not the program's: it gets a few variables
// every program needs (PATH, HOME, USER, LOGNAME, SHELL and TERM on
// POSIX systems), the program's variables InheritEnv names, and Env.
type Server struct {
	// Name names the server in the policy's rules (NAME/TOOL), the
	// record and the settings page: letters, digits, '_' and '-'.
	Name    string            `json:"-"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// InheritEnv names variables of the program's environment that the
	// command is given as they are (a proxy's address, say); one the
	// program does not have is left out.
	InheritEnv []string `json:"inheritEnv,omitempty"`
	URL        string   `json:"url,omitempty"`
	Token      string   `json:"token,omitempty"`
	// Timeout bounds connecting, and how long a call may go without a
	// word from the server (a question the user is answering does not
	// count); zero is DefaultTimeout.
	Timeout Duration `json:"timeout,omitzero"`
}

// DefaultTimeout is a server's Timeout when it sets none.
const DefaultTimeout = 30 * time.Second

// Duration is a time.Duration written as "30s" in a file.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`want a duration such as "30s"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf(`want a positive duration such as "30s", not %q`, s)
	}
	*d = Duration(v)
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Check says what is wrong with s, if anything.
func (s Server) Check() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("server %q: a name is letters, digits, '_' and '-'", s.Name)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("server %s: give a command or a url", s.Name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("server %s: give a command or a url, not both", s.Name)
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("server %s: the url %q is not an http or https URL", s.Name, s.URL)
		}
	case s.Token != "":
		return fmt.Errorf("server %s: a token is sent to a url; a command takes its secrets in env", s.Name)
	}
	if s.URL != "" && len(s.InheritEnv) > 0 {
		return fmt.Errorf("server %s: inheritEnv is for a command, and a url runs none", s.Name)
	}
	for _, name := range append(slices.Sorted(maps.Keys(s.Env)), s.InheritEnv...) {
		if err := checkEnvName(name); err != nil {
			return fmt.Errorf("server %s: %w", s.Name, err)
		}
	}
	return nil
}

// Where says where the server is, for people: its URL or its command
// line. A token or an environment is never shown.
func (s Server) Where() string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// Parse reads a file of servers, named name in errors: a JSON object
// whose "mcpServers" maps each server's name to its settings, as desktop
// MCP clients write it:
//
//	{"mcpServers": {
//	  "files":  {"command": "mcp-files", "args": ["--root", "/srv"], "env": {"LOG": "warn"}, "inheritEnv": ["HTTPS_PROXY"]},
//	  "search": {"url": "https://search.example/mcp", "token": "…", "timeout": "1m"}
//	}}
//
// The servers come back in the order of their names. An unknown field is
// refused, so a misspelt setting is not silently ignored.
func Parse(name string, r io.Reader) ([]Server, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var file struct {
		Servers map[string]Server `json:"mcpServers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if file.Servers == nil {
		return nil, fmt.Errorf(`%s: no "mcpServers" object`, name)
	}
	servers := make([]Server, 0, len(file.Servers))
	for n, s := range file.Servers {
		s.Name = n
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		servers = append(servers, s)
	}
	slices.SortFunc(servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return servers, nil
}

// checkEnvName says what is wrong with name as a variable's name, if
// anything.
func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("%q is not the name of an environment variable", name)
	}
	return nil
}
