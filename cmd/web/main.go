// Command sweatpants serves the Sweatpants chat with the demo agents: a
// single binary with its SQLite database and the browser app. The chat
// command runs the same agents at the terminal instead, over stdin and
// stdout.
//
//	sweatpants [serve] [--addr 127.0.0.1:8080] [--db data/sweatpants.db]
//	sweatpants chat [--agent showcase] [--conversation ID] [--db data/terminal.db]
//	sweatpants version
//	sweatpants help [serve|chat]
//
// It is one application of package app, the demo's (package demoapp): an
// application of one's own has a main like this one.
package main

import (
	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/examples/demo/demoapp"
)

func main() {
	app.Main(demoapp.Config())
}
