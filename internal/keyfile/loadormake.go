package keyfile

import (
	"context"
	"errors"
)

// LoadOrMake is a key cache's load-or-setup of one entry, ordered by the
// entry's lock file so that concurrent processes run one setup: load
// under the shared lock; when that fails with notCached, prepare (make
// the cache's directory, where the lock file goes), take the lock
// exclusive and load again (another process may have made the entry
// while this one waited), and only when that still fails with notCached,
// make the entry (make gets that error, and writes the entry before it
// returns). waiting is called when another process holds the lock, which
// is waited for until ctx is done (Lock). Any other error of load,
// prepare or Lock is returned as it is.
func LoadOrMake[T any](ctx context.Context, lock string, waiting func(), notCached error, prepare func() error,
	load func() (T, error), make func(notCachedErr error) (T, error)) (T, error) {
	v, err := sharedLoad(ctx, lock, waiting, load)
	if !errors.Is(err, notCached) {
		return v, err
	}
	if err := prepare(); err != nil {
		var none T
		return none, err
	}
	release, err := Lock(ctx, lock, true, waiting)
	if err != nil {
		var none T
		return none, err
	}
	defer release()
	if v, err = load(); !errors.Is(err, notCached) {
		return v, err
	}
	return make(err)
}

// sharedLoad is load under lock's shared lock.
func sharedLoad[T any](ctx context.Context, lock string, waiting func(), load func() (T, error)) (T, error) {
	release, err := Lock(ctx, lock, false, waiting)
	if err != nil {
		var none T
		return none, err
	}
	defer release()
	return load()
}
