// Small formatting helpers of the page (HTML escaping, numbers, money, times, shell words).
import type { Totals } from './types.js';

export const esc = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

export const num = (n: number): string => n.toLocaleString('en-US');

/** A cost to a tenth of a cent, as core's `formatCost` prints it (this bundle runs without core). */
export const cost = (t: Pick<Totals, 'costUsd' | 'costEstimated'>): string =>
  `${t.costUsd > 0 && t.costUsd < 0.0005 ? '<$0.001' : `$${t.costUsd.toFixed(3)}`}${t.costEstimated ? ' (est.)' : ''}`;

/** A duration in ms as `850ms`, `42s`, `3m 05s` or `2h 10m`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Time since an instant, for live counters. */
export const ago = (iso: string): string => duration(Math.max(0, Date.now() - Date.parse(iso)));

export const time = (iso: string): string => new Date(iso).toLocaleTimeString();

/**
 * One argv word as a POSIX shell reads it back: bare when it holds only safe characters,
 * else in single quotes (a single quote inside becomes '\''). So a command shown on the page
 * can be copied into a terminal and runs the same argv.
 */
export function shellWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one copyable shell command line. */
export const shellCommand = (argv: readonly string[]): string => argv.map(shellWord).join(' ');
