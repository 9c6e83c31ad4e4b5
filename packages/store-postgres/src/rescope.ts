import { SwitchyardError } from '@switchyard/core';
import { type BacklogQueue, queueName } from './backlog-queue.js';
import type { PgContext } from './context.js';
import { lockKey, transaction } from './db.js';

/** Every scope that holds backlog tasks, with how many, in name order. */
export async function backlogScopes(ctx: PgContext): Promise<{ scope: string; tasks: number }[]> {
  const { rows } = await ctx.pool.query<{ scope: string; tasks: number }>(
    `select scope, count(*)::int as tasks from ${ctx.s}.backlog
     group by scope order by scope collate "C"`,
  );
  return rows;
}

/**
 * Renames the scope `from` to this queue's scope in every table of the schema that has a scope
 * column (one transaction), when this scope holds no backlog yet, and delivers its ready tasks
 * again on this scope's queue (`from`'s queue is dropped after the commit; a taken task whose
 * holder is gone is taken over by its expired lease, as ever). Refused with `SY_STORE_SCOPE`
 * while `from` has a live lease: a machine still works on it. Undefined when this scope already
 * had a backlog (another machine moved it first); else the rows moved and the tasks delivered.
 */
export async function adoptScope(
  q: BacklogQueue,
  from: string,
): Promise<{ rows: number; delivered: string[] } | undefined> {
  const { ctx } = q;
  await q.ensure();
  const moved = await transaction(ctx.pool, async (client) => {
    // The scopes' backlog locks: two machines moving the same backlog take turns, and a
    // publish or archive on either scope waits for the move (and sees it).
    await q.lockScope(client);
    await lockKey(client, `backlog:${from}`);
    const present = await client.query(`select 1 from ${ctx.s}.backlog where scope = $1 limit 1`, [
      ctx.scope,
    ]);
    if (present.rows.length > 0) return undefined;
    const live = await client.query<{ task: string; holder: string }>(
      // A settled task's lease may outlive it: only a taken task's or another key's counts.
      `select l.task, l.holder from ${ctx.s}.leases l
       left join ${ctx.s}.backlog b on b.scope = l.scope and b.task = l.task
       where l.scope = $1 and not l.released and l.expires_at > $2
         and (b.task is null or b.status = 'taken')
       order by l.task collate "C"`,
      [from, await ctx.now(client)],
    );
    if (live.rows.length > 0) throw stillInUse(from, ctx.scope, live.rows);
    const tables = await client.query<{ name: string }>(
      `select c.relname as name from pg_attribute a join pg_class c on c.oid = a.attrelid
       where c.relnamespace = $1::regnamespace and c.relkind in ('r', 'p')
         and a.attname = 'scope' and not a.attisdropped order by c.relname`,
      [ctx.s],
    );
    let rows = 0;
    for (const { name } of tables.rows) {
      const updated = await client.query(
        `update ${ctx.s}."${name.replace(/"/g, '""')}" set scope = $1 where scope = $2`,
        [ctx.scope, from],
      );
      rows += updated.rowCount ?? 0;
    }
    const ready = await client.query<{ task: string }>(
      `select task from ${ctx.s}.backlog where scope = $1 and status = 'ready'
       order by task collate "C"`,
      [ctx.scope],
    );
    const delivered = ready.rows.map((row) => row.task);
    await q.deliver(client, delivered);
    return { rows, delivered };
  });
  // Its jobs name tasks that are no longer in that scope; nobody should fetch them.
  if (moved) await q.boss.deleteQueue(queueName(from)).catch(() => undefined);
  return moved;
}

function stillInUse(from: string, to: string, leases: { task: string; holder: string }[]) {
  const held = leases.map((l) => `${l.task} (${l.holder})`).join(', ');
  return new SwitchyardError(
    'SY_STORE_SCOPE',
    `The backlog ${from} is to move to ${to}, but machines still hold leases on it: ${held}.`,
    {
      hint: 'Those dispatchers run an earlier switchyard (or were stopped less than the lease time ago): let them finish or stop them, upgrade switchyard there too, then run again.',
    },
  );
}
