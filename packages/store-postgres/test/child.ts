import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./holder-child.mjs', import.meta.url));

/** A running holder-child process and the JSON lines it printed so far. */
export interface Holder {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** Resolves with the first line that satisfies `test` (rejects if the child exits first). */
  until(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  send(line: string): void;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts `holder-child.mjs` with the real node binary (signals reach it, not a shim). */
export function startHolder(args: string[]): Holder {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  void exited.then(() => {
    for (const wake of waiters.splice(0)) wake();
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    lines,
    exited,
    send: (line) => child.stdin?.write(`${line}\n`),
    kill: (signal) => {
      if (!done) child.kill(signal);
    },
    async until(test) {
      for (;;) {
        const found = lines.find(test);
        if (found) return found;
        if (done) throw new Error(`the child ended (${child.exitCode}) before: ${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
