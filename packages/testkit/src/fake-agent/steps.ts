import { spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { FakeAgentExit, type FakeAgentIo, pause } from './agent-io.js';
import { defaultRetryLine, faultOutput } from './faults.js';
import type { FormatPrinter } from './formats.js';
import type { FakeAgentFormat, FakeAgentStep } from './scenario.js';

/** What steps act on. */
export interface StepContext {
  format: FakeAgentFormat;
  /** CLI whose text-mode faults to replay. */
  textOf: string;
  printer: FormatPrinter;
  sessionId: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** Where output goes and what waits can be stopped by (a process's own, or a runner's). */
  io: FakeAgentIo;
}

function out(ctx: StepContext, lines: string[], fd: 1 | 2 = 1): void {
  for (const line of lines) ctx.io.write(fd, `${line}\n`);
}

/** `${NAME}` replaced by the environment's value (empty when unset). */
function expand(ctx: StepContext, text: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => ctx.env[name] ?? '');
}

/** A step's path: `${NAME}` expanded, then resolved against the workspace. */
function pathOf(ctx: StepContext, path: string): string {
  return resolve(ctx.workspace, expand(ctx, path));
}

/**
 * Runs a step's file operation on `path`; a missing path fails with a message naming the step
 * and the path (like a step missing its environment), not Node's bare ENOENT.
 */
function onExisting(step: string, path: string, operation: () => void): void {
  try {
    operation();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(`fake agent: ${step}: no such file or folder: ${path}`, { cause: error });
  }
}

function requireEnv(ctx: StepContext, name: string): string {
  const value = ctx.env[name];
  if (!value) throw new Error(`fake agent: step needs ${name} in the environment`);
  return value;
}

/** Runs one step. Resolves when done; throws FakeAgentExit to end the run. */
export async function runStep(step: FakeAgentStep, ctx: StepContext): Promise<void> {
  // A step has exactly one key (the scenario schema's strict objects): one group takes it.
  if (runFileStep(step, ctx)) return;
  if (await runProcessStep(step, ctx)) return;
  await runOutputStep(step, ctx);
}

/** What the agent prints: messages, tool calls, raw lines, faults, floods and its result. */
async function runOutputStep(step: FakeAgentStep, ctx: StepContext): Promise<void> {
  if ('say' in step) return out(ctx, ctx.printer.say(step.say));
  if ('tool' in step) return out(ctx, ctx.printer.tool(step.tool.name, step.tool.input));
  if ('print' in step) return out(ctx, [step.print], step.stream === 'stderr' ? 2 : 1);
  if ('printEnv' in step)
    return out(
      ctx,
      [`${step.printEnv}=${ctx.env[step.printEnv] ?? ''}`],
      step.stream === 'stderr' ? 2 : 1,
    );
  if ('fault' in step) {
    const fault = faultOutput(ctx.format, step.fault, ctx.sessionId, ctx.textOf);
    out(ctx, fault.stdout, 1);
    out(ctx, fault.stderr, 2);
    throw new FakeAgentExit(step.exitCode ?? fault.exitCode);
  }
  if ('sayEvery' in step) {
    for (;;) {
      out(ctx, ctx.printer.say(step.sayEvery.text));
      await pause(ctx.io, step.sayEvery.intervalMs);
    }
  }
  if ('retryForever' in step) {
    for (let attempt = 1; ; attempt++) {
      out(ctx, [step.retryForever.line ?? defaultRetryLine(ctx.format, attempt)], 2);
      await pause(ctx.io, step.retryForever.intervalMs);
    }
  }
  if ('flood' in step) return flood(ctx, step.flood);
  if ('result' in step) {
    out(ctx, ctx.printer.result(step.result, step.usage));
    throw new FakeAgentExit(0);
  }
}

/** Writes at least `bytes` of message lines of about `lineBytes` each, a megabyte at a time. */
function flood(ctx: StepContext, { bytes, lineBytes }: { bytes: number; lineBytes: number }): void {
  const line = 'x'.repeat(Math.max(1, lineBytes - 40));
  const sample = `${ctx.printer.say(line)[0]!}\n`;
  const per = Math.max(1, Math.floor((1 << 20) / sample.length));
  const block = sample.repeat(per);
  let written = 0;
  while (written < bytes) {
    ctx.io.write(1, block);
    written += block.length;
  }
}

