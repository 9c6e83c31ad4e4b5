import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Starts a server-sent-events reply. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

export function sseEvent(res: ServerResponse, data: unknown, event?: string): void {
  const head = event === undefined ? '' : `event: ${event}\n`;
  res.write(`${head}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** Ends the reply abruptly after what was written: the client sees a cut stream. */
export function cutConnection(res: ServerResponse): void {
  setTimeout(() => res.socket?.destroy(), 50);
}

/** A JSON reply cut off after `partial`: the client sees a truncated body. */
export function cutJsonReply(res: ServerResponse, partial: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(partial);
  cutConnection(res);
}

/** Splits a reply text into a few stream deltas. */
export function deltas(text: string): string[] {
  const words = text.split(/(?<= )/);
  return words.length > 0 ? words : [text];
}
