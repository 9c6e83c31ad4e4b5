import { FAILURE_CLASSES, type FailureClass, SwitchyardError } from '@switchyard/core';
import { z } from 'zod';
import type { FaultRule } from './rules.js';

/** Options every switchyard classifier accepts (`['@switchyard/classifier-x', options]`). */
export interface ClassifierOptions {
  /** Extra rules checked before the built-in ones, e.g. a proxy's own quota message. */
  extraRules?: { class: FailureClass; pattern: string; flags?: string }[];
  /** How many of the last stderr lines count as terminal when the CLI failed (default 40). */
  stderrLines?: number;
}

const schema = z
  .object({
    extraRules: z
      .array(
        z
          .object({
            class: z.enum(FAILURE_CLASSES),
            pattern: z.string().min(1),
            flags: z
              .string()
              .regex(/^[imsu]*$/, 'only the flags i, m, s, u')
              .optional(),
          })
          .strict(),
      )
      .optional(),
    stderrLines: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

/** Validates options; every problem is reported at once, by JSON path. */
export function parseClassifierOptions(
  plugin: string,
  raw: unknown,
): { options: ClassifierOptions; extraRules: FaultRule[] } {
  const parsed = schema.safeParse(raw ?? {});
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({
        code: 'SY_PLUGIN_LOAD' as const,
        path: issue.path.join('.'),
        message: issue.message,
      }));
  const extraRules: FaultRule[] = [];
  for (const [i, rule] of (parsed.success ? (parsed.data.extraRules ?? []) : []).entries()) {
    try {
      const pattern = new RegExp(rule.pattern, rule.flags ?? 'i');
      extraRules.push({ name: `extra-${i}`, class: rule.class, confidence: 'certain', pattern });
    } catch (error) {
      problems.push({
        code: 'SY_PLUGIN_LOAD',
        path: `extraRules.${i}.pattern`,
        message: (error as Error).message,
      });
    }
  }
  if (problems.length > 0) {
    throw new SwitchyardError(
      'SY_PLUGIN_LOAD',
      `Invalid options for ${plugin}: ${problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ')}`,
      {
        problems,
        hint: 'Options are { extraRules?: [{ class, pattern, flags? }], stderrLines?: 1..1000 }.',
      },
    );
  }
  return { options: parsed.success ? parsed.data : {}, extraRules };
}
