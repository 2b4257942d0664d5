package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// logFlags are serve's --log-level and --log-format: what serve logs on stderr (the
// pipeline's events, the MCP server's and the upstream servers' warnings), and how.
type logFlags struct {
	level, format string
}

// logLevels are --log-level's values.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.level, "log-level", "warn", "`LEVEL` of what is logged on stderr: debug (every call's start too), info (every call's result, with tool, call_id, root_id, parent_id, is_error and duration), warn (calls abandoned after their cancellation, upstream servers' problems) or error")
	fs.StringVar(&l.format, "log-format", "text", "`FORMAT` of the log on stderr: text (key=value) or json (one object per line)")
}

// check returns what is wrong with the flags, or "".
func (l *logFlags) check() string {
	if _, ok := logLevels[l.level]; !ok {
		return fmt.Sprintf("--log-level must be debug, info, warn or error, got %q", l.level)
	}
	if l.format != "text" && l.format != "json" {
		return fmt.Sprintf("--log-format must be text or json, got %q", l.format)
	}
	return ""
}

// logger returns the logger the flags describe, writing to w. The flags must have
// passed check.
func (l *logFlags) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: logLevels[l.level]}
	if l.format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
