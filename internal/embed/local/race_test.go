//go:build race

package local

func init() { raceEnabled = true }
