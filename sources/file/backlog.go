package file

import "github.com/millrace/millrace/sources"

var _ sources.Backlogger = (*Source)(nil)

// Backlog returns the new files the last LatestOffset left for later
// triggers (filesPending): a number that keeps growing means files arrive
// faster than MaxFilesPerTrigger lets the query read them.
func (s *Source) Backlog() (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(s.pending), "files"
}
