import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJsonFile } from './read-json-file.js';

const schema = z.object({ id: z.string() });
const label = { what: 'test file', hint: 'delete it' };

function fileWith(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sy-read-json-')), 'f.json');
  writeFileSync(file, text);
  return file;
}

function errorOf(file: string): SwitchyardError {
  try {
    readJsonFile(file, schema, label);
  } catch (error) {
    if (SwitchyardError.is(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('readJsonFile', () => {
  it('returns undefined for a missing file and the value for a valid one', () => {
    expect(readJsonFile(join(tmpdir(), 'sy-no-such-file.json'), schema, label)).toBeUndefined();
    expect(readJsonFile(fileWith('{"id":"a"}'), schema, label)).toEqual({ id: 'a' });
  });

  it('a hand edit that is not JSON is SY_STATE_CORRUPT with the file, not an internal error', () => {
    const file = fileWith('{"id": "a",');
    const error = errorOf(file);
    expect(error.code).toBe('SY_STATE_CORRUPT');
    expect(error.message).toMatch(/Cannot read test file: not JSON/);
    expect(error.file).toBe(file);
  });

  it('a value of the wrong shape names the JSON path', () => {
    const error = errorOf(fileWith('{"id": 7}'));
    expect(error.code).toBe('SY_STATE_CORRUPT');
    expect(error.message).toMatch(/Cannot read test file: id: /);
  });
});
