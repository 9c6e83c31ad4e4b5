import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway PostgreSQL cluster in a temp folder, listening on 127.0.0.1 only. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust auth: no password). */
  url: string;
  port: number;
  dir: string;
  /** Folder of the server binaries used (initdb, pg_ctl, createdb). */
  bin: string;
  /** Creates a database and returns its URL (`?schema=` etc. appended by the caller). */
  createDatabase(name: string): string;
  /** Stops the server at once and removes the folder. */
  stop(): void;
}

/** The folder of the newest installed PostgreSQL server (`SWITCHYARD_PG_BIN` wins). */
export function postgresBin(): string {
  const given = process.env.SWITCHYARD_PG_BIN;
  if (given) return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(root, versions[0], 'bin');
  throw new Error(
    'No PostgreSQL server found (/usr/lib/postgresql/<version>/bin/initdb): install it with `apt-get install -y postgresql` (.ci/run does), or set SWITCHYARD_PG_BIN to the folder of initdb and pg_ctl.',
  );
}

/** A free TCP port on 127.0.0.1 (the server binds it right after; a clash is retried). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The server refuses to run as root: as root, run its binaries as the `postgres` user. */
function runner(): {
  run(bin: string, args: string[]): void;
  owner?: { uid: number; gid: number };
} {
  const root = process.getuid?.() === 0;
  const owner = root
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
      }
    : undefined;
  return {
    owner,
    run(bin, args) {
      const [command, argv] = root
        ? ['runuser', ['-u', 'postgres', '--', bin, ...args]]
        : [bin, args];
      const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 120_000 });
      if (result.status !== 0)
        throw new Error(
          `${bin} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`,
        );
    },
  };
}

/**
 * Creates and starts a fresh cluster (initdb with trust auth and no fsync, a random port on
 * 127.0.0.1, its socket in its own folder). About 3–5 s for initdb and under 1 s to start.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBin();
  const { run, owner } = runner();
  const dir = mkdtempSync(join(tmpdir(), 'sy-pg-'));
  chmodSync(dir, 0o700);
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  try {
    run(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c unix_socket_directories=${dir} -c max_connections=200`;
      try {
        run(join(bin, 'pg_ctl'), [
          '-D',
          data,
          '-l',
          join(dir, 'server.log'),
          '-o',
          options,
          '-w',
          'start',
        ]);
        break;
      } catch (error) {
        if (attempt >= 3) throw new Error(`${(error as Error).message}\n${serverLog(dir)}`);
      }
    }
    const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return {
      url: url('postgres'),
      port,
      dir,
      bin,
      createDatabase(name) {
        run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
        return url(name);
      },
      stop() {
        spawnSync(...stopCommand(bin, data), { timeout: 60_000 });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function stopCommand(bin: string, data: string): [string, string[]] {
  const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
  return process.getuid?.() === 0
    ? ['runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args]]
    : [join(bin, 'pg_ctl'), args];
}

const serverLog = (dir: string): string => {
  try {
    return readFileSync(join(dir, 'server.log'), 'utf8').slice(-2000);
  } catch {
    return '';
  }
};
