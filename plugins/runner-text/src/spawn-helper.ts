// The spawn helper: a small long-lived process that starts agents for the dispatcher (see
// spawn-client.ts). libuv spawns by fork(), and forking the dispatcher copies its page tables
// and makes every page it writes afterwards fault; forking this process (tiny heap, nothing
// loaded) is several times cheaper, and that cost leaves the dispatcher's main thread.
//
// Protocol: JSON lines. Request on stdin: { id, file, args, cwd, env, stdout, stderr }.
// Optional `stdin`: a file opened as the agent's stdin (a prompt too long for argv).
// Replies on stdout: { id, pid, startTime } once started, then { id, exitCode, signal } when
// it ends; or { id, error, code } when it could not start. Each agent leads its own process
// group and session (detached), stdin /dev/null, stdout/stderr appended to its files: it keeps
// running whatever happens to this process or the dispatcher. stdin closing (the dispatcher
// exited or died) ends the helper at once; it never signals an agent.
//
// Plain Node: only node: imports (it must stay small and must not load the core). It runs as
// built JS, or as this .ts file through Node's type stripping (erasable syntax only).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';

// As owned-append.ts (this file imports only node: modules): append owner-only, never through
// a symlink or into a FIFO planted at the evidence file's name.
const EVIDENCE_APPEND =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  constants.O_NOFOLLOW |
  constants.O_NONBLOCK;
const EVIDENCE_MODE = 0o600;
// The prompt file given as stdin: read-only, never through a symlink.
const PROMPT_READ = constants.O_RDONLY | constants.O_NOFOLLOW;

interface SpawnRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdout: string;
  stderr: string;
  stdin?: string;
}

function reply(message: Record<string, unknown>): void {
  // stdout is a pipe: writes are synchronous on Linux, so replies keep their order
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** starttime (field 22 of /proc/<pid>/stat), read before this process can reap the child. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function describe(error: unknown): { error: string; code?: string } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code ? { error: message, code } : { error: message };
}

function launch(request: SpawnRequest): void {
  const { id } = request;
  let out: number | undefined;
  let err: number | undefined;
  let input: number | undefined;
  let child: ChildProcess;
  try {
    out = openSync(request.stdout, EVIDENCE_APPEND, EVIDENCE_MODE);
    err = openSync(request.stderr, EVIDENCE_APPEND, EVIDENCE_MODE);
    if (request.stdin !== undefined) input = openSync(request.stdin, PROMPT_READ);
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: [input ?? 'ignore', out, err],
    });
  } catch (error) {
    reply({ id, ...describe(error) });
    return;
  } finally {
    // the child holds its own copies of the fds
    if (out !== undefined) closeSync(out);
    if (err !== undefined) closeSync(err);
    if (input !== undefined) closeSync(input);
  }
  const pid = child.pid;
  if (pid === undefined) {
    child.once('error', (error) => reply({ id, ...describe(error) }));
    return;
  }
  child.on('error', () => {
    // after a successful start only kill() can fail; this process never signals agents
  });
  reply({ id, pid, startTime: startTimeOf(pid) });
  child.once('exit', (exitCode, signal) => reply({ id, exitCode, signal }));
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let newline = buffered.indexOf('\n');
  while (newline >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (line.length > 0) launch(JSON.parse(line) as SpawnRequest);
    newline = buffered.indexOf('\n');
  }
});
// The dispatcher is gone: agents carry on (recovery re-attaches them); nothing left to do.
process.stdin.on('end', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));
