#!/bin/sh
# A long-running fake agent that streams output: one line every 100 ms for $1 seconds
# (default 60), for the "dispatcher watching 32 agents" CPU figure.
n=$(( ${1:-60} * 10 ))
i=0
while [ "$i" -lt "$n" ]; do
  echo "step $i: reading files, thinking, writing a long enough line of assistant output"
  sleep 0.1
  i=$((i + 1))
done
echo "done"
