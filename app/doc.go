// Package app is the program an application's own main runs: hand it the
// application's assistants and it serves them, as bin/sweatpants serves the
// demo's, with everything that binary has.
//
//	func main() {
//		app.Main(app.Config{
//			Name:       "greeter",
//			Assistants: []agents.Assistant{greeter},
//		})
//	}
//
// The program's commands:
//
//	greeter [serve] [flags]   serve the chat over HTTP (the default command)
//	greeter chat [flags]      talk to the assistants at the terminal
//	greeter version           print the version
//	greeter help [command]    print the usage, or a command's flags
//
// Each flag may be set by an environment variable instead: SWEATPANTS_ and
// the flag's name in capitals, dashes as underscores (--max-body is
// SWEATPANTS_MAX_BODY); a flag given wins. "greeter help serve" lists them
// all, and docs/configuration.md says what each does. What comes with them:
//
//   - The model, chosen from the environment unless Config.Model gives one:
//     any OpenAI-compatible endpoint with OPENAI_API_KEY (OPENAI_BASE_URL,
//     SWEATPANTS_MODEL, timeouts, retries and a fallback model), else the
//     built-in offline model, deterministic and needing no network.
//   - The default middleware around every turn, outside the application's
//     own (Config.Scope): e-mail addresses, phone and card numbers redacted
//     before the model sees them (SWEATPANTS_REDACT_PII=false turns it off),
//     JSON repaired in typed output, and at most 40 model calls a turn
//     (SWEATPANTS_TURN_CALLS).
//   - The database (--db, SQLite), locked so that one process at a time
//     uses it: a second is refused, naming the first one's pid.
//   - The server's hardening: loopback unless --addr says otherwise, hosts
//     checked (--allowed-hosts), request bodies, connections and streams
//     bounded, read and idle timeouts, /healthz and /readyz, /metrics and,
//     with a collector named, traces (docs/configuration.md).
//   - Shutdown on SIGINT or SIGTERM, with in-flight writes finished before
//     the database closes; exit status 0 when the program ends as asked, 2
//     for a bad command line or variable, 1 for any other failure.
//
// # The Datastar client
//
// The pages load the Datastar client, bundles/datastar.js of the Go module
// github.com/starfederation/datastar v1.0.0, which is third-party and not
// part of this module. serve finds it in the binary, else in the Go module
// cache, else at --datastar (which wins when given), and checks its sha256.
// Without it serve refuses to start and says the one command that fixes
// it:
//
//	go mod download github.com/starfederation/datastar@v1.0.0
//
// To run a binary where there is no module cache, ship that file beside it
// and name it with --datastar.
//
// # What a message typed while a question waits is
//
// While a question waits, a user may type instead of answering with the
// form. A real model decides what the message is: an answer in words, a
// change of an earlier answer, or a side question. The offline model
// cannot weigh words, so with it a plain word rule decides, chosen
// automatically whenever the model is the offline one:
//
//   - The message answers the waiting question in words when the question
//     takes such answers and the message names one of its fields (by name
//     or title) or options. Words count when they have three letters or
//     more and are not among the commonest English ones.
//   - Otherwise, a message that says it changes something (a word such as
//     "instead", "actually", "change", "rather", "switch", "wrong",
//     "oops" or "mistake") and names a field or option of an earlier
//     question changes that question's answer, the newest question first.
//   - Anything else is a side question, answered beside the flow while the
//     question keeps waiting.
//
// So "make it 3 travellers" answers a trip form with a travellers field,
// "actually, Osaka instead" changes an earlier answer that offered Osaka,
// and "what's the weather in Oslo?" is a side question.
//
// # An application's own parts
//
// Config holds what an application adds, every field but Assistants
// optional: its own elicit kinds (Kinds) with their browser components
// (Components) and terminal prompters (Prompters), its own middleware and
// values (Scope), a model (Model), its own flags (Flags), plugins
// (Plugins, package plugin), and a Setup that runs once the database is
// open and the model chosen, for what needs them: an application's own
// tables are made there, by its own migrations (Env.DB's Migrate), or by
// a plugin's, as the demo's flight catalogue makes its own; an
// application that makes none has none. Tests drive the program through Run, which Main calls with
// os.Args, the environment and the standard streams.
package app
