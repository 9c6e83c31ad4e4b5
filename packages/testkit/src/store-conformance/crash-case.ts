import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fenceOf, type RunEvent } from '@switchyard/core';
import { CRASH_TASK, CRASH_TTL_MS } from './crash-steps.js';
import { rejectsWith } from './harness.js';
import { taskState } from './samples.js';
import type { ConformanceRunner, StoreAdapter } from './types.js';

const STEPS_BEFORE_KILL = 3;

/** Starts the crash child on the location and resolves once it reported `steps` steps. */
function startChild(opener: unknown): { child: ChildProcess; ready: Promise<number> } {
  const script = fileURLToPath(new URL('./store-conformance-child.js', import.meta.url));
  if (!existsSync(script))
    throw new Error(`${script} is missing: build @switchyard/testkit first (pnpm build)`);
  const child = spawn(process.execPath, [script, JSON.stringify(opener)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const steps = [...out.matchAll(/^step (\d+)$/gm)].length;
      if (steps >= STEPS_BEFORE_KILL) resolve(steps);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`the store child ended early (${code ?? signal}): ${err || out}`)),
    );
  });
  return { child, ready };
}

/** Kills a holder process mid-work and checks what the next holder finds. */
export function crashCase(t: ConformanceRunner, adapter: StoreAdapter): void {
  t.it(
    'crash: a killed holder loses no finished step, leaves a readable store and its lease to take over',
    async () => {
      const location = await adapter.create();
      assert.ok(location.child, `${adapter.name} is durable but its location has no child opener`);
      const { child, ready } = startChild(location.child);
      let clock = Date.now();
      const store = await location.open({ now: () => clock });
      try {
        const reported = await ready;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;

        // every reported step is there, and no step is half there
        const state = await store.tasks.get(CRASH_TASK);
        assert.ok(state && state.version >= reported, `state version ${state?.version}`);
        assert.equal(state.value.selfcheckRetries, state.version, 'the state is whole');
        const loops = (await store.events.read()).events
          .map((e) => e.event)
          .filter(
            (e): e is Extract<RunEvent, { type: 'task.admitted' }> => e.type === 'task.admitted',
          )
          .map((e) => e.planLoop);
        assert.ok(loops.length >= reported && loops.length >= state.version - 1);
        assert.deepEqual(
          loops,
          Array.from({ length: loops.length }, (_, i) => i + 1),
        );
        const [claim] = await store.claims.list();
        const steps = (claim?.paths ?? [])
          .map((p) => Number(/step-(\d+)/.exec(p)?.[1]))
          .sort((x, y) => x - y);
        assert.ok(steps.length >= reported);
        assert.deepEqual(
          steps,
          Array.from({ length: steps.length }, (_, i) => i + 1),
        );
        const rows = await store.workLog.read('g');
        assert.ok(rows.length >= reported);
        assert.deepEqual(
          rows.map((r) => Number(r.attempt)),
          Array.from({ length: rows.length }, (_, i) => i + 1),
        );

        // the dead holder's lease stands until it expires, then another holder takes it
        const held = await store.leases.acquire(CRASH_TASK, 'next', CRASH_TTL_MS);
        assert.ok(!held.ok, 'the lease is still current');
        const dead = held.held;
        clock = dead.expiresAt + 1;
        const taken = await store.leases.acquire(CRASH_TASK, 'next', CRASH_TTL_MS);
        assert.ok(taken.ok && taken.lease.token > dead.token);
        await rejectsWith(
          store.tasks.put(taskState(CRASH_TASK, -1), {
            expected: state.version,
            fence: fenceOf(dead),
          }),
          'SY_LEASE_LOST',
        );
        const next = await store.tasks.put(taskState(CRASH_TASK, 0), {
          expected: state.version,
          fence: fenceOf(taken.lease),
        });
        assert.equal(next, state.version + 1);
        assert.ok(
          (await store.events.append(taskStateEvent(), { fence: fenceOf(taken.lease) })) > 0,
        );
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await store.close();
        await location.dispose?.();
      }
    },
  );
}

const taskStateEvent = (): RunEvent => ({
  type: 'task.admitted',
  at: new Date().toISOString(),
  runId: 'after-crash',
  task: CRASH_TASK,
  planLoop: 1,
});
