package app

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// modulePath is this module's path, which names it among an application's
// dependencies.
const modulePath = "github.com/sweatpants-go/sweatpants"

// buildVersion says which build this is, from what the Go toolchain recorded in
// the binary: the program's name and module version (a tag, or a
// pseudo-version from the commit when built in a checkout), the commit
// with "modified" when the checkout had uncommitted changes, the version
// of Sweatpants an application was built with, and the Go version.
func buildVersion(name string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return name + " (no build information)"
	}
	return describeBuild(name, info)
}

func describeBuild(name string, info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	b.WriteString(name + " ")
	if v := info.Main.Version; v != "" {
		b.WriteString(v)
	} else {
		b.WriteString("(devel)")
	}
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, " commit %s", rev[:min(len(rev), 12)])
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " of %s", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", modified")
		}
	}
	for _, d := range info.Deps {
		if d.Path != modulePath || info.Main.Path == modulePath {
			continue
		}
		if d.Replace != nil {
			d = d.Replace
		}
		if d.Version == "" || d.Version == "(devel)" {
			d.Version = "from " + d.Path // replaced by a directory
		}
		fmt.Fprintf(&b, ", with Sweatpants %s", d.Version)
	}
	fmt.Fprintf(&b, ", built with %s", info.GoVersion)
	return b.String()
}
