import { existsSync, realpathSync } from 'node:fs';
import { userInfo } from 'node:os';
import {
  archivedTaskDir,
  type BlockedInfo,
  freshFailures,
  type ResolutionAction,
  type Store,
  SwitchyardError,
  type TaskState,
  taskDir,
} from '@switchyard/core';
import { acquireWorkspaceLock, isOpen } from '@switchyard/store-fs';
import { didYouMean } from '@switchyard/utils';
import { DECISION_KEYS } from '../lifecycle/index.js';
import { type CatalogFacts, checkDecision } from '../selection/decide.js';
import { recordDoneByHand } from './record-done.js';

/** What `switchyard resolve` does. */
export interface ResolveRequest {
  workspace: string;
  /** The workspace's store (the caller opens and closes it; not exclusive: the lock is taken here). */
  store: Store;
  /** `<group>/<task>`. */
  task: string;
  action: ResolutionAction;
  /** The catalog the next run uses: a decision it no longer supports is made again. */
  catalogFacts?: CatalogFacts;
  now?: Date;
  /** Who answers (default: the OS user name) and the words they give with the answer. */
  by?: string;
  note?: string;
}

export interface ResolveOutcome {
  task: string;
  action: ResolutionAction;
  /** The block that was resolved (none for `done` on an archive entry that never blocked). */
  blocked?: BlockedInfo;
}

/**
 * Closes a blocked task's escalation with a human's answer, under the workspace lock (never
 * beside a running dispatcher). `retry`: the task becomes runnable again with a fresh
 * failure budget; its attempts and evidence stay, as with `switchyard retry`. `skip`: the
 * task stays blocked and its dependents keep waiting (they never got what they depend on);
 * only the escalation closes, so it is no longer listed or notified. `done`: the task's
 * folder is in the archive with its `complete.log` and a person says it is complete (see
 * record-done.ts).
 */
export async function resolveEscalation(request: ResolveRequest): Promise<ResolveOutcome> {
  const workspace = realpathSync(request.workspace);
  const { store } = request;
  const now = request.now ?? new Date();
  const lock = acquireWorkspaceLock({ workspace });
  try {
    const stored = await store.tasks.get(request.task);
    const state = stored?.value;
    if (request.action === 'done') {
      const escalation = await store.escalations.get(request.task);
      const open = escalation && isOpen(escalation.bundle, state);
      const blocked = await recordDoneByHand(workspace, store, request.task, now);
      if (open)
        await store.escalations.resolve(
          request.task,
          'done',
          now,
          request.by ?? userName(),
          request.note,
        );
      return { task: request.task, action: 'done', ...(blocked ? { blocked } : {}) };
    }
    const blocked = state?.blocked;
    const known =
      state !== undefined ||
      existsSync(taskDir(workspace, request.task)) ||
      existsSync(archivedTaskDir(workspace, request.task));
    if (!known) {
      const near = didYouMean(
        request.task,
        (await store.tasks.list()).map((s) => s.value.task),
      );
      throw new SwitchyardError(
        'SY_USAGE',
        `Unknown task ${request.task}: there is no agent-task/${request.task}/ and no state of it.`,
        {
          hint: `${near ? `${near} ` : ''}\`switchyard status\` lists the tasks and the open escalations (name tasks as <group>/<task>).`,
        },
      );
    }
    if (!stored || !state || !blocked) {
      throw new SwitchyardError(
        'SY_USAGE',
        `Task ${request.task} is not blocked; nothing to resolve.`,
        {
          hint: '`switchyard status` lists the open escalations (name tasks as <group>/<task>).',
        },
      );
    }
    const escalation = await store.escalations.get(request.task);
    if (request.action === 'skip' && !(escalation && isOpen(escalation.bundle, state))) {
      throw new SwitchyardError(
        'SY_USAGE',
        `Task ${request.task} has no open escalation to skip.`,
        {
          hint: '`switchyard status` lists the open escalations.',
        },
      );
    }
    if (request.action === 'retry') liftBlock(request.task, state, request.catalogFacts);
    // The answer is recorded first: a crash before the state write leaves the task blocked
    // with a closed escalation, which `switchyard retry` still lifts.
    if (escalation)
      await store.escalations.resolve(
        request.task,
        request.action,
        now,
        request.by ?? userName(),
        request.note,
      );
    if (request.action === 'retry') await store.tasks.put(state, { expected: stored.version });
    return { task: request.task, action: request.action, blocked };
  } finally {
    lock.release();
  }
}

/**
 * `retry`: the blocked task becomes runnable again with a fresh failure budget (its attempts
 * and evidence stay); a decision the catalog no longer supports is made again, and the next
 * run admits the plan files as they are then. A block at the plan-loop cap is refused
 * (`SY_USAGE`): a fresh budget does not lift the cap. Changes `state` in place.
 */
export function liftBlock(task: string, state: TaskState, catalogFacts?: CatalogFacts): void {
  if (state.blocked?.stage === 'plan-loop-cap') {
    throw new SwitchyardError(
      'SY_USAGE',
      `Task ${task} blocked at its plan-loop cap; a fresh budget does not lift the cap.`,
      {
        hint: 'Raise max_plan_loops in its PLAN.md front matter, then run `switchyard retry <task>`; or `switchyard resolve <task> --skip`.',
      },
    );
  }
  for (const stage of DECISION_KEYS) {
    const decision = state.decisions[stage];
    if (decision && catalogFacts && !checkDecision(decision, catalogFacts).valid)
      delete state.decisions[stage];
  }
  delete state.blocked;
  delete state.notBefore;
  state.failures = freshFailures();
  state.selfcheckRetries = 0;
  // The next run admits the plan files as they are then (a human may have fixed them).
  if (state.plan) state.plan.readmit = true;
}

function userName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
