package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// findServerPID finds the `outreachd serve` process listening on addr (host:port) by its
// environment (HTTP_ADDR=addr), for servers started by another package that does not expose
// the process (internal/testenv).
func findServerPID(addr string) (int, error) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	want := "HTTP_ADDR=" + addr
	for _, d := range dirs {
		cmdline, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), "\x00serve") {
			continue
		}
		env, err := os.ReadFile(d + "/environ")
		if err != nil {
			continue
		}
		// os/exec keeps one value per variable in a child's environment, so an exact entry plus
		// the serve argument identifies the process.
		if slices.Contains(strings.Split(string(env), "\x00"), want) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no outreachd serve process with HTTP_ADDR=%s", addr)
}
