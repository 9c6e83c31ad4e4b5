// Worker thread entry of the task read pool (see plan-pool.ts): reads task folders and parses
// their plans. The parser (markdown-it, yaml) is loaded only once a plan needs parsing, so
// a run served from the plan cache starts its threads quickly.
import { parentPort } from 'node:worker_threads';
import { runTaskJob, type TaskJob } from './task-job.js';

parentPort?.on('message', (batch: { id: number; jobs: TaskJob[] }) => {
  parentPort?.postMessage({ id: batch.id, results: batch.jobs.map(runTaskJob) });
});
