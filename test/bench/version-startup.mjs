// `switchyard --version` against `node -e 0` (the floor: starting Node itself), both with the
// Node running the benchmark and measured in the same run. With hyperfine installed it
// measures (`-N`, warm-up, medians); without it, both commands run alternately here (so load
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
    const dir = mkdtempSync(join(tmpdir(), 'sy-bench-version-'));
    try {
      const json = join(dir, 'hyperfine.json');
      execFileSync(
        'hyperfine',
        ['-N', '--warmup', '5', '--runs', String(runs), '--export-json', json].concat([
          floor.map(quote).join(' '),
          version.map(quote).join(' '),
        ]),
        { stdio: 'ignore' },
      );
      const [a, b] = JSON.parse(readFileSync(json, 'utf8')).results;
      return {
        floorMs: a.median * 1000,
        versionMs: b.median * 1000,
        ratio: b.median / a.median,
        minRatio: b.min / a.min,
        // user + system CPU: what load on a shared machine inflates least
        cpuRatio: (b.user + b.system) / (a.user + a.system),
        tool: `hyperfine -N, ${runs} runs each, medians`,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
