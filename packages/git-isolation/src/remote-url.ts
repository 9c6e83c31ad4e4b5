import { resolve } from 'node:path';

// The ports git's transports use when a URL names none: the same repository either way.
const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  ssh: '22',
  'git+ssh': '22',
  'ssh+git': '22',
  git: '9418',
  http: '80',
  https: '443',
  ftp: '21',
  ftps: '990',
};

/**
 * One spelling for every way of writing a remote's URL (git's "GIT URLS" grammar): the
 * scp-like `git@host:o/r.git`, `ssh://git@host:22/o/r`, `https://user:token@Host/o/r.git/`
 * and `git://host/o/r` are all `host/o/r`. The host is lower-cased, a port kept only when it
 * is not its transport's default, credentials, a trailing `.git` and slashes dropped; the
 * transport is not part of it. A local path (or `file://` URL) is its absolute path, a
 * relative one resolved against `base` (the repository). `<transport>::<address>` (a remote
 * helper) is kept as written.
 */
export function canonicalRemoteUrl(url: string, base: string = process.cwd()): string {
  const text = url.trim();
  if (/^[a-z][a-z0-9+.-]*::/i.test(text)) return text;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'file') return localPath(decoded(new URL(text).pathname), base);
  if (scheme) return fromUrl(scheme, text);
  const scp = scpLike(text);
  return scp ? hostPath(scp.host, '', scp.path) : localPath(text, base);
}

function fromUrl(scheme: string, text: string): string {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return text;
  }
  const port = parsed.port && parsed.port !== DEFAULT_PORTS[scheme] ? parsed.port : '';
  return hostPath(parsed.hostname, port, decoded(parsed.pathname));
}

/**
 * `[user@]host:path`, which git reads as ssh only when no slash comes before the first colon
 * (else it is a local path that holds a colon). A bracketed host may hold colons (`[::1]`).
 */
function scpLike(text: string): { host: string; path: string } | undefined {
  const match = /^(?:[^@/]*@)?(\[[^\]/]*\]|[^:/[]+):(.*)$/.exec(text);
  if (!match?.[1] || match[2] === undefined) return undefined;
  return { host: match[1], path: match[2] };
}

function hostPath(host: string, port: string, path: string): string {
  const where = `${host.toLowerCase()}${port ? `:${port}` : ''}`;
  return `${where}/${trimmed(path.replace(/^\/+/, ''))}`;
}

function localPath(path: string, base: string): string {
  return trimmed(resolve(base, path));
}

/** Repeated slashes as one; trailing slashes and one trailing `.git` dropped. */
function trimmed(path: string): string {
  return path
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
