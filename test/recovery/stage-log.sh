#!/bin/sh
# Runs an agent command and records when it ran: one JSON line at start and one at end in
# the shared append-only log $1 (O_APPEND, one short write per line, so lines never mix).
# The crash trials read it to prove no task ever had two stages running at once.
log=$1
shift
now() { date +%s%N; }
printf '{"ev":"start","t":%s,"pid":%s,"task":"%s","role":"%s","attempt":"%s"}\n' \
  "$(now)" "$$" "$SWITCHYARD_TASK_ID" "$SWITCHYARD_ROLE" "$SWITCHYARD_ATTEMPT_ID" >>"$log"
"$@"
rc=$?
printf '{"ev":"end","t":%s,"pid":%s,"task":"%s","role":"%s","attempt":"%s","rc":%s}\n' \
  "$(now)" "$$" "$SWITCHYARD_TASK_ID" "$SWITCHYARD_ROLE" "$SWITCHYARD_ATTEMPT_ID" "$rc" >>"$log"
exit $rc
