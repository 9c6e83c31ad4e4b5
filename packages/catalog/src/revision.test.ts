import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, catalogRevision } from './revision.js';
import type { Catalog } from './schema.js';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';

const now = new Date('2026-12-01T00:00:00Z');
const revisionOf = (raw: unknown) => {
  const { catalog, problems } = validateCatalog(raw, { now, checkExecutables: false });
  expect(problems).toEqual([]);
  return catalogRevision(catalog as Catalog);
};

/** The same JSON value with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

describe('catalogRevision', () => {
  it('is 64 hex characters', () => {
    expect(revisionOf(validCatalog())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order, whitespace, $schema and spelled-out defaults', () => {
    const base = revisionOf(validCatalog());
    expect(revisionOf(reverseKeys(validCatalog()))).toBe(base);
    expect(revisionOf(JSON.parse(JSON.stringify(validCatalog(), null, 8)))).toBe(base);
    expect(revisionOf({ $schema: './s.json', ...validCatalog() })).toBe(base);
    const explicit = validCatalog();
    explicit.targets['local-a'].selfcheck_required = false;
    expect(revisionOf(explicit)).toBe(base);
  });

  it('changes on any semantic change', () => {
    const base = revisionOf(validCatalog());
    const edits: ((c: Record<string, any>) => void)[] = [
      (c) => {
        c.routes.worker['cloud-G01'].candidates.reverse();
      },
      (c) => {
        c.targets['cloud-a'].model = 'other';
      },
      (c) => {
        c.targets['cloud-a'].runtime.command.push('--fast');
      },
      (c) => {
        c.targets['cloud-a'].selfcheck_required = true;
      },
      (c) => {
        c.routes.review['local-G03'].rule_id = 'r';
      },
    ];
    const seen = new Set([base]);
    for (const edit of edits) {
      const raw = validCatalog();
      edit(raw);
      seen.add(revisionOf(raw));
    }
    expect(seen.size).toBe(edits.length + 1);
  });

  it('canonical JSON is independent of key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(reverseKeys(value))).toBe(canonicalJson(value));
      }),
    );
  });
});
