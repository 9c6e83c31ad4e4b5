import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readStartToken } from '@switchyard/utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openClaimStore, readClaims } from './claim-store.js';

// The children open the built package (run `pnpm build` first; the test script does), so the
// lock they take is the store's own, in a process of its own that a SIGKILL ends for real.
const built = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

// A child's modes. hold: takes the claims lock and keeps it. claim: claims one path after
// another through the claim store. race: waits for `go`, then takes the lock `rounds` times,
// each time creating `inside` exclusively and removing it before it lets go, and says
// `overlap` if the file was there already (another holder at the same time); every other
// round (not the last) it lets go by leaving a dead holder's record, which the others race
// to take over.
const CHILD = `
import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
const [dist, state, mode, rounds] = process.argv.slice(1);
const { acquireFileMutex, openClaimStore } = await import(dist);
const lock = join(state, 'claims', 'claims.lock');
if (mode === 'hold') {
  await acquireFileMutex(lock);
  process.stdout.write('held\\n');
  setInterval(() => {}, 60_000);
} else if (mode === 'claim') {
  const store = await openClaimStore(state);
  for (let i = 0; ; i++) {
    await store.tryClaim('g/child', ['src/' + i + '.ts']);
    if (i === 0) process.stdout.write('claiming\\n');
  }
} else if (mode === 'race') {
  process.stdout.write('ready\\n');
  while (!existsSync(join(state, 'go'))) await sleep(5);
  const inside = join(state, 'inside');
  for (let round = 0; round < Number(rounds); round++) {
    const release = await acquireFileMutex(lock, { timeoutMs: 3_600_000 });
    let fd;
    try {
      fd = openSync(inside, 'wx');
    } catch {
      process.stdout.write('overlap\\n');
      process.exit(3);
    }
    closeSync(fd);
    await sleep(1);
    unlinkSync(inside);
    if (round % 2 === 0 || round === Number(rounds) - 1) release();
    else {
      // dies holding it, as far as the others can tell: the record now names this PID with
      // another start (a dead holder whose PID was reused)
      const dead = { ...JSON.parse(readFileSync(lock, 'utf8')), startToken: 'gone:' + round };
      writeFileSync(lock + '.dying', JSON.stringify(dead));
      renameSync(lock + '.dying', lock);
    }
  }
  process.stdout.write('done\\n');
}
`;

let state: string;
const started: ChildProcess[] = [];

beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'sy-claims-crash-'));
});
// A test that fails or times out still ends every child it started.
afterEach(async () => {
  for (const child of started.splice(0)) await killed(child);
  rmSync(state, { recursive: true, force: true });
});

interface Child {
  child: ChildProcess;
  /** Resolves once the child wrote `line` on stdout; rejects if it ends first. */
  said: (line: string) => Promise<void>;
  output: () => string;
}

function startChild(mode: 'hold' | 'claim' | 'race', rounds = 0): Child {
  if (!existsSync(built)) throw new Error(`${built} is missing: build @switchyard/store-fs first`);
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', CHILD, built, state, mode, String(rounds)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const said = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => {
        if (out.split('\n').includes(line)) resolve();
      };
      look();
      child.stdout?.on('data', look);
      child.once('exit', (code, signal) => {
        look();
        reject(new Error(`child ended (${code ?? signal}) before "${line}": ${err || out}`));
      });
    });
  return { child, said, output: () => out + err };
}

/** SIGKILLs the child (unless it ended) and resolves once it is gone and reaped. */
async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

