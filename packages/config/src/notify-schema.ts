import { z } from 'zod';

/** Run moments a notification can be sent on. */
export const NOTIFY_EVENTS = ['blocked', 'escalated', 'run-finished'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const events = z
  .array(z.enum(NOTIFY_EVENTS))
  .min(1)
  .optional()
  .describe('Which moments to notify on (default: all of blocked, escalated, run-finished).');

/** The project config's `notify` block: webhooks and command hooks, best effort. */
export const notifySchema = z
  .strictObject({
    webhooks: z
      .array(
        z.strictObject({
          url: z.url({ protocol: /^https?$/ }).describe('Receives a POST with a JSON body.'),
          events,
          headers: z
            .record(z.string().min(1), z.string())
            .optional()
            .describe('Extra request headers (e.g. an authorization token).'),
        }),
      )
      .default([]),
    commands: z
      .array(
        z.strictObject({
          argv: z
            .array(z.string().min(1))
            .min(1)
            .describe('Run without a shell; the JSON payload is on its stdin.'),
          events,
        }),
      )
      .default([]),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe('Retries of a failed webhook delivery (exponential backoff).'),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .default(5000)
      .describe('Longest a webhook request or hook command may take.'),
    drainMs: z
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe('Longest the end of a run waits for deliveries still under way.'),
  })
  .describe(
    'Notifications on blocked/escalated tasks and at the end of a run. Best effort: a failed delivery is reported on stderr and never changes the run.',
  );

export type NotifyConfig = z.output<typeof notifySchema>;
