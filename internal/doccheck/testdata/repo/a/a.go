// Package a is a fixture: see a.go and gone.go, a/sub and a/nosuch,
// a.New and a.Gone, T.M and T.X, a.T.F and a.T.Y, [a.T] and [a.Lost],
// pebble/db.go (another module's), time.Duration (not ours).
//
//	v := a.Nothing() // code: dotted names are variables here
package a

import "time"

// T holds F.
type T struct{ F time.Duration }

// M is a method.
func (T) M() {}

// New makes nothing.
func New() {}

// Alias is T under another name: Alias.M resolves, Alias.Z does not.
type Alias = T