const lockFile = () => join(state, 'claims', 'claims.lock');
const lockHolderPid = (): number | undefined => {
  try {
    return (JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
};

// Each case starts node processes: slow on a loaded machine, so a generous bound per case.
describe('the claims lock when its holder is killed', { timeout: 120_000 }, () => {
  it('a live holder is waited for; once SIGKILLed, a fresh store claims without waiting', async () => {
    const holder = startChild('hold');
    await holder.said('held');
    expect(lockHolderPid()).toBe(holder.child.pid);

    // timeoutMs 0: a store that would have to wait for the lock fails at once
    const meanwhile = await openClaimStore(state, { timeoutMs: 0 });
    await expect(meanwhile.tryClaim('g/a', ['a.ts'])).rejects.toMatchObject({
      code: 'SY_LOCK_HELD',
    });
    expect(lockHolderPid()).toBe(holder.child.pid); // respected, not taken over

    await killed(holder.child);
    expect(lockHolderPid()).toBe(holder.child.pid); // left behind by the dead holder

    // still timeoutMs 0: the dead holder's lock is taken over, not waited out
    const fresh = await openClaimStore(state, { timeoutMs: 0 });
    expect(await fresh.tryClaim('g/a', ['a.ts'])).toEqual({ ok: true, paths: ['a.ts'] });
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/a']);
    expect(existsSync(lockFile())).toBe(false); // released after the claim
  });

  it('a holder SIGKILLed in the middle of a claim leaves a lock the next store takes over', async () => {
    // A child that happened to let go of the lock between the look and the kill does not
    // count, and another is started, until one died holding the lock.
    let deadHolder: number | undefined;
    for (let tries = 0; deadHolder === undefined; tries++) {
      expect(tries).toBeLessThan(50);
      const claimer = startChild('claim');
      await claimer.said('claiming');
      // killed the moment the lock is seen to name it (it may let go in between: tried again)
      while (lockHolderPid() !== claimer.child.pid && claimer.child.exitCode === null)
        await new Promise((done) => setImmediate(done));
      await killed(claimer.child);
      if (lockHolderPid() === claimer.child.pid) deadHolder = claimer.child.pid;
    }
    const claimed = readClaims(state).find((c) => c.taskId === 'g/child');
    expect(claimed?.paths.length).toBeGreaterThan(0); // the child's durable claims stay

    const fresh = await openClaimStore(state, { timeoutMs: 0 });
    expect(await fresh.tryClaim('g/a', ['a.ts'])).toEqual({ ok: true, paths: ['a.ts'] });
    expect(await fresh.tryClaim('g/b', ['src/0.ts'])).toMatchObject({ ok: false }); // still held
    expect(existsSync(lockFile())).toBe(false);
  });

  it('a reused PID is no holder: a record naming a live process with another start', async () => {
    const bystander = startChild('hold'); // any live process: its PID stands for a reused one
    await bystander.said('held');
    const pid = bystander.child.pid!;
    const token = readStartToken(pid);
    expect(token).toBeDefined();
    const record = (startToken: string) =>
      JSON.stringify({ pid, startToken, host: hostname(), nonce: startToken, acquiredAt: '' });

    // the live process with that exact identity holds it: respected
    writeFileSync(lockFile(), record(token!));
    const store = await openClaimStore(state, { timeoutMs: 0 });
    await expect(store.tryClaim('g/a', ['a.ts'])).rejects.toMatchObject({ code: 'SY_LOCK_HELD' });

    // the same PID, but a process that started at another time (the holder died and its PID
    // went to the bystander): stale
    writeFileSync(lockFile(), record(`${token}0`));
    expect(await store.tryClaim('g/a', ['a.ts'])).toEqual({ ok: true, paths: ['a.ts'] });
    expect(existsSync(lockFile())).toBe(false);
  });

  it('processes racing to take over a dead holder lock never hold it together', async () => {
    const holder = startChild('hold');
    await holder.said('held');
    await killed(holder.child);
    expect(lockHolderPid()).toBe(holder.child.pid);

    const racers = [0, 1, 2, 3].map(() => startChild('race', 100));
    await Promise.all(racers.map((r) => r.said('ready')));
    writeFileSync(join(state, 'go'), '');
    const ends = await Promise.all(racers.map((r) => once(r.child, 'exit')));
    for (const [i, [code]] of ends.entries()) expect(code, racers[i]!.output()).toBe(0);
    for (const racer of racers) expect(racer.output()).toContain('done');
    // no lock, break or temporary file is left behind
    expect(readdirSync(join(state, 'claims'))).toEqual([]);
  });
});

describe('the claims lock without a live holder record of this machine', () => {
  const store = async () => {
    const opened = await openClaimStore(state, { timeoutMs: 0 });
    await opened.release('g/none'); // makes the claims folder, takes and frees the lock
    return opened;
  };

  it('an empty or torn record (what a power loss leaves of one) is taken over at once', async () => {
    const claims = await store();
    for (const [i, record] of ['', '{"pid":12', '{}', 'null'].entries()) {
      writeFileSync(lockFile(), record);
      expect(await claims.tryClaim(`g/${i}`, [`${i}.ts`])).toMatchObject({ ok: true });
      expect(existsSync(lockFile())).toBe(false);
    }
  });

  it('a record from another host is waited for, then names the host and how to break it', async () => {
    const claims = await store();
    const record = { pid: 4242, startToken: 'x:1', host: 'build-07', nonce: 'n', acquiredAt: '' };
    writeFileSync(lockFile(), JSON.stringify(record));
    const error = await claims.tryClaim('g/a', ['a.ts']).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SY_LOCK_HELD', file: lockFile() });
    expect((error as { hint: string }).hint).toMatch(
      /another host \(build-07\).*never takes it over/,
    );
    expect((error as { hint: string }).hint).toMatch(`then break the lock: rm ${lockFile()}`);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual(record); // left as it was
  });
});
