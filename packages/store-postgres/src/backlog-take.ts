import { type BacklogQueue, type BacklogRow, entryOf } from './backlog-queue.js';
import type { Delivery } from './backlog-types.js';
import { inTransaction } from './boss.js';
import { transaction } from './db.js';
import { acquireLease } from './pg-leases.js';

/**
 * The next task for `holder`, leased for `ttlMs`, or undefined when nothing is deliverable.
 * A taken task whose holder's lease expired (the holder died or froze) is taken over first,
 * with a greater token; then the next pg-boss delivery is fetched. When there is none, the
 * jobs of the ready tasks are sent again, once per take: a ready task whose job is gone
 * (deleted by pg-boss's retention, failed after its retries, completed by a take that could not
 * lease the task) is delivered by nothing else, and one whose job still waits keeps it.
 */
export async function takeFromBacklog(
  q: BacklogQueue,
  holder: string,
  ttlMs: number,
): Promise<Delivery | undefined> {
  await q.ensure();
  const orphan = await takeOrphan(q, holder, ttlMs);
  if (orphan) return orphan;
  let resent = false;
  for (;;) {
    const [job] = await q.boss.fetch<{ task: string }>(q.queue, { batchSize: 1 });
    if (!job) {
      if (resent || (await transaction(q.ctx.pool, (client) => q.redeliver(client))) === 0)
        return undefined;
      resent = true;
      continue;
    }
    const delivery = await settleJob(q, job, holder, ttlMs);
    if (delivery) return delivery;
  }
}

/** A taken task whose lease was released or expired, leased anew to `holder`. */
function takeOrphan(q: BacklogQueue, holder: string, ttlMs: number): Promise<Delivery | undefined> {
  const { ctx } = q;
  return transaction(ctx.pool, async (client) => {
    const at = await ctx.now(client);
    const { rows } = await client.query<BacklogRow>(
      `select b.* from ${ctx.s}.backlog b join ${ctx.s}.leases l on l.scope = b.scope and l.task = b.task
       where b.scope = $1 and b.status = 'taken' and (l.released or l.expires_at <= $2)
       order by b.task collate "C" limit 1 for update of b skip locked`,
      [ctx.scope, at],
    );
    const row = rows[0];
    if (!row) return undefined;
    const taken = await acquireLease(ctx, client, row.task, holder, ttlMs);
    return taken.ok ? { entry: entryOf(row), lease: taken.lease } : undefined;
  });
}

/**
 * Turns a fetched job into a lease on its task when the task is still ready, and completes the
 * job in the same transaction either way; undefined when the job was stale.
 */
function settleJob(
  q: BacklogQueue,
  job: { id: string; retryCount: number; data: { task: string } },
  holder: string,
  ttlMs: number,
): Promise<Delivery | undefined> {
  const { ctx } = q;
  return transaction(ctx.pool, async (client) => {
    const row = await q.lockRow(client, job.data.task);
    let result: Delivery | undefined;
    if (row?.status === 'ready') {
      const taken = await acquireLease(ctx, client, row.task, holder, ttlMs);
      if (taken.ok) {
        await client.query(
          `update ${ctx.s}.backlog set status = 'taken', updated_at = now() where scope = $1 and task = $2`,
          [ctx.scope, row.task],
        );
        result = { entry: { ...entryOf(row), status: 'taken' }, lease: taken.lease };
      }
    }
    // Settled with the lease, or dropped as stale: only the attempt this taker fetched.
    await q.boss.complete(q.queue, { id: job.id, retryCount: job.retryCount }, null, {
      db: inTransaction(client),
    });
    return result;
  });
}
