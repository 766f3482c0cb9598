package app

import "github.com/sweatpants-go/sweatpants/plugin"

// DB is the command's database as an application sees it (Env.DB): a
// place for tables of its own beside the framework's, which it makes with
// migrations of its own (Migrate), reads with QueryContext and writes with
// Write. It is the one plugins are handed (package plugin).
type DB = plugin.DB
