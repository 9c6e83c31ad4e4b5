import type { TerminalEvent } from '@switchyard/core';

const ERROR_WORD = /(?:^|[._:/-])(?:error|fatal|failed|failure|aborted)$/i;
const BAD_LEVEL = /^(?:error|fatal|critical|panic|emergency|alert)$/i;
const BAD_STATUS = /^(?:rejected|failed|failure|error|errored|incomplete|cancelled)$/i;
const CODE_KEYS = ['code', 'error_code', 'errorCode', 'status_code', 'statusCode', 'http_status'];

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function hasErrorCode(event: Record<string, unknown>): boolean {
  for (const key of CODE_KEYS) {
    const v = event[key];
    if (typeof v === 'number' || (typeof v === 'string' && v !== '')) return true;
  }
  const error = event.error;
  if (typeof error === 'object' && error !== null) {
    const e = error as Record<string, unknown>;
    return CODE_KEYS.some((k) => e[k] !== undefined && e[k] !== null) || 'type' in e;
  }
  return typeof error === 'string' && error !== '';
}

/**
 * Why a parsed JSONL event ends (or reports the failure of) an agent run, or undefined.
 * Generic rules, no agent named: an error/fatal `type`/`event`/`subtype`, an error
 * `severity`/`level`, a rejected/failed `status` carrying an error code, an explicit
 * `is_error: true`, or an `error` object. Tool events never count: a failed tool call is
 * part of the conversation, not the end of the run.
 */
export function terminalReason(event: Record<string, unknown>): string | undefined {
  const type = str(event.type) ?? str(event.event) ?? str(event.kind);
  if (type !== undefined && /tool/i.test(type)) return undefined;
  if (type !== undefined && ERROR_WORD.test(type)) return `type=${type}`;
  const subtype = str(event.subtype);
  if (subtype !== undefined && /^error/i.test(subtype)) return `subtype=${subtype}`;
  const level = str(event.severity) ?? str(event.level);
  if (level !== undefined && BAD_LEVEL.test(level)) return `severity=${level}`;
  const status = str(event.status);
  if (status !== undefined && BAD_STATUS.test(status) && hasErrorCode(event)) {
    return `status=${status}+code`;
  }
  if (event.is_error === true || event.isError === true) return 'is_error=true';
  const error = event.error;
  if (typeof error === 'object' && error !== null && !Array.isArray(error)) return 'error-object';
  return undefined;
}

/** A {@link TerminalEvent} for the line when {@link terminalReason} finds one. */
export function detectTerminalEvent(
  event: Record<string, unknown>,
  line: number,
  raw: string,
): TerminalEvent | undefined {
  const reason = terminalReason(event);
  return reason === undefined ? undefined : { line, raw, event, reason };
}
