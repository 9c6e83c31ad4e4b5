#!/bin/sh
# A 50 ms fake agent for the dispatch benchmark: a POSIX sh script (no Node start-up in the
# floor) that does what its stage needs. Worker: touch the task's file, tick the checklist.
# Review: write an APPROVED review. The task's file is src/<task name>.txt.
echo "agent $SWITCHYARD_ROLE $SWITCHYARD_TASK_ID starting"
sleep 0.05
case "$SWITCHYARD_ROLE" in
worker)
  : >>"$SWITCHYARD_WORKSPACE/src/${SWITCHYARD_TASK_ID##*/}.txt"
  sed -i 's/^- \[ \]/- [x]/' "$SWITCHYARD_PLAN"
  echo "edited src/${SWITCHYARD_TASK_ID##*/}.txt, checklist ticked"
  ;;
review)
  printf 'Verdict: APPROVED\n\n- [MINOR] fine as is\n' >"$SWITCHYARD_REVIEW_FILE"
  echo "review written"
  ;;
esac
echo "done"
