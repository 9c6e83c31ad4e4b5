import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { AttemptRecord } from '@switchyard/core';
import { fillTemplate } from '@switchyard/runner-kit';
import type { DispatchContext } from '../types.js';

/** Each auxiliary log is kept up to this size (its tail: where an agent's last error is). */
export const AUXILIARY_LOG_BYTES = 1024 * 1024;

/** One entry of `auxiliary/index.json` in the attempt directory. */
export interface AuxiliaryLogEntry {
  template: string;
  /** The path the template named for this attempt. */
  path: string;
  /** File name of the copy under `auxiliary/`, when the log existed. */
  copy?: string;
  bytes?: number;
  truncated?: boolean;
  missing?: true;
  /** Why the template could not be resolved (e.g. no session id for `{session_id}`). */
  error?: string;
}

/**
 * Copies the target's `runtime.auxiliary_logs` (templates filled for this attempt) into the
 * attempt's evidence directory: `auxiliary/<n>-<name>` holds each log's last
 * AUXILIARY_LOG_BYTES, `auxiliary/index.json` says what was found, cut or missing. Never
 * throws: a log that cannot be read is noted, the attempt's verdict stands.
 */
export function collectAuxiliaryLogs(ctx: DispatchContext, record: AttemptRecord): void {
  const target = ctx.catalog.targets[record.target];
  const templates = target?.runtime.auxiliary_logs ?? [];
  if (!target || templates.length === 0) return;
  const dir = join(record.attemptDir, 'auxiliary');
  const entries: AuxiliaryLogEntry[] = [];
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    templates.forEach((template, index) => {
      let path: string;
      try {
        [path] = fillTemplate([template], {
          agent: target.agent,
          model: target.model,
          target_id: record.target,
          workspace: ctx.workspace,
          attempt_dir: record.attemptDir,
          ...(record.sessionId ? { session_id: record.sessionId } : {}),
        }) as [string];
      } catch (error) {
        entries.push({ template, path: template, error: String((error as Error).message) });
        return;
      }
      path = resolve(ctx.workspace, path);
      const copy = `${index + 1}-${basename(path)}`;
      const tail = readTail(path);
      if (!tail) {
        entries.push({ template, path, missing: true });
        return;
      }
      writeFileSync(join(dir, copy), tail.data);
      entries.push({ template, path, copy, bytes: tail.size, truncated: tail.truncated });
    });
    writeFileSync(join(dir, 'index.json'), `${JSON.stringify(entries, null, 1)}\n`);
  } catch {
    // the evidence directory is not writable: the attempt keeps its other evidence
  }
}

function readTail(file: string): { data: Buffer; size: number; truncated: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = statSync(file).size;
    const length = Math.min(size, AUXILIARY_LOG_BYTES);
    const data = Buffer.alloc(length);
    readSync(fd, data, 0, length, size - length);
    return { data, size, truncated: size > length };
  } finally {
    closeSync(fd);
  }
}
