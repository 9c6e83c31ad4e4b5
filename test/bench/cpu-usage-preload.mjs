// Preloaded into the dispatcher (node --import) by the dispatch benchmark: at exit, writes
// the process's own CPU time (user + system, children excluded) to $SWITCHYARD_BENCH_CPU_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.SWITCHYARD_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, JSON.stringify({ userMs: user / 1000, systemMs: system / 1000 }));
  });
}
