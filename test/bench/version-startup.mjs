// `switchyard --version` against `node -e 0` (the floor: starting Node itself), both with the
// Node running the benchmark and measured in the same run. With hyperfine installed it
// measures (`-N`, warm-up, short rounds alternating which command goes first, medians over
// all rounds); without it, both commands run alternately here (so load
// on a shared machine hits both alike) and the medians are compared. Goal: ratio <= 1.5.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function hasHyperfine() {
  try {
    execFileSync('hyperfine', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const quote = (s) => (/^[\w./@+-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** { floorMs, versionMs, ratio, minRatio, cpuRatio?, tool } for `runs` runs of each command. */
export function measureVersionStartup(bin, runs) {
  const floor = [process.execPath, '-e', '0'];
  const version = [process.execPath, bin, '--version'];
  if (hasHyperfine()) {
    // hyperfine runs one command's runs, then the other's: on a machine whose load comes and
    // goes that decides the ratio. So it runs in short rounds, alternating which goes first,
    // and the medians are taken over every run of all rounds.
    const rounds = Math.max(1, Math.min(6, Math.floor(runs / 5)));
    const dir = mkdtempSync(join(tmpdir(), 'sy-bench-version-'));
    const pooled = [
      { times: [], cpu: [] },
      { times: [], cpu: [] },
    ];
    try {
      for (let round = 0; round < rounds; round++) {
        const json = join(dir, `round-${round}.json`);
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const commands = [floor, version].map((argv) => argv.map(quote).join(' '));
        execFileSync(
          'hyperfine',
          ['-N', '--warmup', '3', '--runs', String(Math.ceil(runs / rounds))]
            .concat(['--export-json', json])
            .concat(order.map((i) => commands[i])),
          { stdio: 'ignore' },
        );
        JSON.parse(readFileSync(json, 'utf8')).results.forEach((result, at) => {
          const into = pooled[order[at]];
          into.times.push(...result.times);
          into.cpu.push((result.user + result.system) * result.times.length);
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const [a, b] = pooled;
    const cpuOf = (p) => p.cpu.reduce((x, y) => x + y, 0) / p.times.length;
    return {
      floorMs: median(a.times) * 1000,
      versionMs: median(b.times) * 1000,
      ratio: median(b.times) / median(a.times),
      minRatio: Math.min(...b.times) / Math.min(...a.times),
      // user + system CPU: what load on a shared machine inflates least
      cpuRatio: cpuOf(b) / cpuOf(a),
      tool: `hyperfine -N in ${rounds} alternating rounds, ${a.times.length} runs each, medians`,
    };
  }
  const time = ([file, ...args]) => {
    const started = process.hrtime.bigint();
    const run = spawnSync(file, args, { stdio: 'ignore' });
    if (run.status !== 0) throw new Error(`${[file, ...args].join(' ')} exited ${run.status}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const a = [];
  const b = [];
  for (let i = -3; i < runs; i++) {
    const floorMs = time(floor);
    const versionMs = time(version);
    if (i < 0) continue; // warm-up
    a.push(floorMs);
    b.push(versionMs);
  }
  return {
    floorMs: median(a),
    versionMs: median(b),
    ratio: median(b) / median(a),
    minRatio: Math.min(...b) / Math.min(...a),
    tool: `alternating spawns, ${runs} each, medians (hyperfine not installed)`,
  };
}
