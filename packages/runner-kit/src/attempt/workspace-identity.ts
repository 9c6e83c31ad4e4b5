import { realpath, stat } from 'node:fs/promises';
import type { WorkspaceIdentity } from '@switchyard/core';

/** The physical identity of a workspace directory: real path plus device and inode. */
export async function workspaceIdentity(dir: string): Promise<WorkspaceIdentity> {
  const real = await realpath(dir);
  const st = await stat(real);
  return { realpath: real, dev: st.dev, ino: st.ino };
}

/** True when both identities name the same physical directory. */
export function sameWorkspace(a: WorkspaceIdentity, b: WorkspaceIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
