// Worker thread entry of the plan parse pool (see plan-pool.ts): parses batches of plans.
import { parentPort } from 'node:worker_threads';
import { type PlanJob, runPlanJob } from './plan-job.js';

parentPort?.on('message', (batch: { id: number; jobs: PlanJob[] }) => {
  parentPort?.postMessage({ id: batch.id, results: batch.jobs.map(runPlanJob) });
});
