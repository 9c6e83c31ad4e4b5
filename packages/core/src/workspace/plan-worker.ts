// Worker thread entry of the task read pool (see plan-pool.ts): reads task folders and parses
// their plans. The parser (markdown-it, yaml) is loaded only once a plan needs parsing, so
// a run served from the plan cache starts its threads quickly.
import { parentPort } from 'node:worker_threads';
import type { PlanJob, PlanJobResult } from './plan-job.js';
import { inspectTaskFolder, type TaskJob } from './task-job.js';

let parse: ((job: PlanJob) => PlanJobResult) | undefined;

parentPort?.on('message', async (batch: { id: number; jobs: TaskJob[] }) => {
  const inspected = batch.jobs.map(inspectTaskFolder);
  for (const { pending } of inspected)
    for (const { job, result } of pending) {
      parse ??= (await import('./plan-job.js')).runPlanJob;
      Object.assign(result, parse(job));
    }
  parentPort?.postMessage({ id: batch.id, results: inspected.map((i) => i.result) });
});
