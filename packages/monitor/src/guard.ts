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

/** The one path that takes a POST: a human's action (retry, skip, resolve, stop). */
export const ACTION_PATH = '/action';
/** The header an action carries the page's token in (a form of another site cannot set it). */
export const TOKEN_HEADER = 'x-switchyard-token';

/**
 * Checks one request: a `Host` header naming this loopback server (a page of another site
 * that rebinds its DNS name to 127.0.0.1 sends its own host name) and the token (compared in
 * constant time). Reads are GET/HEAD with the token in the URL; the only write is a POST of
 * an action (unless `readOnly`) with the token in its header, a JSON body and an `Origin` of
 * this server: a page of any other origin is refused even if it learnt the token.
 */
export function refusalOf(
  req: IncomingMessage,
  url: URL,
  token: string,
  port: number,
  readOnly = false,
): Refusal | undefined {
  const post = req.method === 'POST' && url.pathname === ACTION_PATH && !readOnly;
  if (req.method !== 'GET' && req.method !== 'HEAD' && !post)
    return {
      status: 405,
      message: readOnly
        ? 'read-only monitor: GET and HEAD only'
        : `GET and HEAD only, and POST ${ACTION_PATH}`,
    };
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `${LOOPBACK}:${port}` && host !== `localhost:${port}`)
    return { status: 421, message: 'unknown Host header' };
  if (post) {
    const origin = (req.headers.origin ?? '').toLowerCase();
    if (origin !== `http://${LOOPBACK}:${port}` && origin !== `http://localhost:${port}`)
      return {
        status: 403,
        message: `an action must come from this monitor's own page (Origin ${origin || 'missing'})`,
      };
    const header = req.headers[TOKEN_HEADER];
    if (!sameSecret(typeof header === 'string' ? header : '', token))
      return { status: 403, message: `missing or wrong token (header ${TOKEN_HEADER})` };
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return { status: 415, message: 'an action is a JSON body (content-type: application/json)' };
    return undefined;
  }
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
