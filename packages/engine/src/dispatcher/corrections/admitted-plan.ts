import { createHash } from 'node:crypto';
import { applyRouting } from '@switchyard/catalog';
import {
  type AdmittedPlan,
  type ChecklistItem,
  planFileName,
  SwitchyardError,
} from '@switchyard/core';
import { type LoadedTask, taskFromPlanTexts } from '@switchyard/tasks';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** SHA-256 of a plan's text (hex). */
export const planHash = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The record of plans the dispatcher admits: their texts, hashed, and the checklist to merge into. */
export function admitPlans(
  texts: readonly { loop: number; text: string }[],
  checklist: readonly ChecklistItem[],
  now: Date,
): AdmittedPlan {
  return {
    loops: texts.map(({ loop, text }) => ({ loop, sha256: planHash(text), text })),
    checklist: checklist.map((item) => ({ checked: item.checked, text: item.text })),
    admittedAt: now.toISOString(),
  };
}

/**
 * The task as the dispatcher admitted it: parsed from its record, never from the files. A
 * record whose text no longer matches its hash was changed outside the dispatcher: refused
 * with `SY_STATE_CORRUPT`, naming the plan.
 */
export function admittedTask(ctx: DispatchContext, id: string, plan: AdmittedPlan): LoadedTask {
  for (const { loop, text, sha256 } of plan.loops)
    if (planHash(text) !== sha256)
      throw new SwitchyardError(
        'SY_STATE_CORRUPT',
        `the admitted ${planFileName(loop)} of ${id} does not match its SHA-256 in the task's state`,
        {
          file: storedStateOf(ctx, id),
          hint: `the state was changed outside the dispatcher: restore it, or run \`switchyard retry ${id}\` to admit the plan files as they are now`,
        },
      );
  const task = taskFromPlanTexts(ctx.workspace, id, plan.loops);
  applyRouting(task, ctx.options.routing);
  return task;
}

/**
 * The parts of a task's contract that differ between two readings of its plans (the record
 * and the files): what decides what runs, never the prose or the checklist marks.
 */
export function contractChanges(admitted: LoadedTask, other: LoadedTask): string[] {
  const changed: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const done = (t: LoadedTask) =>
    t.definitionOfDone && {
      argv: t.definitionOfDone.argv,
      assertion: t.definitionOfDone.assertion,
    };
  if (!same(done(admitted), done(other))) changed.push('Definition of Done');
  if (
    !same(
      [admitted.runner, admitted.command, admitted.shell],
      [other.runner, other.command, other.shell],
    )
  )
    changed.push('runner');
  const paths = (t: LoadedTask) => t.writeSet.map((e) => e.path).sort();
  if (!same(paths(admitted), paths(other)) || admitted.writeSetAny !== other.writeSetAny)
    changed.push('write set');
  const deps = (t: LoadedTask) => t.dependsOn.map((d) => d.id).sort();
  if (!same(deps(admitted), deps(other))) changed.push('depends_on');
  for (const key of [
    'route',
    'target',
    'apply',
    'review',
    'maxPlanLoops',
    'complexity',
    'risk',
  ] as const)
    if (admitted[key] !== other[key]) changed.push(key);
  if (admitted.testsRequired !== other.testsRequired) changed.push('tests');
  return changed;
}

/** How each changed part reads, for a finding (`Definition of Done: \`a\` → \`b\``). */
export function describeChanges(admitted: LoadedTask, other: LoadedTask, fields: string[]): string {
  const show = (t: LoadedTask, field: string): string => {
    switch (field) {
      case 'Definition of Done':
        return t.definitionOfDone ? `\`${t.definitionOfDone.command}\`` : 'none';
      case 'runner':
        return t.runner === 'local'
          ? `local \`${(t.command ?? []).join(' ')}\``
          : (t.runner ?? 'agent');
      case 'write set':
        return t.writeSetAny ? 'any' : t.writeSet.map((e) => e.path).join(', ') || 'none';
      case 'depends_on':
        return t.dependsOn.map((d) => d.id).join(', ') || 'none';
      default:
        return String((t as unknown as Record<string, unknown>)[field] ?? 'none');
    }
  };
  return fields.map((f) => `${f}: ${show(admitted, f)} → ${show(other, f)}`).join('; ');
}

