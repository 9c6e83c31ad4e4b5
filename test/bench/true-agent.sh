#!/bin/sh
# The smallest agent that does its stage's work (the `true` of the sandbox benchmark): no sleep.
# Worker: touch the task's file, tick the checklist. Review: write an APPROVED review.
case "$SWITCHYARD_ROLE" in
worker)
  : >>"$SWITCHYARD_WORKSPACE/src/${SWITCHYARD_TASK_ID##*/}.txt"
  sed -i 's/^- \[ \]/- [x]/' "$SWITCHYARD_PLAN"
  ;;
review)
  printf 'Verdict: APPROVED\n' >"$SWITCHYARD_REVIEW_FILE"
  ;;
esac
