import { Command } from 'commander';
import { registerCatalog } from './commands/catalog.js';
import { registerClassify } from './commands/classify.js';
import { registerClean } from './commands/clean.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerDemo } from './commands/demo.js';
import { registerInit } from './commands/init.js';
import { registerMonitor } from './commands/monitor.js';
import { registerPlan } from './commands/plan.js';
import { registerPlanReview } from './commands/plan-review.js';
import { registerPlugins } from './commands/plugins.js';
import { registerResolve } from './commands/resolve.js';
import { registerResume } from './commands/resume.js';
import { registerRetro } from './commands/retro.js';
import { registerRetry } from './commands/retry.js';
import { registerRun } from './commands/run.js';
import { registerSchedule } from './commands/schedule.js';
import { registerStatus } from './commands/status.js';
import { registerStore } from './commands/store.js';
import { registerSubmit } from './commands/submit.js';
import { registerTask } from './commands/task.js';
import { registerValidatePlan } from './commands/validate-plan.js';
import { registerWorker } from './commands/worker.js';
import { version } from './version.js';

/** The `switchyard` command tree. Each command module registers itself; heavy code loads lazily. */
export function buildProgram(): Command {
  const program = new Command('switchyard')
    .description(
      'Run a backlog of coding tasks (agent-task/<group>/<task>/PLAN.md) through coding-agent CLIs, ' +
        'with a validated execution catalog, failover, write-set claims, self-check and review loops.',
    )
    .version(version, '-v, --version', 'print the switchyard version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  program.addHelpText(
    'after',
    `
Exit codes:
  0    all in-scope work archived complete, or nothing wrong found
  1    internal or control-plane failure (including a held workspace lock)
  2    invalid input (flags, config, catalog, plan); nothing launched
  3    the run ended with blocked tasks
  130  interrupted (SIGINT/SIGTERM)
  141  the output pipe closed (e.g. piped into head); ends quietly, as SIGPIPE would`,
  );
  for (const register of COMMANDS) register(program);
  return program;
}

type Register = (program: Command) => void;

/** Command registrations, in help order. */
const COMMANDS: Register[] = [
  registerRun,
  registerRetry,
  registerResume,
  registerStatus,
  registerResolve,
  registerRetro,
  registerMonitor,
  registerTask,
  registerValidatePlan,
  registerPlan,
  registerCatalog,
  registerConfig,
  registerPlugins,
  registerClassify,
  registerClean,
  registerDemo,
  registerCompletion,
  registerInit,
  registerPlanReview,
  registerSchedule,
  registerStore,
  registerSubmit,
  registerWorker,
];
