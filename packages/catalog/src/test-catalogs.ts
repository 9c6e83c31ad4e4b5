import { ROUTE_IDS, STAGES } from '@switchyard/core';

/** A small valid catalog for tests: two targets whose command is this Node binary. */
export function validCatalog(): Record<string, any> {
  const target = (model: string, cls: 'local_model' | 'cloud_model') => ({
    agent: 'fake-agent',
    model,
    execution_class: cls,
    runtime: { command: [process.execPath, '--version', '{prompt}'], output_format: 'jsonl' },
  });
  const stage = () =>
    Object.fromEntries(
      ROUTE_IDS.map((id) => [
        id,
        { candidates: id.startsWith('local') ? ['local-a'] : ['cloud-a', 'cloud-b'] },
      ]),
    );
  return {
    schema_version: 1,
    targets: {
      'local-a': target('small', 'local_model'),
      'cloud-a': target('large', 'cloud_model'),
      'cloud-b': target('medium', 'cloud_model'),
    },
    routes: Object.fromEntries(STAGES.map((s) => [s, stage()])),
  };
}
