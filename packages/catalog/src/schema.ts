import {
  CATALOG_SCHEMA_VERSION,
  EXECUTION_CLASSES,
  OUTPUT_FORMATS,
  PERMISSION_LEVELS,
  ROUTE_IDS,
  type RouteId,
  STAGES,
} from '@switchyard/core';
import {
  credentialShape,
  SECRET_HINT,
  secretInArgument,
  secretInEnvironment,
} from '@switchyard/utils';
import { z } from 'zod';
import { checkArgv, checkPlaceholders } from './templates.js';
import { isValidTimezone } from './windows.js';

/** A template string: only the documented `{placeholders}`, no embedded credentials. */
const template = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    for (const fault of checkPlaceholders(value)) {
      ctx.addIssue({ code: 'custom', message: fault.message, params: { hint: fault.hint } });
    }
    const shape = credentialShape(value);
    if (shape) {
      ctx.addIssue({
        code: 'custom',
        message: `looks like ${shape}`,
        params: { hint: SECRET_HINT },
      });
    }
  });

/** An argv template run without a shell. */
const argv = (what: string) =>
  z
    .array(template)
    .min(1)
    .superRefine((value, ctx) => {
      for (const { index, fault } of checkArgv(value)) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: fault.message,
          params: { hint: fault.hint },
        });
      }
      value.forEach((element, index) => {
        const why = secretInArgument(element);
        if (why)
          ctx.addIssue({
            code: 'custom',
            path: [index],
            message: why,
            params: { hint: SECRET_HINT },
          });
      });
    })
    .describe(
      `${what}: a non-empty argv array run without a shell; elements may use placeholders.`,
    );

const environment = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not a valid environment variable name'),
    z.string(),
  )
  .superRefine((value, ctx) => {
    for (const [name, raw] of Object.entries(value)) {
      const why = secretInEnvironment(name, raw);
      if (why)
        ctx.addIssue({ code: 'custom', path: [name], message: why, params: { hint: SECRET_HINT } });
    }
  })
  .describe(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: documents the ${NAME} reference syntax
    'Extra environment for the process. Values may reference the dispatcher environment as ${NAME} or ${NAME:-default}; literal credentials are refused.',
  );

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-"');

/** How a target is launched. */
export const runtimeSchema = z
  .strictObject({
    command: argv('Command that starts an attempt'),
    resume_command: argv(
      'Command that resumes a native session ({session_id}/{resume_session})',
    ).optional(),
    preflight_command: argv(
      'Command run once before a live run; non-zero exit blocks the target',
    ).optional(),
    environment: environment.optional(),
    session_path: template
      .optional()
      .describe('Where the agent keeps native session files (a leading ~ is the home directory).'),
    native_session_monitor: id
      .optional()
      .describe(
        'Native-session mechanism name; native resume across targets needs the same name on both.',
      ),
    auxiliary_logs: z
      .array(template)
      .optional()
      .describe('Extra log files kept as attempt evidence.'),
    output_format: z.enum(OUTPUT_FORMATS).default('text').describe('How stdout is framed.'),
    max_attempt_seconds: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'An attempt running longer is ended with its whole process tree and retried on this target (timeout); overrides the project config maxAttemptSeconds.',
      ),
  })
  .describe('How the target is launched.');

/** One agent + model identity the dispatcher can run. */
export const targetSchema = z
  .strictObject({
    agent: z.string().min(1).describe('Opaque agent identity (e.g. the CLI family).'),
    model: z.string().min(1).describe('Opaque model identity passed as {model}.'),
    execution_class: z.enum(EXECUTION_CLASSES).describe('Where the model runs.'),
    selfcheck_required: z
      .boolean()
      .default(false)
      .describe('Run a self-check stage after the worker.'),
    permissions: z
      .enum(PERMISSION_LEVELS)
      .optional()
      .describe(
        'What the agent may do without asking: "edit" files, "edit+shell" (also run commands) or "all". The agent\'s plugin adds the matching flags of its CLI to command and resume_command; unset = the commands as written.',
      ),
    runtime: runtimeSchema,
  })
  .describe('An agent/model the dispatcher can run.');

/** Ordered, unique, non-empty target ids. */
const candidates = z
  .array(id)
  .min(1)
  .superRefine((value, ctx) => {
    value.forEach((candidate, index) => {
      if (value.indexOf(candidate) !== index) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `duplicate candidate "${candidate}"`,
          params: { hint: 'list each target once; order is failover order' },
        });
      }
    });
  })
  .describe('Target ids in failover order.');

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (00:00–23:59)');

/** A time window of a route: active from `start` (inclusive) to `end` (exclusive), local time. */
export const windowSchema = z.strictObject({
  timezone: z
    .string()
    .refine(isValidTimezone, {
      error: (issue) => `"${String(issue.input)}" is not an IANA time zone`,
      params: { hint: 'use a name like "Europe/Berlin" or "UTC"' },
    })
    .describe('IANA time zone of start/end.'),
  start: clock.describe('Local start time, inclusive.'),
  end: clock.describe(
    'Local end time, exclusive; end <= start wraps past midnight; end == start is the whole day.',
  ),
  candidates,
});

/** The fields of a route (and of a default route in the compact form). */
export const routeFields = {
  candidates: candidates.optional(),
  windows: z
    .array(windowSchema)
    .min(1)
    .optional()
    .describe('Time windows; exactly one is active at any instant.'),
  rule_id: z.string().min(1).optional(),
  policy_priority: z.number().int().optional(),
  reason_codes: z.array(z.string().min(1)).optional(),
};

/** A route: fixed `candidates` or time `windows` (exactly one of them). */
export const routeSchema = z.strictObject(routeFields).superRefine((route, ctx) => {
  if ((route.candidates === undefined) === (route.windows === undefined)) {
    ctx.addIssue({
      code: 'custom',
      message: route.candidates
        ? 'has both "candidates" and "windows"'
        : 'has neither "candidates" nor "windows"',
      params: { hint: 'give a route exactly one of "candidates" or "windows"' },
    });
  }
});

const stageRoutes = z.strictObject(
  Object.fromEntries(ROUTE_IDS.map((route) => [route, routeSchema])) as Record<
    RouteId,
    typeof routeSchema
  >,
);

/** The whole execution catalog. */
export const catalogSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Optional JSON Schema reference for editors.'),
    schema_version: z.literal(CATALOG_SCHEMA_VERSION),
    targets: z.record(id, targetSchema).describe('Targets by id.'),
    routes: z.strictObject(
      Object.fromEntries(STAGES.map((stage) => [stage, stageRoutes])) as Record<
        (typeof STAGES)[number],
        typeof stageRoutes
      >,
    ),
  })
  .describe('switchyard execution catalog: which agent/model runs which route and stage.');

/** A validated catalog (defaults applied). */
export type Catalog = z.output<typeof catalogSchema>;
/** A catalog as written in a file (defaults optional). */
export type CatalogInput = z.input<typeof catalogSchema>;
/** One target of a catalog. */
export type CatalogTarget = z.output<typeof targetSchema>;
/** A target's runtime contract. */
export type CatalogRuntime = z.output<typeof runtimeSchema>;
/** One route of a stage. */
export type CatalogRoute = z.output<typeof routeSchema>;
/** One time window of a route. */
export type CatalogWindow = z.output<typeof windowSchema>;
