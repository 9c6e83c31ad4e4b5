import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proposeSetup } from './init-setup.js';

async function project(files: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sy-setup-'));
  for (const f of files) await writeFile(join(dir, f), '');
  return dir;
}

const commands = async (files: string[]) =>
  proposeSetup(await project(files)).map((s) => `${s.command.join(' ')} <- ${s.lockfile}`);

describe('proposeSetup (switchyard init)', () => {
  it('installs each ecosystem from its lockfile, frozen, from the shared store or cache', async () => {
    expect(await commands(['pnpm-lock.yaml'])).toEqual([
      'pnpm install --frozen-lockfile --prefer-offline <- pnpm-lock.yaml',
    ]);
    expect(await commands(['package-lock.json'])).toEqual([
      'npm ci --prefer-offline --no-audit --no-fund <- package-lock.json',
    ]);
    expect(await commands(['yarn.lock'])).toEqual([
      'yarn install --frozen-lockfile --prefer-offline <- yarn.lock',
    ]);
    expect(await commands(['yarn.lock', '.yarnrc.yml'])).toEqual([
      'yarn install --immutable <- yarn.lock',
    ]);
    expect(await commands(['bun.lockb'])).toEqual(['bun install --frozen-lockfile <- bun.lockb']);
    expect(await commands(['uv.lock'])).toEqual(['uv sync --frozen <- uv.lock']);
    expect(await commands(['poetry.lock'])).toEqual([
      'poetry install --no-interaction <- poetry.lock',
    ]);
    expect(await commands(['Cargo.lock'])).toEqual(['cargo fetch --locked <- Cargo.lock']);
    expect(await commands(['go.sum'])).toEqual(['go mod download <- go.sum']);
    expect(await commands([])).toEqual([]);
  });

  it('one command per ecosystem, JavaScript first; pnpm wins over a stray package-lock.json', async () => {
    expect(await commands(['go.sum', 'package-lock.json', 'pnpm-lock.yaml', 'uv.lock'])).toEqual([
      'pnpm install --frozen-lockfile --prefer-offline <- pnpm-lock.yaml',
      'uv sync --frozen <- uv.lock',
      'go mod download <- go.sum',
    ]);
  });
});
