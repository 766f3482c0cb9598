package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version says which build this is, from what the Go toolchain recorded in
// the binary: the module's version (a tag, or a pseudo-version from the
// commit when built in a checkout), the commit with "modified" when the
// checkout had uncommitted changes, and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "sweatpants (no build information)"
	}
	return describeBuild(info)
}

func describeBuild(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	b.WriteString("sweatpants ")
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
	fmt.Fprintf(&b, ", built with %s", info.GoVersion)
	return b.String()
}
