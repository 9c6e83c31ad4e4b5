import { z } from 'zod';

/** Output shapes the fake agent can print: a real CLI's JSONL events or plain text. */
export const FAKE_AGENT_FORMATS = [
  'claude-code',
  'codex',
  'gemini-cli',
  'qwen-code',
  'text',
] as const;
export type FakeAgentFormat = (typeof FAKE_AGENT_FORMATS)[number];

/** Provider faults the fake agent can print the way the chosen CLI prints them. */
export const FAKE_FAULTS = [
  'quota',
  'overloaded',
  'context-limit',
  'model-unavailable',
  'auth',
  'server-error',
  'stream-disconnect',
  'connection',
] as const;
export type FakeFault = (typeof FAKE_FAULTS)[number];

const text = z.string();
// biome-ignore lint/suspicious/noTemplateCurlyInString: the scenario's own syntax, not a template
const EXPANDED = '`${NAME}` in paths is expanded from the environment';
const stream = z.enum(['stdout', 'stderr']).default('stdout');
// A string: YAML reads an unquoted 755 as a decimal number. A check that does not abort, so
// the union of steps reports this message instead of only "Invalid input".
const octalMode = z.custom<string>(
  (value) => typeof value === 'string' && /^[0-7]{3,4}$/.test(value),
  { error: 'expected permission bits in octal, as a string such as "755" or "0644"', abort: false },
);

/** One scripted step. Exactly one key per step object. */
export const stepSchema = z.union([
  z.strictObject({ say: text }).describe('An assistant message in the chosen format.'),
  z
    .strictObject({
      tool: z.strictObject({ name: text, input: z.record(z.string(), z.unknown()).default({}) }),
    })
    .describe('A tool-call event (text format: a `[tool] name` line).'),
  z
    .strictObject({ print: text, stream })
    .describe('A raw line, printed exactly (no JSON wrapping), to stdout or stderr.'),
  z
    .strictObject({
      write: z.strictObject({ path: text, content: text, append: z.boolean().default(false) }),
    })
    .describe(
      `Write (or append to) a file, relative to the workspace (SWITCHYARD_WORKSPACE or cwd); ${EXPANDED}.`,
    ),
  z
    .strictObject({
      link: z.strictObject({ target: text, path: text, hard: z.boolean().default(false) }),
    })
    .describe(
      `Make \`path\` a symbolic link to \`target\` (a hard link with \`hard\`), both relative to the workspace; ${EXPANDED}.`,
    ),
  z
    .strictObject({ copy: z.strictObject({ from: text, to: text }) })
    .describe(
      `Copy a file or folder (recursively) from \`from\` to \`to\`, relative to the workspace; ${EXPANDED}.`,
    ),
  z
    .strictObject({ remove: text })
    .describe(`Remove a file or folder (recursively), relative to the workspace; ${EXPANDED}.`),
  z
    .strictObject({ chmod: z.strictObject({ path: text, mode: octalMode }) })
    .describe(
      `Set a file's permission bits to \`mode\` (octal), leaving its content as it is; the path is relative to the workspace; ${EXPANDED}.`,
    ),
  z
    .strictObject({ fillChecklist: z.union([z.literal(true), text]) })
    .describe(
      'Tick every `- [ ]` item of SWITCHYARD_PLAN; a string is written as each item value.',
    ),
  z
    .strictObject({ review: text, nextPlan: text.optional() })
    .describe(
      'Write a review to SWITCHYARD_REVIEW_FILE and, if given, a plan to SWITCHYARD_NEXT_PLAN.',
    ),
  z
    .strictObject({ printEnv: text, stream })
    .describe('Print `NAME=value` of that environment variable, raw, to stdout or stderr.'),
  z.strictObject({ sleep: z.number().int().nonnegative() }).describe('Sleep that many ms.'),
  z.strictObject({ hang: z.literal(true) }).describe('Never finish (until killed).'),
  z
    .strictObject({ waitFor: text })
    .describe('Wait until this file exists (relative to the workspace): the test releases it.'),
  z.strictObject({ exit: z.number().int().min(0).max(255) }).describe('Exit now with that code.'),
  z.strictObject({ kill: text }).describe('Kill itself with that signal, e.g. SIGSEGV.'),
  z
    .strictObject({
      spawn: z.strictObject({
        sleepMs: z.number().int().positive(),
        count: z.number().int().positive().default(1),
        /** Start each in a new session (`setsid`): it leaves the agent's process group. */
        detached: z.boolean().default(false),
        /** Append each grandchild's PID (a line) to this file, relative to the workspace. */
        pidFile: text.optional(),
      }),
    })
    .describe('Spawn grandchildren (`sleep`) that outlive this step.'),
  z
    .strictObject({
      sayEvery: z.strictObject({ text, intervalMs: z.number().int().positive().default(1000) }),
    })
    .describe('Print an assistant message every intervalMs, forever (never stalls, never ends).'),
  z
    .strictObject({ fault: z.enum(FAKE_FAULTS), exitCode: z.number().int().optional() })
    .describe('Print a provider fault as the chosen CLI prints it, then exit (1 unless exitCode).'),
  z
    .strictObject({
      retryForever: z.strictObject({
        line: text.optional(),
        intervalMs: z.number().int().positive().default(500),
      }),
    })
    .describe('Print a retry announcement line (stderr) every intervalMs, forever.'),
  z
    .strictObject({
      flood: z.strictObject({
        bytes: z.number().int().positive(),
        lineBytes: z.number().int().positive().default(1024),
      }),
    })
    .describe('Print that many bytes of assistant output quickly (stream-size tests).'),
  z
    .strictObject({
      result: text,
      /** Tokens and cost reported in the final event, in the agent format's own fields. */
      usage: z
        .strictObject({
          inputTokens: z.number().int().nonnegative().default(0),
          outputTokens: z.number().int().nonnegative().default(0),
          cacheReadTokens: z.number().int().nonnegative().default(0),
          costUsd: z.number().nonnegative().optional(),
        })
        .optional(),
    })
    .describe('End with a final result event/line (with usage, if given) and exit 0.'),
]);
export type FakeAgentStep = z.infer<typeof stepSchema>;

