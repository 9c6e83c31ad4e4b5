import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runTaskJob, type TaskJob, type TaskJobResult } from './task-job.js';

/** How plans are parsed in worker threads; see {@link PlanParsePool}. */
export interface ParallelParseOptions {
  /** Worker threads to use; 0 parses on the calling thread. Default: CPUs - 1 from 3 CPUs (at most 4), else 0. */
  workers?: number;
  /** Workspaces with fewer task folders than this are read on the calling thread. Default 500. */
  minTasks?: number;
}

/** Below this many tasks, reading on the calling thread is faster than starting a pool. */
export const PARALLEL_MIN_TASKS = 500;

// The worker script sits next to the bundle (dist/); from the TypeScript sources there is
// none, and plans are parsed on the calling thread.
const WORKER_URL = new URL('./plan-worker.js', import.meta.url);
let workerScriptExists: boolean | undefined;

/** The number of workers to use for `tasks` task folders (0 = read on the calling thread). */
export function parseWorkerCount(tasks: number, options: ParallelParseOptions = {}): number {
  if (tasks < (options.minTasks ?? PARALLEL_MIN_TASKS)) return 0;
  workerScriptExists ??= WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
  if (!workerScriptExists) return 0;
  // By default one thread per CPU beside the main thread's (at most 4): with only two CPUs
  // the main thread and GC compete with both parse threads, and each thread's own JIT
  // warm-up and the JSON hand-over cost more than the parallel parse saves (measured with
  // test/bench/dry-run.mjs on a 2-CPU machine).
  const cpus = availableParallelism();
  const wanted = options.workers ?? (cpus >= 3 ? Math.min(cpus - 1, 4) : 0);
  return Math.max(0, Math.min(wanted, Math.ceil(tasks / 50)));
}

const QUEUED = 3;

type Settle = { resolve: () => void; reject: (error: unknown) => void };

/**
 * Worker threads that read task folders and parse their plans. Threads start booting when
 * the pool is made; {@link parse} hands out batches as threads free up and reports each
 * result with its job index, so the outcome never depends on timing. The calling thread
 * takes batches from the same queue between handling results, rather than wait.
 */
export class PlanParsePool {
  readonly #workers: Worker[] = [];
  readonly #queued = new Map<Worker, number>();
  #failure: unknown;
  #run?: Settle & { jobs: readonly TaskJob[]; next: number; running: number; size: number };
  #onResult: (index: number, result: TaskJobResult) => void = () => {};

  constructor(workers: number) {
    for (let i = 0; i < workers; i++) {
      const worker = new Worker(WORKER_URL);
      worker.on('message', (done: { id: number; results: TaskJobResult[] }) => {
        const run = this.#run;
        if (!run) return;
        run.running--;
        this.#queued.set(worker, (this.#queued.get(worker) ?? 1) - 1);
        try {
          for (let k = 0; k < done.results.length; k++)
            this.#onResult(done.id + k, done.results[k] as TaskJobResult);
        } catch (error) {
          this.#fail(error);
          return;
        }
        this.#feed(worker);
      });
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.#fail(new Error(`plan parse worker exited with code ${code}`));
      });
      this.#workers.push(worker);
    }
  }

  /**
   * Runs every job; `onResult` runs on this thread as batches come back. This thread starts
   * taking batches itself once the current task (e.g. reading the plan cache) is done.
   */
  parse(
    jobs: readonly TaskJob[],
    onResult: (index: number, result: TaskJobResult) => void,
  ): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (jobs.length === 0) return Promise.resolve();
    this.#onResult = onResult;
    // Small enough to balance the threads, large enough that messaging stays cheap.
    const size = Math.max(25, Math.min(250, Math.ceil(jobs.length / (this.#workers.length * 8))));
    return new Promise<void>((resolve, reject) => {
      this.#run = { resolve, reject, jobs, next: 0, running: 0, size };
      for (const worker of this.#workers) this.#feed(worker);
      setImmediate(() => this.#runHere());
    });
  }

  /** Stops the threads. */
  async close(): Promise<void> {
    const workers = this.#workers.splice(0);
    await Promise.all(workers.map((w) => w.terminate()));
  }

  // Keeps up to QUEUED batches at each thread, so threads keep working while this thread is
  // busy (e.g. reading the plan cache) and cannot hand out the next batch at once.
  #feed(worker: Worker): void {
    const run = this.#run;
    if (!run) return;
    while (run.next < run.jobs.length && (this.#queued.get(worker) ?? 0) < QUEUED) {
      const id = run.next;
      run.next = Math.min(run.jobs.length, id + run.size);
      run.running++;
      this.#queued.set(worker, (this.#queued.get(worker) ?? 0) + 1);
      worker.postMessage({ id, jobs: run.jobs.slice(id, run.next) });
    }
    this.#settleIfDone();
  }

  // One batch on this thread, then a turn of the event loop (worker results, other I/O).
  #runHere(): void {
    const run = this.#run;
    if (!run || run.next >= run.jobs.length) return;
    const id = run.next;
    run.next = Math.min(run.jobs.length, id + run.size);
    run.running++;
    try {
      const results = run.jobs.slice(id, run.next).map(runTaskJob);
      for (let k = 0; k < results.length; k++) this.#onResult(id + k, results[k] as TaskJobResult);
    } catch (error) {
      this.#fail(error);
      return;
    }
    run.running--;
    this.#settleIfDone();
    setImmediate(() => this.#runHere());
  }

  #settleIfDone(): void {
    const run = this.#run;
    if (run && run.next >= run.jobs.length && run.running === 0) {
      this.#run = undefined;
      run.resolve();
    }
  }

  #fail(error: unknown): void {
    if (this.#workers.length === 0) return; // closed: exits are expected
    this.#failure ??= error;
    const run = this.#run;
    this.#run = undefined;
    run?.reject(error);
  }
}
