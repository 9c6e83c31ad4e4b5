import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { PageAssets } from './assets.js';
import { renderPage } from './page-html.js';

/** Headers of every answer: nothing cached, sniffed, framed or sent on as a referrer. */
export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS });
  res.end(body);
}

/** The page with the snapshot inlined, its script and style allowed by a fresh nonce only. */
export function sendPage(res: ServerResponse, assets: PageAssets, snapshotJson: string): void {
  const nonce = randomBytes(16).toString('base64');
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    // Nothing but this page's own inline script/style and its own origin's streams.
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    ...SECURITY_HEADERS,
  });
  res.end(renderPage(assets, nonce, snapshotJson));
}

/**
 * Ends a stream and resolves once its last bytes are handed to its socket (a write is corked
 * until the next tick, and a slow reader's socket may be full), or after `graceMs`.
 */
export function endStream(res: ServerResponse, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    res.once('close', done);
    res.end(done);
  });
}
