#!/usr/bin/env bash
# tool-build.sh NAME COMMAND...: runs the `go install -v` or `go build -v` COMMAND that builds the
# tool NAME, printing a progress line every TOOL_PROGRESS_SECONDS (default 30) with the time so far
# and the packages compiled, and the elapsed time at the end. A cold build of the larger tools
# (kube-apiserver, OpenTofu, goreleaser) takes many minutes on 2 cores; silence for that long looks
# like a hang. The compiler's own output goes to a log that is printed only when the build fails.
set -euo pipefail

name=$1
shift
every=${TOOL_PROGRESS_SECONDS:-30}
log=$(mktemp "${TMPDIR:-/tmp}/tool-build-${name//\//_}.XXXXXX")
start=$SECONDS

elapsed() {
  local s=$((SECONDS - start))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

echo "building ${name} (progress every ${every}s; the first build of a large tool takes minutes)"
"$@" >"$log" 2>&1 &
pid=$!
# The progress loop polls once a second, so a short build ends without waiting out an interval.
next=$((SECONDS + every))
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  if [ "$SECONDS" -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
    # -v prints each package as it is compiled (cached ones are not listed).
    echo "  ${name}: $(elapsed), $(grep -cv '^go: ' "$log" || true) packages compiled so far"
    next=$((SECONDS + every))
  fi
done
status=0
wait "$pid" || status=$?
if [ "$status" -eq 0 ]; then
  echo "built ${name} in $(elapsed)"
  rm -f "$log"
  exit 0
fi
echo "FAILED building ${name} after $(elapsed) (exit ${status}); the end of its output:" >&2
tail -n 40 "$log" >&2
rm -f "$log"
exit "$status"
