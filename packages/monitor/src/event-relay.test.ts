import { EventEmitter } from 'node:events';
import type { RunEvent } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { EventRelay, type NumberedEvent, startPosition } from './event-relay.js';

const event = (seq: number): NumberedEvent => ({
  seq,
  event: { type: 'run.finished', at: 'now', runId: `r${seq}` } as unknown as RunEvent,
});

/** A socket that takes `room` frames, then says it is full until `drain()`. */
class Sink extends EventEmitter {
  frames: number[] = [];
  destroyed = false;
  constructor(private room: number) {
    super();
  }
  write(chunk: string): boolean {
    this.frames.push(Number(/^id: (\d+)/.exec(chunk)?.[1]));
    this.room -= 1;
    return this.room > 0;
  }
  drain(room: number): void {
    this.room = room;
    this.emit('drain');
  }
}

describe('EventRelay (the /log stream of a shared store)', () => {
  it('replays after the position, then delivers live, each event once and in order, paced by the socket', async () => {
    let push: (e: NumberedEvent) => void = () => undefined;
    const relay = new EventRelay();
    await relay.start({
      follow: async (after, onEvent) => {
        expect(after).toBe(0);
        push = onEvent;
        return { stop: async () => undefined };
      },
    });
    for (const seq of [3, 5, 8, 9]) push(event(seq));
    // a feed re-reading an event it delivered already never repeats it
    push(event(8));
    const sink = new Sink(2);
    const stop = relay.subscribe(4, sink);
    // full after two frames: the rest waits for 'drain' instead of piling up
    expect(sink.frames).toEqual([5, 8]);
    push(event(12));
    expect(sink.frames).toEqual([5, 8]);
    sink.drain(10);
    expect(sink.frames).toEqual([5, 8, 9, 12]);
    push(event(13));
    expect(sink.frames).toEqual([5, 8, 9, 12, 13]);
    stop();
    push(event(14));
    expect(sink.frames).toEqual([5, 8, 9, 12, 13]);
    // a position past the end starts live
    const late = new Sink(10);
    relay.subscribe(99, late);
    push(event(100));
    expect(late.frames).toEqual([100]);
    await relay.stop();
  });

  it('takes the position from Last-Event-ID, else ?after=, else 0; refuses what is no position', () => {
    expect(startPosition('17', '3')).toBe(17);
    expect(startPosition(undefined, '3')).toBe(3);
    expect(startPosition(undefined, null)).toBe(0);
    expect(startPosition('x1', null)).toBeUndefined();
    expect(startPosition(undefined, '-2')).toBeUndefined();
  });
});
