import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SwitchyardError } from '../errors.js';
import { replaceFile } from '../state/atomic-file.js';
import { ATTEMPT_FILES } from './layout.js';

const iso = z.iso.datetime({ offset: true });

/** Physical identity of the workspace: the same directory is the same device + inode. */
export const workspaceIdentitySchema = z.object({
  realpath: z.string().describe('fs.realpath of the workspace root.'),
  dev: z.number().describe('st_dev of the workspace root.'),
  ino: z.number().describe('st_ino of the workspace root.'),
});

/** Snapshot of the target's runtime contract at launch (the catalog may change later). */
export const runtimeSnapshotSchema = z.object({
  command: z.array(z.string()).describe('The argv template from the catalog, unfilled.'),
  argv: z.array(z.string()).describe('The argv actually executed (templates filled).'),
  outputFormat: z.enum(['text', 'jsonl']),
  resumeCommand: z.array(z.string()).optional(),
  environment: z
    .record(z.string(), z.string())
    .default({})
    .describe('Target environment (no secrets by contract).'),
  sessionPath: z.string().optional(),
  nativeSessionMonitor: z.boolean().optional(),
});

/** The sandbox an attempt ran in: bubblewrap and its mount table (see core `sandbox/`). */
export const locatorSandboxSchema = z.object({
  mode: z.literal('bwrap'),
  network: z.enum(['host', 'none']),
  mounts: z
    .array(
      z.object({
        type: z.enum(['ro-bind', 'bind', 'tmpfs', 'hide-dir', 'hide-file', 'dev', 'proc']),
        path: z.string(),
        why: z.string(),
      }),
    )
    .describe(
      'Applied in order over the read-only root: everything not bound writable is read-only.',
    ),
});

/**
 * `locator.json`: everything needed to find, judge and resume one attempt. Written when the
 * process starts, rewritten (atomically) when it ends.
 */
export const locatorSchema = z.object({
  schemaVersion: z.literal(1),
  attemptId: z.string().min(1).describe('Unique attempt id; also the process marker value.'),
  taskId: z.string().describe('Task artifact id (group/task).'),
  role: z.string().describe('Stage role: worker, selfcheck, review…'),
  planLoop: z.number().int().nonnegative().describe('PLAN/CODE_REVIEW loop number.'),
  targetId: z.string().describe('Catalog target id.'),
  agent: z.string().describe('Opaque catalog agent identity.'),
  model: z.string().describe('Opaque catalog model identity.'),
  agentVersion: z
    .string()
    .optional()
    .describe("The agent CLI's version, from `--version` before the run (when it printed one)."),
  executionClass: z.enum(['local_model', 'cloud_model']),
  runtime: runtimeSnapshotSchema,
  catalog: z.object({
    source: z.string().describe('Catalog file path, or `bundled`.'),
    revision: z.string().describe('Content hash of the catalog file.'),
  }),
  process: z.object({
    pid: z.number().int().positive(),
    startToken: z
      .string()
      .optional()
      .describe('boot id + start ticks from /proc (PID reuse guard).'),
    markerName: z.string().describe('Environment variable carrying the marker.'),
    marker: z.string().describe('Its value (the attempt id).'),
    pgid: z.number().int().positive().describe('Process group (= pid: the agent leads its group).'),
  }),
  workspace: workspaceIdentitySchema,
  sandbox: locatorSandboxSchema
    .optional()
    .describe('Set when the attempt ran sandboxed: the pid is bwrap, the agent runs inside it.'),
  startedAt: iso,
  endedAt: iso.optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  exitObserved: z
    .boolean()
    .optional()
    .describe('False when the exit was seen only as the process vanishing (reattached).'),
  endedBy: z.enum(['stall', 'retry-loop', 'time-limit', 'cancel']).optional(),
  result: z.enum(['running', 'success', 'failure']).describe('running until the process ends.'),
  failureClass: z.string().optional().describe('AttemptClass from the classifier chain.'),
  evidence: z.array(z.string()).default([]).describe('The exact lines that decided the class.'),
  classifier: z.string().optional(),
  retryAfter: iso.optional(),
  sessionId: z.string().optional().describe('Native session id read from the stream.'),
});

export type AttemptLocator = z.infer<typeof locatorSchema>;
export type AttemptLocatorInput = z.input<typeof locatorSchema>;
export type WorkspaceIdentity = z.infer<typeof workspaceIdentitySchema>;

/**
 * Writes `locator.json` atomically (temp file + rename) after validating it. `fsync`
 * (default true) also flushes it to disk; the launch-time write may skip that, since a
 * dispatcher crash keeps the page cache and the final write is fsynced.
 */
export async function writeLocator(
  dir: string,
  locator: AttemptLocatorInput,
  options: { fsync?: boolean } = {},
): Promise<AttemptLocator> {
  const value = locatorSchema.parse(locator);
  const file = join(dir, ATTEMPT_FILES.locator);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  await replaceFile(file, text, { durable: options.fsync !== false });
  return value;
}

/** Reads and validates `locator.json`; a broken one is SY_STATE_CORRUPT with every problem. */
export async function readLocator(dir: string): Promise<AttemptLocator> {
  const file = join(dir, ATTEMPT_FILES.locator);
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new SwitchyardError('SY_STATE_CORRUPT', `Cannot read attempt locator ${file}.`, {
      cause,
      file,
      hint: 'The attempt directory is damaged; inspect or delete it.',
    });
  }
  const parsed = locatorSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({
      code: 'SY_STATE_CORRUPT' as const,
      message: i.message,
      file,
      path: i.path.join('.'),
    }));
    throw new SwitchyardError('SY_STATE_CORRUPT', `Attempt locator ${file} is invalid.`, {
      file,
      problems,
      hint: 'The attempt directory is damaged or from another switchyard version.',
    });
  }
  return parsed.data;
}
