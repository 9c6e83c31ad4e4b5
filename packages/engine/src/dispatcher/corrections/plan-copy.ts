import { chmodSync, existsSync, lstatSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { type AdmittedPlan, type AttemptRecord, planFileName } from '@switchyard/core';
import { readChecklist, readPlanText, taskFromPlanTexts } from '@switchyard/tasks';
import { writeOwnedFile, writeOwnedFileBelow } from '@switchyard/utils';
import { decisionKeyOf } from '../../lifecycle/index.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { contractChanges, describeChanges } from './admitted-plan.js';

/**
 * Agents get copies. Each attempt reads (and ticks) its own copy of the current plan in its
 * attempt folder, written from the dispatcher's record; when it ends, only the checklist it
 * returns is merged into the record, and the task folder's plan files are written again from
 * the record: a change an agent made to them is a finding (`plan.changed`), never a new plan.
 */

/** The copy of the current plan an attempt reads and ticks. */
export function planCopyOf(attemptDir: string, planLoop: number): string {
  return join(attemptDir, planFileName(planLoop));
}

/** Writes the attempt's copy; returns its path (the task folder's plan without a record). */
export function writePlanCopy(ctx: DispatchContext, rt: TaskRuntime, attemptDir: string): string {
  const text = recordedPlanText(rt.state.plan, rt.state.planLoop);
  if (text === undefined) return join(rt.task.dir, planFileName(rt.state.planLoop));
  const copy = planCopyOf(attemptDir, rt.state.planLoop);
  writeOwnedFileBelow(ctx.workspace, copy, text, 'replace');
  return copy;
}

/** A loop's admitted text with the checklist merged so far (the current loop's only). */
export function recordedPlanText(plan: AdmittedPlan | undefined, loop: number): string | undefined {
  const admitted = plan?.loops.find((l) => l.loop === loop);
  if (!plan || !admitted) return undefined;
  const last = plan.loops.at(-1)?.loop === loop;
  return last ? withChecklist(admitted.text, plan.checklist) : admitted.text;
}

/** The task folder's plan files before an attempt, to tell what changed while it ran. */
const seenBefore = new Map<string, Map<string, string | undefined>>();

/** Remembers the task folder's plan files as they are when an attempt starts. */
export function notePlanFiles(rt: TaskRuntime, attemptDir: string): void {
  seenBefore.set(attemptDir, readPlanFiles(rt));
}

/**
 * After an attempt (also one judged after a restart): the checklist its copy returns is
 * merged (worker and self-check of the current loop; same items, only ticks and the text of
 * items the plan left empty), then the task folder's plan files are compared with the record.
 * A changed contract is announced as a finding; the files are written again from the record.
 */
export function takeReturnedPlan(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
): void {
  const plan = rt.state.plan;
  if (!plan || !existsSync(rt.task.dir)) return;
  if (
    // The worker's own context (the worker and its self-check) works the plan's checklist.
    decisionKeyOf(record.role) === 'worker' &&
    record.planLoop === rt.state.planLoop
  )
    mergeChecklist(plan, planCopyOf(record.attemptDir, record.planLoop));
  const before = seenBefore.get(record.attemptDir);
  seenBefore.delete(record.attemptDir);
  const now = readPlanFiles(rt);
  // What changed while the attempt ran; judged after a restart: what differs from the record.
  const changed = [...now.keys()].filter((name) =>
    before
      ? before.get(name) !== now.get(name)
      : recordedPlanText(plan, loopOf(plan, name)) !== now.get(name),
  );
  // Nothing changed and every file is the record's text: its contract is the admitted one
  // (the checklist marks are no part of it), so there is nothing to parse or announce.
  if (changed.length === 0 && plan.loops.every((l) => isRecorded(rt, l.loop, now))) {
    writePlanFiles(rt, now, false);
    return;
  }
  const files = taskFromPlanTexts(
    ctx.workspace,
    rt.id,
    plan.loops.map((l) => ({ loop: l.loop, text: now.get(planFileName(l.loop)) ?? l.text })),
  );
  const fields = contractChanges(rt.task, files);
  if (fields.length > 0 && changed.length > 0)
    ctx.bus.emit({
      type: 'plan.changed',
      task: rt.id,
      attempt: record.id,
      files: changed.map((name) => relative(ctx.workspace, join(rt.task.dir, name))),
      fields,
      restored: true,
      detail: `the ${record.role} attempt changed the task's plan (${describeChanges(rt.task, files, fields)}): the plan as admitted stays in force, and its files were written again from the dispatcher's record`,
    });
  writePlanFiles(rt, now, fields.length > 0);
}

/**
 * A loop's file holds the record's text, or (the current loop's) its admitted text before the
 * checklist was merged: writing every loop from the record would then write what writing the
 * current one does.
 */
function isRecorded(
  rt: TaskRuntime,
  loop: number,
  now: ReadonlyMap<string, string | undefined>,
): boolean {
  const plan = rt.state.plan!;
  const text = now.get(planFileName(loop));
  if (loop === rt.state.planLoop && text === plan.loops.find((l) => l.loop === loop)?.text)
    return true;
  return text === recordedPlanText(plan, loop);
}

const loopOf = (plan: AdmittedPlan, name: string): number =>
  plan.loops.find((l) => planFileName(l.loop) === name)?.loop ?? 0;

/** Merges the ticks of the copy an attempt returned into the record. */
function mergeChecklist(plan: AdmittedPlan, copy: string): void {
  const current = plan.loops.at(-1);
  const read = readPlanText(copy, copy);
  if (!current || !('text' in read)) return;
  const admitted = readChecklist(current.text).items;
  const returned = readChecklist(read.text).items;
  // Items added, removed or reordered are not a checklist the plan has: nothing is taken.
  if (returned.length !== admitted.length) return;
  plan.checklist = admitted.map((item, i) => ({
    checked: returned[i]!.checked,
    text: item.text.trim() === '' ? returned[i]!.text : item.text,
  }));
}

/** Every admitted loop's file in the task folder: name → text (undefined when unreadable). */
function readPlanFiles(rt: TaskRuntime): Map<string, string | undefined> {
  const files = new Map<string, string | undefined>();
  for (const { loop } of rt.state.plan?.loops ?? []) {
    const name = planFileName(loop);
    const read = readPlanText(join(rt.task.dir, name), name);
    files.set(name, 'text' in read ? read.text : undefined);
  }
  return files;
}

/** Writes the current loop's file from the record (every loop's, when a contract changed). */
function writePlanFiles(rt: TaskRuntime, now: Map<string, string | undefined>, all: boolean): void {
  const plan = rt.state.plan!;
  for (const { loop } of plan.loops) {
    if (!all && loop !== rt.state.planLoop) continue;
    const name = planFileName(loop);
    const text = recordedPlanText(plan, loop)!;
    if (now.get(name) !== text) replacePlanFile(join(rt.task.dir, name), text);
  }
}

/**
 * Writes a plan file whole or not at all (a new file renamed over it): a dispatcher killed
 * while writing never leaves a torn plan, which the next run would report as changed. The
 * file keeps its mode; what is at its name (a symlink an agent put there) is replaced, never
 * followed.
 */
function replacePlanFile(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  rmSync(temp, { force: true });
  writeOwnedFile(temp, text, 'create');
  try {
    const before = lstatSync(path);
    if (before.isFile()) chmodSync(temp, before.mode & 0o777);
  } catch {
    // no file there yet: the owner-only mode of a file the dispatcher creates
  }
  renameSync(temp, path);
}

const BOX_LINE = /^(\s*(?:[-*+]|\d+[.)])\s+)\[([ xX])\](.*?)(\r?)$/;

