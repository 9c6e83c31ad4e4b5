import type { IncomingMessage } from 'node:http';
import { userInfo } from 'node:os';
import { SwitchyardError } from '@switchyard/core';
import { humanActionRequestSchema, performHumanAction, type RunControl } from '@switchyard/engine';
import { openFsStore } from '@switchyard/store-fs';

/** Largest action body read (an answer's words fit many times over). */
const MAX_BODY_BYTES = 16 * 1024;

/** The answer to one POST /action: status and JSON body. */
export interface ActionReply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * One human action from the page (the request already passed Host, Origin and token): the
 * body is validated, then carried out by core's `performHumanAction` — the run's own paths
 * when the run of this process is live (`control`), else those of `switchyard resolve`.
 * 400 for a bad body, 413 past {@link MAX_BODY_BYTES}, 409 when the action does not apply
 * now (`SY_ACTION_REFUSED`, with its hint), 200 with what it did.
 */
export async function handleAction(
  req: IncomingMessage,
  workspace: string,
  control: RunControl | undefined,
): Promise<ActionReply> {
  const text = await readBody(req);
  if (text === undefined)
    return { status: 413, body: { ok: false, message: `body over ${MAX_BODY_BYTES} bytes` } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 400, body: { ok: false, message: 'the body is not JSON' } };
  }
  const parsed = humanActionRequestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      status: 400,
      body: {
        ok: false,
        message: `${issue.path.join('.') || 'body'}: ${issue.message}`,
        hint: '{"action":"retry"|"skip"|"resolve"|"stop-task"|"stop-run","task":"<group>/<task>","answer":"retry"|"skip","note":"…"}',
      },
    };
  }
  try {
    const outcome = await performHumanAction(
      workspace,
      parsed.data,
      { by: userName(), via: 'monitor' },
      control,
      // Without a run of this process: the workspace's files, beside a run that may hold them.
      () => openFsStore({ workspace }),
    );
    return { status: 200, body: { ok: true, ...outcome } };
  } catch (error) {
    if (SwitchyardError.is(error) && error.code === 'SY_ACTION_REFUSED')
      return {
        status: 409,
        body: { ok: false, code: error.code, message: error.message, hint: error.hint },
      };
    throw error;
  }
}

/** The request body, or undefined when it is longer than allowed. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // past the bound the rest is drained, not kept (the request time limit bounds it)
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

function userName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
