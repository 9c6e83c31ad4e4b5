import { z } from 'zod';

/** How one project gate ended for a task (kept in the task state, shown by status,
 * the monitor and complete.log). */
export const projectGateResultSchema = z.object({
  name: z.string(),
  on: z.enum(['task', 'source']),
  planLoop: z.number().int().positive(),
  passed: z.boolean(),
  /** Why it passed or failed, in words (`expected exit code 0, got exit code 1`). */
  detail: z.string(),
  exitCode: z.number().int().nullable(),
  /** Workspace-relative file with the gate's full output. */
  output: z.string(),
  at: z.string(),
});

export type ProjectGateResult = z.infer<typeof projectGateResultSchema>;
