import { httpStatusesIn, isObjectDumpLine, isStackFrame } from '@switchyard/runner-kit';

/**
 * A terminal error to match: `match` is what rules see (may be derived, e.g. an event's
 * error fields), `line` the exact line the CLI printed (quoted as evidence). `source` says
 * whether it came from a structured error event or from a text line.
 */
export interface Candidate {
  match: string;
  line: string;
  source: 'event' | 'text';
}

/** A text line that is a JSON value: in JSON modes such lines are judged as events, never as text. */
export function isJsonText(line: string): boolean {
  const t = line.trimStart();
  return t.startsWith('{') || t.startsWith('[{') || t.startsWith('["');
}

/**
 * Text candidates: the lines in the form the CLI prints its own API errors (`errorLine`).
 * A Node object dump under such a line (`  status: 429`, `  code: 404`) adds its statuses to
 * the match; its other fields and stack frames never count (`bytesRead: 429` is no status).
 */
export function errorLineCandidates(lines: readonly string[], errorLine: RegExp): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isStackFrame(line) || isJsonText(line) || !errorLine.test(line)) continue;
    const statuses: number[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j]!;
      if (next.trim() === '' || errorLine.test(next)) break;
      if (isObjectDumpLine(next) && !isStackFrame(next)) {
        for (const s of httpStatusesIn(next)) if (!statuses.includes(s)) statuses.push(s);
      }
    }
    const match =
      statuses.length === 0 ? line : `${line} | ${statuses.map((s) => `status: ${s}`).join(' | ')}`;
    out.push({ match, line, source: 'text' });
  }
  return out;
}

/**
 * The gate every built-in rule sits behind: event candidates pass, text candidates only in
 * the CLI's own error form — never prose, a test runner's output, a stack frame or a dump.
 */
export function isErrorEvidence(candidate: Candidate, errorLine: RegExp): boolean {
  if (candidate.source === 'event') return true;
  const { line } = candidate;
  return line.trim() !== '' && !isStackFrame(line) && !isJsonText(line) && errorLine.test(line);
}
