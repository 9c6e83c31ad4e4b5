import type { StoreStatus } from '@switchyard/store-postgres';

/** `switchyard store status` as text: the server, the schemas, then one line per repository. */
export function renderStoreStatus(
  status: StoreStatus,
  origin: string,
  leaseSeconds: number,
): string {
  const lines = [`store    ${status.location} (${origin})`];
  if (!status.reachable) return `${lines.join('\n')}\nserver   unreachable\n`;
  lines.push(`server   PostgreSQL ${status.server ?? '?'}`);
  lines.push(
    `schema   ${
      status.schemaVersion === 0
        ? 'none'
        : `version ${status.schemaVersion}${status.current ? '' : ` (this switchyard needs ${status.expectedVersion})`}`
    }`,
  );
  lines.push(
    `pg-boss  ${status.bossVersion === null ? 'not installed' : `schema ${status.bossSchema}, version ${status.bossVersion}`}`,
  );
  lines.push(`lease    ${leaseSeconds} s`);
  if (status.current)
    lines.push(
      status.scopes.length === 0
        ? 'backlogs none yet'
        : `backlogs ${status.scopes.length} ${status.scopes.length === 1 ? 'repository' : 'repositories'}`,
    );
  for (const scope of status.scopes) {
    const backlog = Object.entries(scope.backlog)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([state, n]) => `${n} ${state}`)
      .join(', ');
    lines.push(
      `  ${scope.scope}: ${backlog || 'no tasks'}; ${scope.leases} live ${scope.leases === 1 ? 'lease' : 'leases'}, ${scope.claims} claimed ${scope.claims === 1 ? 'path' : 'paths'}, ${scope.events} events`,
    );
  }
  return `${lines.join('\n')}\n`;
}
