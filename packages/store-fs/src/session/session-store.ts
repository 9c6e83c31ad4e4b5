import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SESSIONS_DIR, SwitchyardError } from '@switchyard/core/dry-run';

const ID = /^s-\d{8}T\d{6}Z-[0-9a-f]{4}$/;

/** A new session id: `s-<UTC time>-<random>`, sortable by start time. */
export function newSessionId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `s-${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * Where the sessions of one workspace's state dir are: `sessions/<id>/`, ids checked. The
 * records themselves are read and written through the store's session port (`fs-sessions.ts`).
 */
export class SessionStore {
  readonly root: string;
  constructor(readonly stateDir: string) {
    this.root = join(stateDir, SESSIONS_DIR);
  }

  dirOf(id: string): string {
    if (!ID.test(id)) {
      throw new SwitchyardError('SY_USAGE', `"${id}" is not a session id.`, {
        hint: 'Session ids look like s-20261201T020000Z-1a2b; `switchyard status --sessions` lists them.',
      });
    }
    return join(this.root, id);
  }

  /** Session ids, oldest first. */
  ids(): string[] {
    try {
      return readdirSync(this.root)
        .filter((name) => ID.test(name))
        .sort();
    } catch {
      return [];
    }
  }
}
