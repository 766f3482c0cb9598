package app

import "runtime/debug"

// moduleVersion is the module's version the binary was built from, for
// the spans' service.version (telemetry, a built-in plugin).
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return ""
}
