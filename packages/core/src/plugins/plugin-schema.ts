import { z } from 'zod';
import type { SwitchyardPlugin } from './define.js';

const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>(
    (v) => typeof v === 'function',
    `${what} must be a function`,
  );
const optionalFn = (what: string) => fn(what).optional();

const meta = z.object({
  name: z.string().min(1, 'meta.name must be a non-empty string'),
  version: z.string().optional(),
});
const agents = z.union([
  z.literal('*'),
  z.array(z.string().min(1)).min(1, 'agents must list at least one agent or be "*"'),
]);

const runner = z.object({
  kind: z.literal('runner'),
  meta,
  outputFormats: z.array(z.enum(['text', 'jsonl'])).min(1),
  nativeSession: z.boolean().optional(),
  promptDelivery: z.object({ argv: z.literal(true), stdin: z.boolean().optional() }).optional(),
  sandbox: z.boolean().optional(),
  start: fn('start'),
  reattach: fn('reattach'),
  planResume: optionalFn('planResume'),
  dispose: optionalFn('dispose'),
});

const classifier = z.object({
  kind: z.literal('classifier'),
  meta,
  agents,
  classify: fn('classify'),
  // release lines like "2.1.19x" (x: any digits) the rules were verified on
  verifiedVersions: z.array(z.string().regex(/^[\dx]+(?:\.[\dx]+)*$/)).optional(),
  isRetryLine: optionalFn('isRetryLine'),
  usage: optionalFn('usage'),
  promptInput: z
    .object({ stdin: z.object({ argvPrompt: z.string().nullable() }).optional() })
    .optional(),
  sandboxWritable: optionalFn('sandboxWritable'),
  dispose: optionalFn('dispose'),
});

const transcript = z.object({
  kind: z.literal('transcript'),
  meta,
  agents,
  formatEvent: fn('formatEvent'),
  formatLine: optionalFn('formatLine'),
});

/** Shape check of a loaded plugin (hooks present and callable, meta and kind valid). */
export const pluginSchema = z.discriminatedUnion('kind', [runner, classifier, transcript], {
  error: (issue) =>
    issue.code === 'invalid_union'
      ? 'kind must be "runner", "classifier" or "transcript"'
      : undefined,
});

/** Validates a loaded value; returns the plugin or every problem as `path: message`. */
export function validatePlugin(
  value: unknown,
): { plugin: SwitchyardPlugin } | { problems: string[] } {
  const parsed = pluginSchema.safeParse(value);
  if (parsed.success) return { plugin: value as SwitchyardPlugin };
  return {
    problems: parsed.error.issues.map((i) =>
      i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message,
    ),
  };
}
