import { DECISION_STAGES } from '../lifecycle/stages.js';

/** The stages every catalog routes (the lifecycle's decision stages): the worker implements a
 * PLAN, the review judges it. */
export const STAGES = DECISION_STAGES;

/** A stage of the task lifecycle that runs one catalog target. */
export type Stage = (typeof STAGES)[number];

const groups = Array.from({ length: 10 }, (_, i) => `G${String(i + 1).padStart(2, '0')}`);

/** Every route id a stage must define, exactly: `local-G01`…`local-G10`, `cloud-G01`…`cloud-G10`. */
export const ROUTE_IDS = [
  ...groups.map((g) => `local-${g}`),
  ...groups.map((g) => `cloud-${g}`),
] as readonly RouteId[];

type Digit = '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
/** A route id: `local-G01`…`local-G10` or `cloud-G01`…`cloud-G10`. */
export type RouteId = `${'local' | 'cloud'}-G${`0${Digit}` | '10'}`;

/** The placeholders a runtime template may use; anything else in braces is an error. */
export const TEMPLATE_PLACEHOLDERS = [
  'agent',
  'model',
  'target_id',
  'workspace',
  'attempt_dir',
  'session_id',
  'resume_session',
  'prompt',
] as const;

/** A placeholder a runtime template may use. */
export type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];

/** The values a catalog argv template is filled with, by placeholder. */
export type TemplateValues = Partial<Record<TemplatePlaceholder, string>>;

/** The catalog format version this release reads. */
export const CATALOG_SCHEMA_VERSION = 1;

/** Execution classes: where a target's model runs. */
export const EXECUTION_CLASSES = ['local_model', 'cloud_model'] as const;

/** How a target's stdout is framed. */
export const OUTPUT_FORMATS = ['text', 'jsonl'] as const;

/**
 * What an agent may do without asking, as a target's `permissions`: edit files; edit files
 * and run shell commands; everything. The agent's plugin turns a level into its CLI's flags.
 */
export const PERMISSION_LEVELS = ['edit', 'edit+shell', 'all'] as const;

/** A target's `permissions` level. */
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/** True when `value` is one of the 20 route ids. */
export function isRouteId(value: string): value is RouteId {
  return (ROUTE_IDS as readonly string[]).includes(value);
}
