import type { ApplyJournal, IsolationPort, WorktreeRecord } from '@switchyard/core';
import { checkFence, type PgContext } from './context.js';
import { transaction } from './db.js';

type Kind =
  | { table: 'worktree_records'; column: 'record' }
  | { table: 'apply_journals'; column: 'journal' };

/** Worktree records and apply journals: one row per task each, replaced whole. */
export function pgIsolation(ctx: PgContext): IsolationPort {
  const records: Kind = { table: 'worktree_records', column: 'record' };
  const journals: Kind = { table: 'apply_journals', column: 'journal' };
  const get = async <T>(kind: Kind, task: string) => {
    const { rows } = await ctx.pool.query<Record<string, T>>(
      `select ${kind.column} from ${ctx.s}.${kind.table} where scope = $1 and task = $2`,
      [ctx.scope, task],
    );
    return rows[0]?.[kind.column];
  };
  const put = (kind: Kind, task: string, value: unknown, fence?: { task: string; token: number }) =>
    transaction(ctx.pool, async (client) => {
      await checkFence(ctx, client, fence);
      await client.query(
        `insert into ${ctx.s}.${kind.table} (scope, task, ${kind.column}) values ($1, $2, $3)
         on conflict (scope, task) do update set ${kind.column} = excluded.${kind.column}`,
        [ctx.scope, task, JSON.stringify(value)],
      );
    });
  const remove = (kind: Kind, task: string, fence?: { task: string; token: number }) =>
    transaction(ctx.pool, async (client) => {
      await checkFence(ctx, client, fence);
      await client.query(`delete from ${ctx.s}.${kind.table} where scope = $1 and task = $2`, [
        ctx.scope,
        task,
      ]);
    });
  const tasks = async (kind: Kind) => {
    const { rows } = await ctx.pool.query<{ task: string }>(
      `select task from ${ctx.s}.${kind.table} where scope = $1 order by task collate "C"`,
      [ctx.scope],
    );
    return rows.map((row) => row.task);
  };
  return {
    getRecord: (task) => get<WorktreeRecord>(records, task),
    putRecord: (record, options) => put(records, record.taskId, record, options?.fence),
    removeRecord: (task, options) => remove(records, task, options?.fence),
    recordTasks: () => tasks(records),
    getJournal: (task) => get<ApplyJournal>(journals, task),
    putJournal: (journal, options) => put(journals, journal.taskId, journal, options?.fence),
    removeJournal: (task, options) => remove(journals, task, options?.fence),
    journalTasks: () => tasks(journals),
  };
}