/** The plan record of a task, admitted from the files as they were read at the run's start. */
export function admitFromFiles(ctx: DispatchContext, rt: TaskRuntime, files: LoadedTask): void {
  const texts = (files.planTexts ?? []).filter((t) => t.loop <= rt.state.planLoop);
  if (texts.length === 0) return;
  const plan = admitPlans(texts, [], ctx.now());
  // The files may hold a plan loop the task has not reached (the review's next plan): the
  // task is the admitted loops, which is the files' reading when nothing is left out.
  const task = texts.length === files.planTexts?.length ? files : admittedTask(ctx, rt.id, plan);
  plan.checklist = task.checklist.map((item) => ({ checked: item.checked, text: item.text }));
  rt.state.plan = plan;
  rt.task = task;
}

/**
 * At a run's start, for a task the dispatcher admitted before: the task is its record, and
 * plan files that say something else are a finding (announced, the admitted plan stays in
 * force; the files are written again from the record after its next attempt). A record that
 * does not match its hashes blocks the task.
 */
export function useAdmittedPlan(ctx: DispatchContext, rt: TaskRuntime, files: LoadedTask): void {
  const plan = rt.state.plan!;
  try {
    rt.task = admittedTask(ctx, rt.id, plan);
  } catch (error) {
    rt.task = files;
    rt.state.blocked = {
      stage: 'plan',
      reason: error instanceof Error ? error.message : String(error),
      evidence: [`state: ${storedStateOf(ctx, rt.id)}`],
      at: ctx.now().toISOString(),
    };
    return;
  }
  const drift = fileDrift(ctx, rt, files);
  if (drift.length === 0) return;
  ctx.bus.emit({
    type: 'plan.changed',
    task: rt.id,
    files: filesOf(rt),
    fields: drift.map((d) => d.split(':')[0]!),
    restored: false,
    detail: `the plan files of ${rt.id} differ from the plan the dispatcher admitted (${drift.join('; ')}): the admitted plan stays in force. To run the files instead, stop the run and \`switchyard retry ${rt.id}\``,
  });
}

/**
 * A human's retry (`--retry-blocked`, `switchyard retry`, `resolve --retry`): the plan files
 * as they are now are admitted again, for the loops the task has reached; what that changes in
 * the contract is announced (`adopted`). False when the files cannot be used (the task keeps
 * its record).
 */
export function readmitPlan(
  ctx: DispatchContext,
  rt: TaskRuntime,
  files: LoadedTask | undefined,
): boolean {
  if (!files?.valid || !files.planTexts) return false;
  const record = rt.state.plan;
  let before: LoadedTask | undefined;
  try {
    before = record ? admittedTask(ctx, rt.id, record) : undefined;
  } catch {
    before = undefined; // a damaged record: the files replace it, which is what a retry is for
  }
  admitFromFiles(ctx, rt, files);
  const fields = before ? contractChanges(before, rt.task) : [];
  if (fields.length > 0)
    ctx.bus.emit({
      type: 'plan.changed',
      task: rt.id,
      files: filesOf(rt),
      fields,
      restored: false,
      adopted: true,
      detail: `retried: the plan files of ${rt.id} are admitted as they are now (${describeChanges(before!, rt.task, fields)})`,
    });
  return true;
}

/** How the files differ from the record, as `field: admitted → files` (none when they agree). */
function fileDrift(ctx: DispatchContext, rt: TaskRuntime, files: LoadedTask): string[] {
  const plan = rt.state.plan!;
  const texts = files.planTexts ?? [];
  const admittedLoops = plan.loops.map((l) => ({
    loop: l.loop,
    text: texts.find((t) => t.loop === l.loop)?.text,
  }));
  if (admittedLoops.some((l) => l.text === undefined))
    return [
      `plan files: ${plan.loops.map((l) => planFileName(l.loop)).join(', ')} → missing or unreadable`,
    ];
  const read = taskFromPlanTexts(
    ctx.workspace,
    rt.id,
    admittedLoops as { loop: number; text: string }[],
  );
  if (!read.valid)
    return [
      `plan files: valid → ${read.problems.find((p) => p.severity !== 'warning')?.message ?? 'invalid'}`,
    ];
  const fields = contractChanges(rt.task, read);
  return fields.length > 0 ? describeChanges(rt.task, read, fields).split('; ') : [];
}

const filesOf = (rt: TaskRuntime): string[] =>
  (rt.state.plan?.loops ?? []).map((l) => `agent-task/${rt.id}/${planFileName(l.loop)}`);

/** Where a task's stored state is, for messages (the file store: the folder of its task files). */
function storedStateOf(ctx: DispatchContext, id: string): string {
  return `${id} in the ${ctx.store.kind} store at ${ctx.store.location}`;
}
