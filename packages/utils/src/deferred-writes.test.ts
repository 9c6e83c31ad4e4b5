import { describe, expect, it } from 'vitest';
import type { Timers } from './clock.js';
import { deferredWrites } from './deferred-writes.js';

/** Timers that fire only when the test moves the clock. */
function fakeTimers(): Timers & { advance(ms: number): void; count(): number } {
  let now = 0;
  const timers = new Set<{ at: number; fn: () => void }>();
  return {
    after(ms, fn) {
      const timer = { at: now + ms, fn };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at > now) continue;
        timers.delete(timer);
        timer.fn();
      }
    },
    count: () => timers.size,
  };
}

/** A write the test completes by hand, counting its calls. */
function gatedWrite(log: string[], name: string) {
  let release: () => void = () => undefined;
  const write = () => {
    log.push(`start ${name}`);
    return new Promise<void>((resolve) => {
      release = () => {
        log.push(`end ${name}`);
        resolve();
      };
    });
  };
  return { write, release: () => release() };
}

/** Deferred writes on a fake clock, and the log the test's writes append to. */
function deferredOnFakeClock() {
  const clock = fakeTimers();
  return { clock, writes: deferredWrites(clock), log: [] as string[] };
}

/** A store whose write of key `slow` is under way (its 5 ms came), held until `slow.release()`. */
function slowWriteUnderWay() {
  const { clock, writes, log } = deferredOnFakeClock();
  const slow = gatedWrite(log, 'slow');
  writes.defer('slow', 5, slow.write);
  clock.advance(5);
  return { clock, writes, log, slow };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('deferredWrites', () => {
  it('runs a write once its time passed on the clock, not before', async () => {
    const { clock, writes, log } = deferredOnFakeClock();
    writes.defer('a', 1000, async () => void log.push('a'));
    clock.advance(999);
    await tick();
    expect(log).toEqual([]);
    expect(writes.pending('a')).toBe(true);
    clock.advance(1);
    await tick();
    expect(log).toEqual(['a']);
    expect(writes.pending('a')).toBe(false);
  });

  it('gives the changes of one interval one write: the first time stands, the latest write runs', async () => {
    const { clock, writes, log } = deferredOnFakeClock();
    writes.defer('leases', 1000, async () => void log.push('first'));
    clock.advance(600);
    writes.defer('leases', 1000, async () => void log.push('second'));
    expect(clock.count()).toBe(1); // one timer for both
    clock.advance(400);
    await tick();
    expect(log).toEqual(['second']);
    clock.advance(1000);
    await tick();
    expect(log).toEqual(['second']);
  });

  it('keeps keys apart: each has its own time', async () => {
    const { clock, writes, log } = deferredOnFakeClock();
    writes.defer('pid:a1', 1000, async () => void log.push('a1'));
    clock.advance(500);
    writes.defer('pid:b1', 1000, async () => void log.push('b1'));
    clock.advance(500);
    await tick();
    expect(log).toEqual(['a1']);
    clock.advance(500);
    await tick();
    expect(log).toEqual(['a1', 'b1']);
  });

  it('runs the writes of one key one after another', async () => {
    const { clock, writes, log } = deferredOnFakeClock();
    const one = gatedWrite(log, 'one');
    const two = gatedWrite(log, 'two');
    writes.defer('k', 10, one.write);
    clock.advance(10);
    await tick();
    writes.defer('k', 10, two.write); // the first still under way
    clock.advance(10);
    await tick();
    expect(log).toEqual(['start one']);
    one.release();
    await tick();
    expect(log).toEqual(['start one', 'end one', 'start two']);
    two.release();
    await writes.flush();
    expect(log).toEqual(['start one', 'end one', 'start two', 'end two']);
  });

  it('flush writes what is pending at once and awaits the writes under way', async () => {
    const { clock, writes, log, slow } = slowWriteUnderWay();
    writes.defer('leases', 1000, async () => void log.push('leases'));
    let flushed = false;
    const flushing = writes.flush().then(() => {
      flushed = true;
    });
    await tick();
    expect(log).toEqual(['start slow', 'leases']);
    expect(flushed).toBe(false);
    slow.release();
    await flushing;
    expect(clock.count()).toBe(0);
    clock.advance(5000);
    await tick();
    expect(log).toEqual(['start slow', 'leases', 'end slow']);
  });

  it('settle drops what is pending and awaits what is under way', async () => {
    const { clock, writes, log, slow } = slowWriteUnderWay();
    writes.defer('waiting', 1000, async () => void log.push('waiting'));
    const settling = writes.settle();
    await tick();
    slow.release();
    await settling;
    clock.advance(5000);
    await tick();
    expect(log).toEqual(['start slow', 'end slow']);
    expect(writes.pending('waiting')).toBe(false);
  });

  it('a failed write neither stops the next of its key nor rejects flush', async () => {
    const { clock, writes, log } = deferredOnFakeClock();
    writes.defer('k', 10, async () => {
      throw new Error('disk full');
    });
    clock.advance(10);
    writes.defer('k', 10, async () => void log.push('next'));
    await writes.flush();
    expect(log).toEqual(['next']);
  });

  it('on the system timers, a pending write holds no process open', async () => {
    const writes = deferredWrites();
    const log: string[] = [];
    writes.defer('k', 60_000, async () => void log.push('k'));
    await writes.flush(); // written at once, the timer cancelled
    expect(log).toEqual(['k']);
  });
});