/** Conditions on the current run; every given field must match. */
export const whenSchema = z.strictObject({
  /** 1-based number of this run among runs of the scenario with the same role + task + target. */
  attempt: z.number().int().positive().optional(),
  /** SWITCHYARD_ROLE (worker, selfcheck, review…). */
  role: text.optional(),
  /** SWITCHYARD_TARGET_ID. */
  target: text.optional(),
  /** SWITCHYARD_TASK_ID. */
  task: text.optional(),
  /** True when started with --resume <session>. */
  resumed: z.boolean().optional(),
  /** Environment variables that must hold exactly these values. */
  env: z.record(z.string(), z.string()).optional(),
});

export const scenarioSchema = z.strictObject({
  /** Output shape; default `text`. */
  format: z.enum(FAKE_AGENT_FORMATS).default('text'),
  /** For `format: text`: which CLI's text-mode fault output to replay (default claude-code). */
  textOf: z.enum(['claude-code', 'codex', 'gemini-cli', 'qwen-code']).default('claude-code'),
  /** Session id to emit (default: a random UUID; a resumed run keeps the resumed id). */
  sessionId: text.optional(),
  /** Steps when no case matches. Default: say "done" and finish. */
  steps: z.array(stepSchema).default([{ say: 'done' }]),
  /** First matching case wins and replaces `steps`. */
  cases: z.array(z.strictObject({ when: whenSchema, steps: z.array(stepSchema) })).default([]),
});
export type FakeAgentScenario = z.infer<typeof scenarioSchema>;
export type FakeAgentWhen = z.infer<typeof whenSchema>;
