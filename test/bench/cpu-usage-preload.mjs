// Preloaded into a measured process (node --import) by the benchmarks: at exit, writes the
// process's own CPU time (user + system, children excluded) to $SWITCHYARD_BENCH_CPU_FILE,
// and its main thread's (`mainUserMs`, `mainSystemMs`: the event loop, without libuv's thread
// pool; Node >= 23.9). SIGUSR2 records the CPU time so far as `mark`, so a benchmark can leave
// start-up out.
import { writeFileSync } from 'node:fs';

const file = process.env.SWITCHYARD_BENCH_CPU_FILE;
if (file) {
  let mark;
  process.on('SIGUSR2', () => {
    const { user, system } = process.cpuUsage();
    mark = { userMs: user / 1000, systemMs: system / 1000 };
  });
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const main = process.threadCpuUsage?.();
    writeFileSync(
      file,
      JSON.stringify({
        userMs: user / 1000,
        systemMs: system / 1000,
        ...(main ? { mainUserMs: main.user / 1000, mainSystemMs: main.system / 1000 } : {}),
        mark,
      }),
    );
  });
}
