import { describe, expect, it } from 'vitest';
import { canonicalRemoteUrl } from './remote-url.js';

describe('canonicalRemoteUrl', () => {
  it('writes every spelling of one hosted repository the same way', () => {
    const spellings = [
      'git@github.com:o/r.git',
      'git@github.com:o/r',
      'github.com:o/r.git',
      'git@GitHub.COM:o/r.git/',
      'ssh://git@github.com/o/r.git',
      'ssh://git@github.com:22/o/r',
      'git+ssh://git@github.com/o/r.git',
      'ssh+git://github.com/o/r',
      'https://github.com/o/r',
      'https://github.com/o/r.git',
      'https://github.com/o/r/',
      'https://github.com/o/r.git/',
      'https://GITHUB.com:443/o/r.git',
      'https://user:secret-token@github.com/o/r.git',
      'https://x-access-token@github.com/o/r',
      'http://github.com:80/o/r',
      'git://github.com/o/r.git',
      'git://github.com:9418/o/r',
      'https://github.com//o//r.git',
      '  https://github.com/o/r.git\n',
    ];
    for (const url of spellings) expect(canonicalRemoteUrl(url), url).toBe('github.com/o/r');
  });

  it('keeps what tells repositories apart: the path, its case, and a port that is not the default', () => {
    expect(canonicalRemoteUrl('git@github.com:o/other.git')).toBe('github.com/o/other');
    expect(canonicalRemoteUrl('https://github.com/O/R')).toBe('github.com/O/R');
    expect(canonicalRemoteUrl('https://github.com/o/r.github.io.git')).toBe(
      'github.com/o/r.github.io',
    );
    expect(canonicalRemoteUrl('ssh://git@git.example.com:2222/team/r.git')).toBe(
      'git.example.com:2222/team/r',
    );
    expect(canonicalRemoteUrl('https://git.example.com:8443/team/r')).toBe(
      'git.example.com:8443/team/r',
    );
    expect(canonicalRemoteUrl('https://git.example.com:22/team/r')).toBe(
      'git.example.com:22/team/r',
    );
    expect(canonicalRemoteUrl('git@gitlab.example.com:group/sub/r.git')).toBe(
      canonicalRemoteUrl('https://gitlab.example.com/group/sub/r'),
    );
  });

  it('reads home-relative paths, IPv6 hosts and escaped characters as git does', () => {
    expect(canonicalRemoteUrl('host:~/r.git')).toBe('host/~/r');
    expect(canonicalRemoteUrl('ssh://host/~/r.git')).toBe('host/~/r');
    expect(canonicalRemoteUrl('git@[::1]:o/r.git')).toBe('[::1]/o/r');
    expect(canonicalRemoteUrl('ssh://git@[::1]:22/o/r')).toBe('[::1]/o/r');
    expect(canonicalRemoteUrl('https://example.com/o/my%20repo.git')).toBe('example.com/o/my repo');
  });

  it('gives a local repository its absolute path, whichever way it is written', () => {
    const base = '/home/me/work';
    for (const url of [
      '/srv/git/r.git',
      '/srv/git/r',
      '/srv/git/r.git/',
      '/srv//git/r.git',
      'file:///srv/git/r.git',
      '../../../srv/git/r.git',
    ])
      expect(canonicalRemoteUrl(url, base), url).toBe('/srv/git/r');
    expect(canonicalRemoteUrl('./r.git', base)).toBe('/home/me/work/r');
    // A slash before the first colon: a local path that holds a colon, not a host.
    expect(canonicalRemoteUrl('/srv/a:b/r.git', base)).toBe('/srv/a:b/r');
    expect(canonicalRemoteUrl('./a:b', base)).toBe('/home/me/work/a:b');
  });

  it('keeps a remote helper address as written', () => {
    expect(canonicalRemoteUrl('codecommit::eu-west-1://r')).toBe('codecommit::eu-west-1://r');
  });
});
