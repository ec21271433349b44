//go:build !unix

package regfile

import (
	"io/fs"
	"os"
)

// open looks at path before opening it where opening cannot be made not
// to wait: a file replaced in between is still checked on its
// descriptor.
func open(path string, noFollow bool) (*os.File, fs.FileInfo, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	st, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return checkOpened(f, path)
}