/** What the agent changes in the workspace (and its plan and review files); false for other steps. */
function runFileStep(step: FakeAgentStep, ctx: StepContext): boolean {
  if ('write' in step) {
    const file = pathOf(ctx, step.write.path);
    mkdirSync(dirname(file), { recursive: true });
    if (step.write.append) appendFileSync(file, step.write.content);
    else writeFileSync(file, step.write.content);
    out(ctx, ctx.printer.tool('Write', { file_path: file }));
  } else if ('link' in step) {
    const path = pathOf(ctx, step.link.path);
    mkdirSync(dirname(path), { recursive: true });
    rmSync(path, { force: true });
    if (step.link.hard) linkSync(pathOf(ctx, step.link.target), path);
    else symlinkSync(expand(ctx, step.link.target), path);
    out(ctx, ctx.printer.tool('Bash', { command: `ln ${step.link.hard ? '' : '-s '}… ${path}` }));
  } else if ('copy' in step) {
    const [from, to] = [pathOf(ctx, step.copy.from), pathOf(ctx, step.copy.to)];
    onExisting('copy', from, () => lstatSync(from));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(from, to, { recursive: true });
    out(ctx, ctx.printer.tool('Bash', { command: `cp -r … ${to}` }));
  } else if ('remove' in step) {
    rmSync(pathOf(ctx, step.remove), { recursive: true, force: true });
    out(ctx, ctx.printer.tool('Bash', { command: `rm -rf ${pathOf(ctx, step.remove)}` }));
  } else if ('chmod' in step) {
    const path = pathOf(ctx, step.chmod.path);
    onExisting('chmod', path, () => chmodSync(path, Number.parseInt(step.chmod.mode, 8)));
    out(ctx, ctx.printer.tool('Bash', { command: `chmod ${step.chmod.mode} ${path}` }));
  } else if ('fillChecklist' in step) {
    const plan = requireEnv(ctx, 'SWITCHYARD_PLAN');
    const value = step.fillChecklist === true ? '' : ` ${step.fillChecklist}`;
    const text = readFileSync(plan, 'utf8').replace(/^(\s*[-*] )\[ \](.*)$/gm, `$1[x]$2${value}`);
    writeFileSync(plan, text);
    out(ctx, ctx.printer.tool('Edit', { file_path: plan }));
  } else if ('review' in step) {
    writeFileSync(requireEnv(ctx, 'SWITCHYARD_REVIEW_FILE'), step.review);
    if (step.nextPlan !== undefined)
      writeFileSync(requireEnv(ctx, 'SWITCHYARD_NEXT_PLAN'), step.nextPlan);
  } else return false;
  return true;
}

/** Time and processes: waits, hangs, exits, signals and spawned grandchildren; false for other steps. */
async function runProcessStep(step: FakeAgentStep, ctx: StepContext): Promise<boolean> {
  if ('sleep' in step) await pause(ctx.io, step.sleep);
  else if ('hang' in step) for (;;) await pause(ctx.io, 1 << 30);
  else if ('waitFor' in step) {
    const file = resolve(ctx.workspace, step.waitFor);
    while (!existsSync(file)) await pause(ctx.io, 25);
  } else if ('exit' in step) throw new FakeAgentExit(step.exit);
  else if ('kill' in step) await ctx.io.kill(step.kill);
  else if ('spawn' in step) {
    for (let i = 0; i < step.spawn.count; i++) {
      const child = spawn('sleep', [String(step.spawn.sleepMs / 1000)], {
        stdio: 'ignore',
        detached: step.spawn.detached, // setsid(2): a new session and process group
      });
      child.unref();
      if (step.spawn.pidFile && child.pid !== undefined)
        appendFileSync(resolve(ctx.workspace, step.spawn.pidFile), `${child.pid}\n`);
    }
  } else return false;
  return true;
}
