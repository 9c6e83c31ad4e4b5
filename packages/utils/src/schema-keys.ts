import type { z } from 'zod';

/** The parts of a zod schema's definition this walk reads (zod 4 keeps them on `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  items?: readonly z.ZodType[];
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas a value at this schema may be checked against (wrappers and unions opened). */
function objectsOf(schema: z.ZodType, depth = 0): Def[] {
  if (depth > 20) return [];
  const def = defOf(schema);
  const inner = def.innerType ?? def.in ?? def.getter?.();
  if (def.type === 'object') return [def];
  if (inner) return objectsOf(inner, depth + 1);
  if (def.type === 'union') return (def.options ?? []).flatMap((o) => objectsOf(o, depth + 1));
  if (def.type === 'intersection')
    return [def.left, def.right].flatMap((s) => (s ? objectsOf(s, depth + 1) : []));
  return [];
}

/** The schemas a value at `key` below `schema` may be checked against. */
function childrenOf(schema: z.ZodType, key: PropertyKey, depth = 0): z.ZodType[] {
  if (depth > 20) return [];
  const def = defOf(schema);
  const inner = def.innerType ?? def.in ?? def.getter?.();
  if (inner) return childrenOf(inner, key, depth + 1);
  switch (def.type) {
    case 'object': {
      const child = def.shape?.[String(key)];
      return child ? [child] : [];
    }
    case 'array':
      return def.element ? [def.element] : [];
    case 'tuple': {
      const item = def.items?.[Number(key)];
      return item ? [item] : [];
    }
    case 'record':
      return def.valueType ? [def.valueType] : [];
    case 'union':
      return (def.options ?? []).flatMap((o) => childrenOf(o, key, depth + 1));
    case 'intersection':
      return [def.left, def.right].flatMap((s) => (s ? childrenOf(s, key, depth + 1) : []));
    default:
      return [];
  }
}

/**
 * The keys an object at `path` inside a value of `schema` may have, in the schema's order:
 * what an unknown key there was probably meant to be. Empty when the path leads to no object.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let level: z.ZodType[] = [schema];
  for (const key of path) level = level.flatMap((s) => childrenOf(s, key));
  const keys = level.flatMap(objectsOf).flatMap((def) => Object.keys(def.shape ?? {}));
  return [...new Set(keys)].filter((k) => k !== '$schema');
}
