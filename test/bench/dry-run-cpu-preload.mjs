// Preloaded into the CLI (node --import) by the dry-run benchmark: at exit, writes the
// process's CPU time (user + system, all threads, children excluded) and the main thread's
// own CPU time to $SWITCHYARD_BENCH_CPU_FILE. The main thread's share shows how much of the
// work the parse threads took off it.
import { writeFileSync } from 'node:fs';

const file = process.env.SWITCHYARD_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const main = process.threadCpuUsage();
    writeFileSync(
      file,
      JSON.stringify({
        userMs: user / 1000,
        systemMs: system / 1000,
        mainThreadMs: (main.user + main.system) / 1000,
      }),
    );
  });
}
