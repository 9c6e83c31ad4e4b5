import type { NotifyConfig, NotifyEvent } from '@switchyard/config';
import type { RunEvent } from '@switchyard/core';
import { execa } from 'execa';
import pRetry, { AbortError } from 'p-retry';

/** One notification as webhooks receive it (POST body) and hook commands read it (stdin). */
export interface NotificationPayload {
  schema_version: 1;
  event: NotifyEvent;
  workspace: string;
  runId: string;
  at: string;
  task?: string;
  stage?: string;
  reason?: string;
  code?: string;
  question?: string;
  bundle?: string;
  blockedDownstream?: string[];
  exitCode?: number;
  counts?: Record<string, number>;
  blocked?: { task: string; reason: string }[];
}

/** Sends notifications for run events; never throws and never blocks the run. */
export interface Notifier {
  onEvent(event: RunEvent): void;
  /** Waits for deliveries under way, at most `drainMs`; what is left is abandoned. */
  close(): Promise<void>;
}

/** Where a delivery failure is reported (stderr in the CLI). */
export type NotifyWarn = (message: string) => void;

/** The notification of a run event, or undefined when the event is not one of the moments. */
export function payloadOf(event: RunEvent, workspace: string): NotificationPayload | undefined {
  const base = { schema_version: 1 as const, workspace, runId: event.runId, at: event.at };
  switch (event.type) {
    case 'task.blocked':
      return {
        ...base,
        event: 'blocked',
        task: event.task,
        stage: event.stage,
        reason: event.reason,
      };
    case 'task.escalated':
      return {
        ...base,
        event: 'escalated',
        task: event.task,
        code: event.code,
        question: event.question,
        bundle: event.bundle,
        blockedDownstream: event.blockedDownstream,
      };
    case 'run.finished':
      return {
        ...base,
        event: 'run-finished',
        exitCode: event.exitCode,
        counts: event.counts,
        blocked: event.blocked,
      };
    default:
      return undefined;
  }
}

/** A delivery that failed in a way a retry cannot fix (a 4xx other than 408/429). */
function permanent(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * A notifier for the project config's `notify` block. Webhooks get a POST with the JSON
 * payload, retried with exponential backoff on network errors, timeouts, 408/429 and 5xx;
 * hook commands run without a shell with the payload on stdin and `SWITCHYARD_NOTIFY_EVENT`
 * set. Every failure is only reported through `warn`.
 */
export function createNotifier(
  config: NotifyConfig | undefined,
  workspace: string,
  warn: NotifyWarn,
  options: { minRetryDelayMs?: number } = {},
): Notifier {
  const pending = new Set<Promise<void>>();
  const stop = new AbortController();
  const track = (work: Promise<void>) => {
    const settled = work.catch((error: unknown) =>
      warn(error instanceof Error ? error.message : String(error)),
    );
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
  };
  const wants = (events: readonly NotifyEvent[] | undefined, event: NotifyEvent) =>
    !events || events.includes(event);
  return {
    onEvent(event) {
      if (!config) return;
      const payload = payloadOf(event, workspace);
      if (!payload) return;
      const body = JSON.stringify(payload);
      for (const hook of config.webhooks) {
        if (!wants(hook.events, payload.event)) continue;
        track(postWebhook(hook, body, payload.event, config, stop.signal, options));
      }
      for (const hook of config.commands) {
        if (!wants(hook.events, payload.event)) continue;
        track(runHookCommand(hook.argv, body, payload.event, workspace, config, stop.signal));
      }
    },
    async close() {
      if (pending.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, config?.drainMs ?? 0);
      });
      await Promise.race([Promise.all([...pending]), deadline]);
      clearTimeout(timer);
      if (pending.size > 0) {
        warn(
          `notify: ${pending.size} delivery(ies) still under way at the end of the run were abandoned`,
        );
        stop.abort();
        await Promise.all([...pending]);
      }
    },
  };
}

type Webhook = NotifyConfig['webhooks'][number];

/** One POST of the payload, retried with backoff; a failure names the webhook (redacted). */
function postWebhook(
  hook: Webhook,
  body: string,
  event: string,
  config: NotifyConfig,
  stop: AbortSignal,
  options: { minRetryDelayMs?: number },
): Promise<void> {
  return pRetry(
    async () => {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...hook.headers },
        body,
        signal: AbortSignal.any([stop, AbortSignal.timeout(config.timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.ok) return;
      const failure = new Error(`HTTP ${response.status}`);
      throw permanent(response.status) ? new AbortError(failure) : failure;
    },
    {
      retries: config.retries,
      minTimeout: options.minRetryDelayMs ?? 500,
      factor: 2,
      signal: stop,
    },
  ).catch((error: unknown) => {
    throw new Error(
      `notify: webhook ${redactUrl(hook.url)} (${event}) failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}

/** One run of a hook command, without a shell, the payload on its stdin. */
function runHookCommand(
  argv: readonly string[],
  body: string,
  event: string,
  workspace: string,
  config: NotifyConfig,
  stop: AbortSignal,
): Promise<void> {
  return execa(argv[0]!, argv.slice(1), {
    input: body,
    cwd: workspace,
    env: { SWITCHYARD_NOTIFY_EVENT: event },
    timeout: config.timeoutMs,
    cancelSignal: stop,
    stdout: 'ignore',
    stderr: 'pipe',
    reject: true,
  }).then(
    () => undefined,
    (error: { shortMessage?: string; message: string }) => {
      throw new Error(
        `notify: command ${argv[0]} (${event}) failed: ${error.shortMessage ?? error.message}`,
      );
    },
  );
}

/** A URL without its credentials or query (tokens often ride there). */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
