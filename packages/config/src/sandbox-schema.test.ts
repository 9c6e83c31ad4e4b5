import { describe, expect, it } from 'vitest';
import { sandboxForTarget, sandboxSchema } from './sandbox-schema.js';

describe('sandbox config', () => {
  it('"none", or bwrap with defaults; paths must be absolute or ~/; unknown keys refused', () => {
    expect(sandboxSchema.parse('none')).toBe('none');
    expect(sandboxSchema.parse({ mode: 'bwrap' })).toMatchObject({
      mode: 'bwrap',
      writable: [],
      network: 'host',
      hide: expect.arrayContaining(['~/.ssh', '~/.aws', '~/.gnupg', '~/.config/gh']),
    });
    const bad = sandboxSchema.safeParse({ mode: 'bwrap', writable: ['cache'], extra: 1 });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('must be an absolute path or start with');
  });

  it('a target override wins over the project sandbox', () => {
    const config = {
      sandbox: sandboxSchema.parse({ mode: 'bwrap' }),
      sandboxTargets: { local: 'none' as const },
    };
    expect(sandboxForTarget(config, 'local')).toBe('none');
    expect(sandboxForTarget(config, 'cloud')).toMatchObject({ mode: 'bwrap' });
  });
});
