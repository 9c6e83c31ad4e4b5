import { createHash } from 'node:crypto';
import type { Catalog } from './schema.js';

/** JSON with object keys sorted at every level and no whitespace. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * The catalog revision: SHA-256 (64 hex) of the canonical serialization of the validated
 * catalog. Key order, whitespace, `$schema` and spelled-out defaults do not change it; any
 * semantic change does. Decisions pin it, so a changed catalog fails closed for active work.
 */
export function catalogRevision(catalog: Catalog): string {
  const { $schema: _ignored, ...semantic } = catalog;
  return createHash('sha256').update(canonicalJson(semantic)).digest('hex');
}
