import type { SourceCheck } from '@switchyard/core';
import { execa } from 'execa';

const TAIL = 4000;

/**
 * A source check that runs `argv` (no shell, stdin closed) in the source workspace and
 * passes when it exits 0; the detail is the end of its combined output.
 */
export function commandCheck(argv: readonly string[], env?: Record<string, string>): SourceCheck {
  return async (cwd) => {
    const [file = '', ...args] = argv;
    const result = await execa(file, args, {
      cwd,
      stdin: 'ignore',
      all: true,
      reject: false,
      ...(env ? { env } : {}),
    });
    const output = typeof result.all === 'string' ? result.all : '';
    const ok = result.exitCode === 0;
    const detail = `$ ${argv.join(' ')} → ${result.exitCode ?? result.signal ?? 'not started'}\n${output.slice(-TAIL)}`;
    return { ok, detail };
  };
}
