package storage

import "fmt"

// Validate reports a configuration the store cannot open with; Open calls it after filling in
// the defaults.
func (c Config) Validate() error {
	if c.MaxConns < 0 {
		return fmt.Errorf("storage: MaxConns %d must not be negative (0 takes the default)", c.MaxConns)
	}
	return nil
}
