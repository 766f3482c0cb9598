package mcpconn

import (
	"maps"
	"runtime"
	"slices"

	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// A server started by a command does not get the program's environment:
// the program's holds its own secrets (the model's API key, the
// database's address, every SWEATPANTS_ setting), and an outside server
// is someone else's code, able to print what it was given into the
// conversation. It gets what a program needs to run at all — the
// variables below, the same few the official SDKs' clients pass — and
// what its configuration names: the variables of InheritEnv, with the
// program's values, and those of Env, with the file's.

// defaultEnv names the variables of the program's environment every
// command gets, on this system.
func defaultEnv(goos string) []string {
	if goos == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}

// environ is the environment of cfg's command, given the program's own
// (lookup), as "NAME=value" in the order of the names.
func environ(cfg mcpclient.Server, lookup func(string) (string, bool)) []string {
	env := map[string]string{}
	for _, name := range append(defaultEnv(runtime.GOOS), cfg.InheritEnv...) {
		if v, ok := lookup(name); ok {
			env[name] = v
		}
	}
	maps.Copy(env, cfg.Env)
	out := make([]string, 0, len(env))
	for _, name := range slices.Sorted(maps.Keys(env)) {
		out = append(out, name+"="+env[name])
	}
	return out
}
