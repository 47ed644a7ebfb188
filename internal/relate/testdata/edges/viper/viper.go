// Excerpt of viper v1.21.0 viper.go (lines 63-70 and 1670-1681, the
// function around them shortened), from the Go module proxy. MIT License,
// (c) 2014 Steve Francia.

package viper

import (
	"fmt"
	"slices"
)

// SupportedExts are universally supported extensions.
var SupportedExts = []string{"json", "toml", "yaml", "yml"}

// UnsupportedConfigError denotes encountering an unsupported
// configuration filetype.
type UnsupportedConfigError string

// Error returns the formatted configuration error.
func (str UnsupportedConfigError) Error() string {
	return fmt.Sprintf("Unsupported Config Type %q", string(str))
}

func checkConfigType(configType, filename string) error {
	if configType == "" {
		return fmt.Errorf("config type could not be determined for %s", filename)
	}

	if !slices.Contains(SupportedExts, configType) {
		return UnsupportedConfigError(configType)
	}
	return nil
}
