import { join } from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { parsePort } from '../monitor-server.js';

/** Options of `switchyard demo`. */
export interface DemoOptions {
  dir?: string;
  json?: boolean;
  monitor?: boolean;
  port?: number;
}

/** `switchyard demo`: the bundled backlog through the real dispatcher, with fake agents. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'Run a bundled six-task backlog through the real dispatcher with scripted fake agents.',
    )
    .option(
      '--dir <dir>',
      'where to create the demo workspace (new or empty; default: a temp folder)',
    )
    .option('--json', 'print the run as JSONL events instead of the human view')
    .option(
      '--monitor',
      'show the run in the browser monitor (prints monitor_url; on a terminal it stays up until Ctrl-C)',
    )
    .option(
      '--port <n>',
      'with --monitor: port on 127.0.0.1 (default: a random free port)',
      parsePort,
    )
    .addHelpText(
      'after',
      `
The demo copies a small project ("tally", a word counter) with six tasks in three groups
into a fresh git repository and runs \`switchyard run\` on it. The agents are the testkit's
fake agent (no API keys, no network), scripted so that the run shows:
  - dependency order       cli/main waits for core/count and core/format
  - a claim collision      core/count and core/format both edit src/index.js: serialized
  - a quota failover       core/format's first target answers 429; the next candidate takes over
  - a review loop          cli/main's first review requests changes and writes PLAN-2.md
  - a write-set correction docs/readme's first worker also writes TODO.md: reset, corrected
Every task works in a git worktree of its own and lands as one commit. Every task ends
archived; exit 0. Then look at the archive, the work logs, the evidence,
\`switchyard status\` and \`git log\` in the workspace.

Examples:
  $ switchyard demo
  $ switchyard demo --dir ./switchyard-demo
  $ switchyard demo --monitor            # watch it live in a browser`,
    )
    .action(async (opts: DemoOptions) => {
      const { createDemoWorkspace } = await import('../demo-workspace.js');
      const ws = await createDemoWorkspace(opts.dir);
      const say = (line = '') => {
        if (!opts.json) process.stdout.write(`${line}\n`);
      };
      say(`${pc.bold('switchyard demo')}: six tasks of a small word-count project, in ${ws.dir}`);
      say(
        '  fake agents play three catalog targets: swift-cloud, steady-cloud (worker) and reviewer',
      );
      say('');
      const { liveRun } = await import('../live-run.js');
      const { startAnnouncedMonitor, untilInterrupted } = await import('../monitor-server.js');
      // Started before the run, so the page shows it from the first task on; its actions
      // reach the run's dispatcher while it runs.
      const { RunControl } = await import('@switchyard/engine');
      const control = opts.monitor ? new RunControl() : undefined;
      const monitor = opts.monitor
        ? await startAnnouncedMonitor(ws.dir, { ...opts, control })
        : undefined;
      try {
        const code = await liveRun({
          workspace: ws.dir,
          executionCatalog: ws.catalog,
          ...(control ? { control } : {}),
          ...(opts.json ? { json: true } : {}),
        });
        process.exitCode = code;
        if (code === 0) say(whereToLook(ws.dir, ws.git));
        if (monitor && process.stdout.isTTY && !opts.json) {
          say(`The monitor stays up at ${monitor.url} — Ctrl-C to stop.`);
          await untilInterrupted();
        }
      } finally {
        await monitor?.close();
      }
    });
}

function whereToLook(dir: string, git: boolean): string {
  const rel = (...p: string[]) => join(dir, ...p);
  return [
    '',
    pc.bold('Where to look'),
    `  archive      ${rel('agent-task', 'archive')}/<group>/<task>/  (PLAN, reviews, complete.log)`,
    `  review loop  ${rel('agent-task', 'archive', 'cli', 'main')}/CODE_REVIEW-1.md -> PLAN-2.md -> CODE_REVIEW-2.md`,
    `  work logs    ${rel('agent-task', 'archive')}/<group>/work_log_1.log  (START/FINISH rows per attempt)`,
    `  evidence     ${rel('agent-task', '.switchyard', 'attempts')}/  (the failed quota attempt is kept: locator.json, stream.log)`,
    `  events       ${rel('agent-task', '.switchyard', 'events.jsonl')}`,
    `  status       switchyard status --workspace ${dir}`,
    ...(git
      ? [
          `  the code     git -C ${dir} log --stat   # one commit per task, trailers Switchyard-Task/-Targets/-Attempts`,
        ]
      : []),
    '',
  ].join('\n');
}
