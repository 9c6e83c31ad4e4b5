import type { Command } from 'commander';
import type { ClassifyOptions } from './classify-run.js';

/** `switchyard classify`: run the classifier chain on saved output or an attempt directory. */
export function registerClassify(program: Command): void {
  program
    .command('classify')
    .argument('[attempt-dir]', 'an attempt evidence directory (locator.json + stream.log)')
    .description(
      "Classify an agent run's terminal evidence (provider-quota, context-limit, …) and print the deciding lines.",
    )
    .option(
      '--agent <agent>',
      'catalog agent identity, e.g. claude-code, codex, gemini-cli, qwen-code, copilot',
    )
    .option('--output-format <format>', 'text or jsonl (default text)')
    .option('--exit-code <n>', "the agent's exit code")
    .option('--stdout <file>', "file holding the agent's stdout")
    .option('--stderr <file>', "file holding the agent's stderr")
    .option('--signal <signal>', 'signal that ended the agent, e.g. SIGKILL')
    .option('--ended-by <why>', 'the dispatcher ended it: stall, retry-loop or cancel')
    .option(
      '--ended-at <iso-time>',
      'when it ended; relative reset times count from it (default now)',
    )
    .option(
      '--time-zone <iana>',
      'zone for reset times without one, e.g. "resets 2pm" (default: local)',
    )
    .option('--workspace <dir>', 'project whose config adds plugins (default: cwd)')
    .option('--json', 'print one JSON object: class, confidence, evidence, retryAfter, classifier')
    .addHelpText(
      'after',
      `
Only terminal evidence counts: the exit status, the final JSONL events and, when the agent
failed, the tail of stderr. Agent-specific classifiers run first, the generic one last; the
first verdict wins. Exit code 0 whatever the class; 2 for bad flags or unreadable files.

Examples:
  $ switchyard classify --agent claude-code --exit-code 1 --stdout out.txt --stderr err.txt
  $ switchyard classify --agent codex --output-format jsonl --exit-code 1 --stdout events.jsonl --stderr err.txt --json
  $ switchyard classify agent-task/.switchyard/attempts/<attempt id>   # e.g. core.format.worker.1.mx4uxl555daac1`,
    )
    .action(async (dir: string | undefined, opts: ClassifyOptions) =>
      (await import('./classify-run.js')).classifyCommand(dir, opts),
    );
}
