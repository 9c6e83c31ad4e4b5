import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SwitchyardError } from '@switchyard/core';

/** The only address the monitor listens on: the page shows a workspace, never the network. */
export const LOOPBACK = '127.0.0.1';

/** Refuses any bind address but the IPv4 loopback (`SY_USAGE`). */
export function assertLoopbackBind(host: string): void {
  if (host === LOOPBACK) return;
  throw new SwitchyardError(
    'SY_USAGE',
    `The monitor binds ${LOOPBACK} only; refusing to listen on "${host}".`,
    {
      hint: 'It shows plans, evidence and agent output: reach it from another machine through an SSH tunnel (ssh -L <port>:127.0.0.1:<port> host) instead.',
    },
  );
}

/** Why a request is refused, or undefined when it may be served. */
export interface Refusal {
  status: number;
  message: string;
}

/**
 * Checks one request: read-only methods, a `Host` header naming this loopback server (a
 * page of another site that rebinds its DNS name to 127.0.0.1 sends its own host name), and
 * the URL token (compared in constant time).
 */
export function refusalOf(
  req: IncomingMessage,
  url: URL,
  token: string,
  port: number,
): Refusal | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return { status: 405, message: 'read-only: GET and HEAD only' };
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `${LOOPBACK}:${port}` && host !== `localhost:${port}`)
    return { status: 421, message: 'unknown Host header' };
  const given = url.searchParams.get('token') ?? '';
  if (!sameSecret(given, token)) return { status: 403, message: 'missing or wrong token' };
  return undefined;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const SECRET_KEY = /token|secret|password|passwd|api[-_]?key|credential|auth/i;

/**
 * A copy of `value` safe to show: every value under an `env` object (targets' environment)
 * and every string under a key that names a secret is replaced by `***`.
 */
export function maskSecrets(value: unknown, underEnv = false, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, underEnv, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = underEnv ? '***' : maskSecrets(v, k === 'env' || k === 'environment', k);
    }
    return out;
  }
  if (underEnv || (typeof value === 'string' && SECRET_KEY.test(key))) return '***';
  return value;
}
