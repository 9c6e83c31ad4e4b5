import {
  type TaskState,
  type TaskStateChanges,
  type TaskStateCursor,
  type TaskStatePort,
  versionConflict,
} from '@switchyard/core';
import { checkFence, type PgContext } from './context.js';
import { type Client, transaction } from './db.js';

interface TaskRow {
  state: TaskState;
  version: number;
}

/** Task states with a version: a put is a conditional UPDATE (or an INSERT for version 0). */
export function pgTasks(ctx: PgContext): TaskStatePort {
  const versionOf = async (client: Client, task: string) => {
    const { rows } = await client.query<{ version: number }>(
      `select version from ${ctx.s}.task_states where scope = $1 and task = $2`,
      [ctx.scope, task],
    );
    return rows[0]?.version ?? 0;
  };
  const conflict = async (client: Client, task: string, expected: number) =>
    versionConflict(`The state of ${task}`, expected, await versionOf(client, task));
  return {
    async get(task) {
      const { rows } = await ctx.pool.query<TaskRow>(
        `select state, version from ${ctx.s}.task_states where scope = $1 and task = $2`,
        [ctx.scope, task],
      );
      return rows[0] ? { value: rows[0].state, version: rows[0].version } : undefined;
    },
    async list() {
      const { rows } = await ctx.pool.query<TaskRow>(
        `select state, version from ${ctx.s}.task_states where scope = $1 order by task collate "C"`,
        [ctx.scope],
      );
      return rows.map((row) => ({ value: row.state, version: row.version }));
    },
    changes: (since) => taskChanges(ctx, since),
    put: (state, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options.fence);
        state.updatedAt = new Date(await ctx.now(client)).toISOString();
        const version = options.expected + 1;
        const { rowCount } = await client.query(
          options.expected === 0
            ? `insert into ${ctx.s}.task_states (scope, task, version, state)
               values ($1, $2, 1, $3) on conflict do nothing`
            : `update ${ctx.s}.task_states set version = $4, state = $3
               where scope = $1 and task = $2 and version = $5`,
          options.expected === 0
            ? [ctx.scope, state.task, JSON.stringify(state)]
            : [ctx.scope, state.task, JSON.stringify(state), version, options.expected],
        );
        if (rowCount !== 1) throw await conflict(client, state.task, options.expected);
        return version;
      }),
    delete: (task, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options.fence);
        if (options.expected === 0) {
          if ((await versionOf(client, task)) !== 0) throw await conflict(client, task, 0);
          return;
        }
        const { rowCount } = await client.query(
          `delete from ${ctx.s}.task_states where scope = $1 and task = $2 and version = $3`,
          [ctx.scope, task, options.expected],
        );
        if (rowCount !== 1) throw await conflict(client, task, options.expected);
      }),
    locate: (task) => `${ctx.location} task_states ${task}`,
  };
}

/**
 * The states changed since a cursor (a map of task to version and row version), the tasks
 * removed, and the new cursor.
 */
async function taskChanges(
  ctx: PgContext,
  since: TaskStateCursor | undefined,
): Promise<TaskStateChanges> {
  // Versions and row versions only (the states are not read); a task deleted and made
  // again between two calls has a new row (xmin), so it counts as changed.
  const { rows } = await ctx.pool.query<{ task: string; stamp: string }>(
    `select task, version || ':' || xmin::text as stamp
       from ${ctx.s}.task_states where scope = $1 order by task collate "C"`,
    [ctx.scope],
  );
  const before = (since as unknown as ReadonlyMap<string, string> | undefined) ?? new Map();
  const cursor = new Map(rows.map((row) => [row.task, row.stamp]));
  const moved = rows.filter((row) => before.get(row.task) !== row.stamp).map((r) => r.task);
  const removed = [...before.keys()].filter((task) => !cursor.has(task)).sort();
  const changed =
    moved.length === 0
      ? []
      : (
          await ctx.pool.query<TaskRow>(
            `select state, version from ${ctx.s}.task_states
               where scope = $1 and task = any($2) order by task collate "C"`,
            [ctx.scope, moved],
          )
        ).rows.map((row) => ({ value: row.state, version: row.version }));
  return { changed, removed, cursor: cursor as unknown as TaskStateCursor };
}
