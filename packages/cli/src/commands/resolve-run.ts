import { resolve } from 'node:path';
import { hasConfigFile, resolveCatalog } from '@switchyard/config';
import { type ResolutionAction, SwitchyardError } from '@switchyard/core';
import { type CatalogFacts, catalogSourceLabel, resolveEscalation } from '@switchyard/engine';
import { findWorkspaceRoot } from '@switchyard/utils';
import { sharedStoreSetting } from '../store/resolve-store.js';

/** Options of `switchyard resolve`. */
export interface ResolveOptions {
  workspace?: string;
  retry?: boolean;
  skip?: boolean;
  done?: boolean;
  executionCatalog?: string;
  json?: boolean;
  store?: string;
}

/** `switchyard resolve <group>/<task> --retry|--skip|--done`: in the shared store or the files. */
export async function resolveCommand(task: string, opts: ResolveOptions): Promise<void> {
  if ([opts.retry, opts.skip, opts.done].filter(Boolean).length !== 1) {
    throw new SwitchyardError('SY_USAGE', 'Give exactly one of --retry, --skip or --done.', {
      hint: 'switchyard resolve <group>/<task> --retry   (or --skip, or --done)',
    });
  }
  const workspace = findWorkspaceRoot({
    ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
    isMarker: hasConfigFile,
  });
  const catalogFacts = opts.retry ? await catalogFactsOf(workspace, opts) : undefined;
  const action: ResolutionAction = opts.retry ? 'retry' : opts.done ? 'done' : 'skip';
  const setting = await sharedStoreSetting({
    workspace,
    ...(opts.store !== undefined ? { store: opts.store } : {}),
  });
  const outcome = setting
    ? await (async () => {
        const { resolveShared, withSharedStore } = await import('../store/resolve-shared.js');
        return withSharedStore(workspace, setting, (shared) =>
          resolveShared(shared, task, action, catalogFacts),
        );
      })()
    : await resolveInFiles(workspace, task, action, catalogFacts);
  if (opts.json) {
    const { printJson } = await import('../output.js');
    printJson(outcome);
    return;
  }
  process.stdout.write(resolvedLine(task, outcome.action, setting !== undefined));
}

/** The catalog a retried task's next run uses: a decision it no longer supports is made again. */
async function catalogFactsOf(workspace: string, opts: ResolveOptions): Promise<CatalogFacts> {
  const catalog = await resolveCatalog({
    ...(opts.executionCatalog ? { flagPath: resolve(opts.executionCatalog) } : {}),
    cwd: workspace,
    checkExecutables: false,
  });
  return {
    source: catalogSourceLabel(catalog),
    revision: catalog.revision,
    targets: catalog.catalog.targets,
  };
}

/** The file store, not exclusive: the workspace lock is taken by the resolve itself. */
async function resolveInFiles(
  workspace: string,
  task: string,
  action: ResolutionAction,
  catalogFacts: CatalogFacts | undefined,
) {
  const { openFsStore } = await import('@switchyard/store-fs');
  const store = openFsStore({ workspace });
  try {
    return await resolveEscalation({
      workspace,
      store,
      task,
      action,
      ...(catalogFacts ? { catalogFacts } : {}),
    });
  } finally {
    await store.close();
  }
}

/** What the answer did, in one line. */
function resolvedLine(task: string, action: ResolutionAction, shared: boolean): string {
  if (action === 'retry')
    return shared
      ? `resolved ${task}: back in the shared backlog with a fresh budget; a dispatcher of any machine takes it\n`
      : `resolved ${task}: retry with a fresh budget on the next \`switchyard run\`\n`;
  if (action === 'done')
    return `resolved ${task}: recorded as done by hand; its dependents run on the next \`switchyard run\`\n`;
  return `resolved ${task}: skipped; it stays blocked and its dependents keep waiting\n`;
}
