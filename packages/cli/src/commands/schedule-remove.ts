import { resolve } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import {
  loadSchedules,
  openSharedSchedules,
  type Schedule,
  saveSchedules,
  schedulesPath,
} from '../schedule/index.js';

/** `switchyard unschedule`: remove the schedules with this id, or that run this plan or workspace. */
export async function scheduleRemove(key: string, opts: { store?: string }): Promise<void> {
  const shared = await openSharedSchedules(opts.store);
  const file = shared ? shared.port.locate() : schedulesPath();
  const path = resolve(key);
  const matches = (s: Schedule) =>
    s.id === key || s.plan === path || (!s.plan && s.workspace === path);
  let removed: Schedule[];
  try {
    const all = shared ? await shared.port.list() : loadSchedules(file);
    removed = all.filter(matches);
    if (removed.length === 0) {
      throw new SwitchyardError('SY_USAGE', `No schedule matches "${key}".`, {
        file,
        hint: `List them with \`switchyard schedules${opts.store ? ' --store URL' : ''}\`.`,
      });
    }
    if (shared) for (const s of removed) await shared.port.remove(s.id);
    else
      await saveSchedules(
        all.filter((s) => !matches(s)),
        file,
      );
  } finally {
    await shared?.close();
  }
  process.stdout.write(`Removed ${removed.map((s) => s.id).join(', ')}.\n`);
}
