import { z } from 'zod';
import { parseAssertion } from '../task/definition-of-done.js';

/**
 * A project gate in the project config: a command the project wants to pass after every task
 * (tests, lint), besides each task's own definition of done. Gates come only from the
 * project config a human wrote, never from a plan an agent wrote.
 */
export const projectGateSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only')
      .describe('Short name, shown in status, the monitor, complete.log and corrections.'),
    command: z
      .array(z.string().min(1))
      .min(1)
      .describe('The command as argv (run without a shell), e.g. ["pnpm", "test"].'),
    assertion: z
      .string()
      .default('exit code 0')
      .superRefine((text, ctx) => {
        const parsed = parseAssertion(text);
        if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
      })
      .describe(
        'When the gate passes: `exit code N`, `stdout contains "text"` or `stdout matches /re/`.',
      ),
    on: z
      .enum(['task', 'source'])
      .default('task')
      .describe(
        '"task" = in the task\'s working tree after its own definition of done; "source" = on the source workspace after the task\'s work is applied there.',
      ),
    tests: z
      .boolean()
      .optional()
      .describe(
        'This gate runs the project\'s tests: a `tests: required` plan without a definition of done is judged on its output (its runner must report at least one test). A gate named "test" or "tests" is the test gate unless another one says `tests: true`.',
      ),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Longest run of the command; a gate that takes longer fails.'),
  })
  .describe('A project quality gate.');

export type ProjectGate = z.output<typeof projectGateSchema>;
export type ProjectGateInput = z.input<typeof projectGateSchema>;

/**
 * The project's test gate among `gates`: the `task` gate (it runs before the apply, in the
 * task's tree) marked `tests: true`, else the one named `test` or `tests`. Undefined when the
 * project has none.
 */
export function testGateOf(gates: readonly ProjectGate[]): ProjectGate | undefined {
  const task = gates.filter((g) => g.on === 'task');
  return task.find((g) => g.tests === true) ?? task.find((g) => /^tests?$/.test(g.name));
}
