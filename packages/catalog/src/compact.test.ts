import { readFileSync } from 'node:fs';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { expandCatalog, isCompactCatalog } from './compact.js';
import { compactCatalog } from './compact-write.js';
import { applyPermissions } from './permissions.js';
import { catalogRevision } from './revision.js';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';

const check = { checkExecutables: false } as const;
const targets = () => validCatalog().targets;

/** A catalog as a person writes it: one default, the review's own, one route that differs. */
const written = () => ({
  schema_version: 1,
  targets: targets(),
  defaults: {
    candidates: ['cloud-a', 'cloud-b'],
    local: { candidates: ['local-a'] },
    review: { candidates: ['cloud-b', 'cloud-a'], local: { candidates: ['local-a'] } },
  },
  routes: { worker: { 'cloud-G01': { candidates: ['cloud-b'], rule_id: 'strongest' } } },
});

describe('the compact catalog form', () => {
  it('expands to the full form, validated and hashed as that full form is', () => {
    const compact = written();
    expect(isCompactCatalog(compact)).toBe(true);
    const { catalog: full, problems } = expandCatalog(compact);
    expect(problems).toEqual([]);
    const routes = full.routes as Record<string, Record<string, unknown>>;
    expect(routes.worker?.['cloud-G01']).toEqual({ candidates: ['cloud-b'], rule_id: 'strongest' });
    expect(routes.worker?.['cloud-G07']).toEqual({ candidates: ['cloud-a', 'cloud-b'] });
    expect(routes.worker?.['local-G03']).toEqual({ candidates: ['local-a'] });
    expect(routes.review?.['cloud-G10']).toEqual({ candidates: ['cloud-b', 'cloud-a'] });
    expect(routes.review?.['local-G10']).toEqual({ candidates: ['local-a'] });
    const fromCompact = validateCatalog(compact, check);
    const fromFull = validateCatalog(full, check);
    expect(fromCompact.problems).toEqual([]);
    expect(fromCompact.catalog).toEqual(fromFull.catalog);
    expect(catalogRevision(fromCompact.catalog!)).toBe(catalogRevision(fromFull.catalog!));
  });

  it('the bundled catalog written compactly: fewer than half its routes, the same revision', () => {
    const file = assetPath('default-execution-catalog.json');
    const full = validateCatalog(JSON.parse(readFileSync(file, 'utf8')), check).catalog!;
    const compact = compactCatalog(full);
    expect(compact).toHaveProperty('defaults');
    const again = validateCatalog(compact, check);
    expect(again.problems).toEqual([]);
    expect(catalogRevision(again.catalog!)).toBe(catalogRevision(full));
    const listed = Object.values(compact.routes as Record<string, object>).flatMap(Object.keys);
    expect(listed.length).toBeLessThan(20); // of 40: the lanes that share a route are written once
    // The full form stays valid input, and is not rewritten by the expansion.
    expect(isCompactCatalog(full)).toBe(false);
  });

  it('problems point at the compact path they come from, each once', () => {
    const compact = written();
    compact.defaults.candidates = ['cloud-a', 'cloud-z'];
    (compact.defaults as Record<string, unknown>).candidate = ['typo'];
    compact.routes.worker['cloud-G01'].candidates = ['nope'];
    const { problems } = validateCatalog(compact, { ...check, file: 'catalog.json' });
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['defaults.candidate', 'unknown key "candidate"'],
      ['routes.worker.cloud-G01.candidates.0', 'candidate "nope" is not a target'],
      ['defaults.candidates.1', 'candidate "cloud-z" is not a target'],
    ]);
    expect(problems.every((p) => p.file === 'catalog.json')).toBe(true);
  });

  it('a route no default reaches says where the compact form takes routes from', () => {
    const { problems } = validateCatalog(
      { schema_version: 1, targets: targets(), defaults: { cloud: { candidates: ['cloud-a'] } } },
      { ...check, pathPrefix: 'executionCatalog' },
    );
    expect(problems).toHaveLength(20); // the ten local routes of both stages
    expect(problems[0]).toMatchObject({
      path: 'executionCatalog.routes.worker.local-G01',
      hint: expect.stringContaining('"defaults": { "candidates"'),
    });
  });
});

describe('permissions: the agent plugin turns a level into flags', () => {
  it('rewrites command and resume_command of the targets that ask; names those it cannot', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].permissions = 'edit+shell';
    raw.targets['cloud-a'].runtime.resume_command = ['x', 'resume', '{session_id}'];
    raw.targets['cloud-b'].agent = 'unknown-agent';
    raw.targets['cloud-b'].permissions = 'all';
    const catalog = validateCatalog(raw, check).catalog!;
    const { catalog: applied, problems } = applyPermissions(catalog, (agent) =>
      agent === 'fake-agent' ? (level, argv) => [...argv, `--level=${level}`] : undefined,
    );
    expect(applied.targets['cloud-a']?.runtime.command.at(-1)).toBe('--level=edit+shell');
    expect(applied.targets['cloud-a']?.runtime.resume_command).toEqual([
      'x',
      'resume',
      '{session_id}',
      '--level=edit+shell',
    ]);
    expect(applied.targets['local-a']).toEqual(catalog.targets['local-a']);
    expect(problems).toMatchObject([
      {
        path: 'targets.cloud-b.permissions',
        message: expect.stringContaining('no loaded plugin of agent "unknown-agent"'),
      },
    ]);
    // The level is part of the catalog, so of its revision; the flags are not.
    raw.targets['cloud-a'].permissions = 'all';
    expect(catalogRevision(validateCatalog(raw, check).catalog!)).not.toBe(
      catalogRevision(catalog),
    );
  });
});