/** `text` with each checklist item's box (and the text of an item it left empty) as merged. */
function withChecklist(text: string, checklist: AdmittedPlan['checklist']): string {
  const items = readChecklist(text).items;
  const lines = text.split('\n');
  items.forEach((item, i) => {
    const merged = checklist[i];
    const index = item.line - 1;
    const match = BOX_LINE.exec(lines[index] ?? '');
    if (!merged || !match) return;
    const [, lead = '', , rest = '', cr = ''] = match;
    const filled = item.text.trim() === '' && merged.text !== '' ? ` ${merged.text}` : rest;
    lines[index] = `${lead}[${merged.checked ? 'x' : ' '}]${filled}${cr}`;
  });
  return lines.join('\n');
}

/** The current loop's checklist as the dispatcher holds it (with lines of the admitted text). */
export function recordedChecklist(
  rt: TaskRuntime,
): { checked: boolean; text: string; line: number }[] {
  const plan = rt.state.plan;
  const current = plan?.loops.find((l) => l.loop === rt.state.planLoop);
  if (!plan || !current) return [];
  return readChecklist(current.text).items.map((item, i) => ({
    checked: plan.checklist[i]?.checked ?? item.checked,
    text: plan.checklist[i]?.text ?? item.text,
    line: item.line,
  }));
}
