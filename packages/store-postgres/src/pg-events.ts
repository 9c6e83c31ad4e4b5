import type { EventLogPort, RunEvent, StoredEvent } from '@switchyard/core';
import { checkFence, type PgContext } from './context.js';
import { lockKey, transaction } from './db.js';
import { listenLasting } from './pg-listen.js';

/** The NOTIFY channel an append signals on (payload: `<scope> <seq>`). */
export const EVENTS_CHANNEL = 'switchyard_events';

/**
 * The event log in the `events` table. An append takes the scope's advisory lock before it
 * draws its sequence number, so numbers are assigned in commit order: a reader that read up to
 * `seq` never later finds a smaller one appearing (what makes replay from a position and the
 * monitor's `Last-Event-ID` exact). Each append notifies `switchyard_events` in its transaction.
 */
export function pgEvents(ctx: PgContext): EventLogPort {
  return {
    append: (event, options) =>
      ctx.inOrder('events', () =>
        transaction(ctx.pool, async (client) => {
          await checkFence(ctx, client, options?.fence);
          await lockKey(client, `events:${ctx.scope}`);
          const { rows } = await client.query<{ seq: number }>(
            `insert into ${ctx.s}.events (scope, seq, event)
             values ($1, nextval('${ctx.s}.event_seq'), $2) returning seq`,
            [ctx.scope, JSON.stringify(event)],
          );
          const seq = Number(rows[0]?.seq);
          await client.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, `${ctx.scope} ${seq}`]);
          return seq;
        }),
      ),
    async read(options = {}) {
      const after = Math.max(0, options.after ?? 0);
      const { rows } = await ctx.pool.query<{ seq: number; event: RunEvent }>(
        `select seq, event from ${ctx.s}.events where scope = $1 and seq > $2
         order by seq limit $3`,
        [ctx.scope, after, options.limit ?? null],
      );
      const events: StoredEvent[] = rows.map((row) => ({ seq: Number(row.seq), event: row.event }));
      return { events, next: events.at(-1)?.seq ?? after, skipped: [] };
    },
  };
}

/**
 * Follows the event log live: replays every event after `after`, then reads on whenever an
 * append of this scope is notified (on a connection of its own that LISTENs, taken again when
 * the server ends it). Every read starts from the last position seen, so a notification lost
 * while the connection was down costs nothing: the reconnect reads on from there, and no event
 * is delivered twice.
 */
export async function followEvents(
  ctx: PgContext,
  events: EventLogPort,
  after: number,
  onEvent: (event: StoredEvent) => void,
): Promise<{ stop(): Promise<void> }> {
  let position = after;
  let reading: Promise<void> = Promise.resolve();
  let stopped = false;
  const readOn = () => {
    reading = reading.then(async () => {
      for (;;) {
        if (stopped) return;
        const page = await events.read({ after: position, limit: 500 });
        for (const event of page.events) onEvent(event);
        position = page.next;
        if (page.events.length < 500) return;
      }
    });
    reading = reading.catch(() => undefined);
  };
  const listening = await listenLasting(
    ctx.pool,
    EVENTS_CHANNEL,
    (payload) => {
      if (payload?.startsWith(`${ctx.scope} `)) readOn();
    },
    readOn,
  );
  readOn();
  return {
    async stop() {
      stopped = true;
      await reading;
      await listening.stop();
    },
  };
}
