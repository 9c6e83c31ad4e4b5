import { createHash } from 'node:crypto';
import { readHead } from './session-file.js';

/** Where a native session says it was recorded. */
export interface SessionOrigin {
  /** Working directory recorded in the session (Claude/Qwen `cwd` lines, Codex
   * `session_meta.payload.cwd`). */
  cwd?: string;
  /** Gemini's `projectHash` (SHA-256 of the project root path). */
  projectHash?: string;
}

/** Reads the session's origin from the head of its file (JSONL records or one JSON document). */
export function sessionOrigin(file: string): SessionOrigin {
  const head = readHead(file);
  const origin: SessionOrigin = {};
  const visit = (record: Record<string, unknown>) => {
    const payload = record.payload as Record<string, unknown> | undefined;
    const cwd = record.cwd ?? (record.type === 'session_meta' ? payload?.cwd : undefined);
    if (origin.cwd === undefined && typeof cwd === 'string') origin.cwd = cwd;
    if (origin.projectHash === undefined && typeof record.projectHash === 'string')
      origin.projectHash = record.projectHash;
  };
  for (const line of head.split('\n')) {
    try {
      const record = JSON.parse(line);
      if (record && typeof record === 'object') visit(record as Record<string, unknown>);
    } catch {
      // a pretty-printed JSON document or a cut line: fall back to field patterns below
    }
    if (origin.cwd !== undefined) break;
  }
  if (origin.projectHash === undefined) {
    const match = /"projectHash"\s*:\s*"([0-9a-f]{64})"/.exec(head);
    if (match) origin.projectHash = match[1]!;
  }
  return origin;
}

/**
 * True only when the session provably belongs to the workspace (its recorded cwd is the
 * workspace or inside it, or its project hash is the workspace path's). Unknown origin is
 * false: native resume is only safe when proven.
 */
export function sessionBelongsToWorkspace(file: string, workspaceRealpath: string): boolean {
  const origin = sessionOrigin(file);
  if (origin.cwd !== undefined) {
    return origin.cwd === workspaceRealpath || origin.cwd.startsWith(`${workspaceRealpath}/`);
  }
  if (origin.projectHash !== undefined) {
    return origin.projectHash === createHash('sha256').update(workspaceRealpath).digest('hex');
  }
  return false;
}
