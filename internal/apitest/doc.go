// Package apitest holds the fence between the public API and the engine
// as a test: its only code is in apitest_test.go. A package of its own
// keeps the test apart from every package it reads, since it looks at all
// of them at once.
package apitest
