import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@switchyard/core';
import { STAGE_FAILURE_BUDGET } from '@switchyard/engine';
import { terminalText } from '@switchyard/utils';
import stripAnsi from 'strip-ansi';

/** Failed attempts of one stage a task may spend before it is blocked (the dispatcher's budget). */
export const ATTEMPT_BUDGET = STAGE_FAILURE_BUDGET;

/** One running attempt, as the status block shows it. */
interface RunningAttempt {
  task: string;
  role: string;
  target: string;
  startedAt: number;
  attempt: number;
  attemptDir: string;
}

/** The last non-empty line of a file (reads only its last 4 KiB), or undefined. */
export function lastLine(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, 4096);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = terminalText(stripAnsi(lines[i] ?? '').trim());
      if (line) return line;
    }
    return undefined;
  } catch {
    return undefined; // not written yet
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const clock = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

/**
 * What is running now, from the run's events only: each running attempt's task, stage,
 * target, start, and attempt number within the failure budget (failed attempts of that
 * stage in a row, plus one). The renderer draws {@link ProgressState.lines} in place.
 */
export class ProgressState {
  private readonly running = new Map<string, RunningAttempt>();
  /** Consecutive failures per `task stage`, from `attempt.retry-scheduled`. */
  private readonly failures = new Map<string, number>();

  onEvent(event: RunEvent): void {
    switch (event.type) {
      case 'attempt.started':
        this.running.set(event.attempt, {
          task: event.task,
          role: event.role,
          target: event.target,
          startedAt: Date.parse(event.at),
          attempt: (this.failures.get(`${event.task} ${event.role}`) ?? 0) + 1,
          attemptDir: event.attemptDir,
        });
        break;
      case 'attempt.finished':
        this.running.delete(event.attempt);
        if (event.result === 'success') this.failures.delete(`${event.task} ${event.role}`);
        break;
      case 'attempt.retry-scheduled':
        this.failures.set(`${event.task} ${event.role}`, event.consecutiveFailures);
        break;
      case 'task.archived':
      case 'task.blocked':
        for (const key of [...this.failures.keys()])
          if (key.startsWith(`${event.task} `)) this.failures.delete(key);
        break;
    }
  }

  /** One line per running attempt: `g/t  worker  on t-main  1m05s  attempt 2/10  › last output`. */
  lines(now: number, width = 120): string[] {
    return [...this.running.values()]
      .sort((a, b) => a.task.localeCompare(b.task))
      .map((a) => {
        const head = `${a.task}  ${a.role.padEnd(8)} on ${a.target}  ${clock(Math.max(0, now - a.startedAt))}  attempt ${a.attempt}/${ATTEMPT_BUDGET}`;
        const output = lastLine(join(a.attemptDir, 'normalized-output.log'));
        const room = width - head.length - 5;
        return output && room > 10
          ? `${head}  › ${output.length > room ? `${output.slice(0, room - 1)}…` : output}`
          : head;
      });
  }
}
