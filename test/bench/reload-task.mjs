// Reloading one task after a new plan loop: `loadTask(id)` against the whole-workspace load
// the dispatcher used before (baseline, measured in the same run) on a generated workspace of
// 5,000 tasks. Goal: the single-task reload is independent of the workspace size (ratio
// loadTask / loadWorkspace < 0.01 at 5,000 tasks).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTask, loadWorkspace } from '@switchyard/tasks';
import { generateWorkspace } from './dry-run-workspace.mjs';

const TASKS = 5000;
const root = mkdtempSync(join(tmpdir(), 'sy-bench-reload-'));
try {
  const { ws } = generateWorkspace(root, TASKS);
  const ids = loadWorkspace(ws).tasks.map((t) => t.id);
  const median = (fn, runs) => {
    const times = [];
    for (let i = 0; i < runs; i++) {
      const start = process.hrtime.bigint();
      fn(i);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
  };
  median(() => loadWorkspace(ws), 1); // warm-up
  const whole = median(() => loadWorkspace(ws), 5);
  const one = median((i) => loadTask(ws, ids[(i * 97) % ids.length]), 200);
  console.log(`${ids.length} active tasks`);
  console.log(`reload by loadWorkspace (before): ${whole.toFixed(1)} ms`);
  console.log(`reload by loadTask (now):         ${one.toFixed(3)} ms`);
  console.log(`ratio loadTask / loadWorkspace:   ${(one / whole).toFixed(5)} (goal < 0.01)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
