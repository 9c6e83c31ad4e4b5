import type { Command } from 'commander';
import type { ResumeOptions } from './resume-run.js';

const RESUME_HELP = `
Every \`switchyard run\` is a session: agent-task/.switchyard/sessions/<id>/ holds plan.json
(its scope and run options), status.json (running, finished, blocked, interrupted, failed;
"crashed" when its process is gone) and events.jsonl. Resume runs the session again with
the same options (task group, --with, --max-parallel, --execution-catalog) and the same
session id. The engine continues from the persisted state: archived tasks stay archived,
live agents are re-attached, finished attempts are judged from their evidence — nothing
done is run again. --retry-blocked and retry lists are not repeated (use
\`switchyard resolve\` or \`switchyard retry\` for blocked tasks).

A session of a YAML plan keeps the plan text as run in plan.json (\`yamlPlan\`: file,
sha256, source, the parsed plan). Resume runs that stored plan, never the file as it is
now; a plan file edited or deleted since the session started is reported on stderr.

Exit codes as for \`switchyard run\`; 2 when the session is unknown or still running,
0 (with a note) when it already finished.

Examples:
  $ switchyard resume
  $ switchyard resume s-20261201T020000Z-1a2b --json`;

/** `switchyard resume [session-id]`: continue a crashed, interrupted or blocked session. */
export function registerResume(program: Command): void {
  program
    .command('resume')
    .description(
      'Continue a crashed or interrupted session (default: the latest); nothing done is redone.',
    )
    .argument('[session-id]', 'the session to continue (`switchyard status --sessions` lists them)')
    .option(
      '--workspace <dir>',
      'folder holding agent-task/ (default: found from the current folder upward)',
    )
    .option('--monitor', 'serve the live monitor page for the run')
    .option('--json', 'machine output: JSONL events')
    .addHelpText('after', RESUME_HELP)
    .action(async (id: string | undefined, opts: ResumeOptions) =>
      (await import('./resume-run.js')).resumeCommand(id, opts),
    );
}
