import { readFileSync } from 'node:fs';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { hiddenShell } from './shell-wrappers.js';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';

/** argv forms that run a command line through a shell, or inline code, by other programs. */
const SMUGGLED: string[][] = [
  ['find', '.', '-exec', 'sh', '-c', 'id', ';'],
  ['find', '.', '-maxdepth', '0', '-execdir', 'id', ';'],
  ['find', '/', '-ok', 'rm', '{}', ';'],
  ['script', '-qc', 'id', '/dev/null'],
  ['script', '--command', 'id'],
  ['su', 'me', '-c', 'id'],
  ['su', '-', 'me', '-lc', 'id'],
  ['runuser', '-u', 'me', '--', 'sh', '-c', 'id'],
  ['runuser', '-l', 'me', '-c', 'id'],
  ['git', '-c', 'core.pager=sh -c id', 'log'],
  ['git', '-c', 'core.sshCommand=id', 'fetch'],
  ['git', '-c', 'alias.x=!id', 'x'],
  ['git', '-ccore.editor=id', 'commit'],
  ['git', '--config-env=core.pager=PAGER', 'log'],
  ['git', 'rebase', '--exec', 'id', 'main'],
  ['git', 'bisect', 'run', 'id'],
  ['git', 'submodule', 'foreach', 'id'],
  ['git', 'clone', '--upload-pack=id', 'x'],
  ['npx', '-c', 'id'],
  ['npx', '--call', 'id'],
  ['npm', 'exec', '-c', 'id'],
  ['pnpm', '-c', 'exec', 'id'],
  ['ssh', 'host', 'id'],
  ['ssh', '-p', '22', '-i', 'key', 'me@host', 'agent', '{prompt}'],
  ['ssh', '-o', 'ProxyCommand=id', 'host'],
  ['sshpass', '-p', 'x', 'ssh', 'host', 'id'],
  ['sudo', '-s', 'id'],
  ['sudo', '-i', 'agent'],
  ['doas', '-s'],
  ['flock', '/tmp/l', '-c', 'id'],
  ['watch', 'id'],
  ['parallel', 'id', ':::', 'a'],
  ['tmux', 'new-session', 'id'],
  ['sg', 'staff', 'id'],
  ['tar', '-xf', 'a.tar', '--to-command=id'],
  ['tar', '--checkpoint=1', '--checkpoint-action=exec=id', '-cf', '/dev/null', '.'],
  ['tar', '-I', 'id', '-xf', 'a.tar'],
  ['rsync', '-e', 'sh -c id', 'a', 'b'],
  ['rsync', '--rsync-path=id', 'a', 'host:b'],
  ['zip', '-T', '-TT', 'id', 'a.zip', 'x'],
  ['sed', '-n', '1e id', '/etc/hostname'],
  ['sed', 's/x/id/e', 'file'],
  ['vim', '-c', '!id', '-c', 'q'],
  ['nvim', '+!id'],
  ['gdb', '-batch', '-ex', 'shell id'],
  ['socat', '-', 'EXEC:id'],
  ['socat', '-', 'SYSTEM:id'],
  ['nc', '-e', '/bin/sh', 'host', '1'],
  ['ncat', '--sh-exec', 'id', 'host', '1'],
  ['docker', 'run', '--rm', 'img', 'sh', '-c', 'id'],
  ['kubectl', 'exec', 'pod', '--', 'bash', '-c', 'id'],
  ['chrt', '10', 'sh', '-c', 'id'],
  ['unshare', '-r', 'sh', '-c', 'id'],
  ['systemd-run', '--user', '-p', 'X=1', 'bash', '-c', 'id'],
  ['faketime', '+1d', 'sh', '-c', 'id'],
  ['cmd.exe', '/k', 'id'],
  ['pwsh', '-EncodedCommand', 'aQBkAA=='],
  ['powershell', '-enc', 'aQBkAA=='],
  ['node', '--eval=require("child_process").execSync("id")'],
  ['node', '--import=data:text/javascript,import "child_process"'],
  ['python3', '-cimport os'],
  ['expect', '-c', 'spawn id'],
  ['julia', '-e', 'run(`id`)'],
  ['emacs', '--batch', '--eval', '(shell-command "id")'],
  ['make', '--eval=$(shell id)'],
  ['tsx', '-e', 'x'],
  ['elixir', '-e', 'System.cmd("id", [])'],
  ['lua5.4', '-eos.execute("id")'],
  ['env', 'X=1', 'nice', 'script', '-c', 'id'],
];

const ACCEPTED: string[][] = [
  ['claude', '-p', '{prompt}', '--model', '{model}', '--output-format', 'stream-json'],
  ['codex', 'exec', '--json', '--model', '{model}', '{prompt}'],
  ['npx', '-y', '@google/gemini-cli', '--prompt', '{prompt}'],
  ['npx', '--yes', 'some-agent', '{prompt}'],
  ['env', 'NO_COLOR=1', 'nice', '-n', '10', 'qwen', '-p', '{prompt}'],
  ['node', '/opt/agent/cli.js', '-p', '{prompt}', '-c', 'config.json'],
  ['python3', '-m', 'agent', '{prompt}'],
  ['git', '--no-pager', 'log'],
  ['ssh-keygen', '-l'],
  ['sed', '-n', 'p', 'file'],
  ['timeout', '3600', 'agent', '--watch', '{prompt}'],
  ['agent', '--mode', 'find', '{prompt}'],
];

describe('catalog lint: programs that run a command line or inline code of their own', () => {
  it('finds each form', () => {
    expect(SMUGGLED.filter((argv) => hiddenShell(argv) === undefined)).toEqual([]);
    expect(ACCEPTED.filter((argv) => hiddenShell(argv) !== undefined)).toEqual([]);
  });

  it('refuses every form, in command, resume_command and preflight_command', () => {
    for (const argv of SMUGGLED) {
      expect(hiddenShell(argv), JSON.stringify(argv)).toBeDefined();
      for (const field of ['command', 'resume_command', 'preflight_command']) {
        const raw = validCatalog();
        (raw.targets['cloud-a'].runtime as Record<string, unknown>)[field] = [...argv, '{prompt}'];
        const { problems } = validateCatalog(raw, { checkExecutables: false });
        expect(
          problems.some(
            (p) =>
              p.path === `targets.cloud-a.runtime.${field}.0` &&
              /runs a shell or inline code/.test(p.message),
          ),
          `${field}: ${JSON.stringify(argv)}`,
        ).toBe(true);
      }
    }
    expect(SMUGGLED.length).toBeGreaterThanOrEqual(30);
  });

  it('accepts agent commands, wrappers around them, and the bundled catalog', () => {
    for (const argv of ACCEPTED) expect(hiddenShell(argv), JSON.stringify(argv)).toBeUndefined();
    const bundled = JSON.parse(readFileSync(assetPath('default-execution-catalog.json'), 'utf8'));
    expect(validateCatalog(bundled, { checkExecutables: false }).problems).toEqual([]);
  });
});
