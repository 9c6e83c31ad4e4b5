#!/usr/bin/env node
// Window-coverage validation cost: `validateCatalog` on a valid catalog whose 40 routes all
// use time windows (a zone with DST, so every boundary of the year is evaluated), against the naive baseline — checking every minute of
// the coming year with luxon — measured in the same run on a 7-day slice and scaled up.
// Run after `pnpm build`:  node test/bench/catalog-windows.mjs
import { findWindowFault, validateCatalog, windowMatches } from '@switchyard/catalog';
import { ROUTE_IDS, STAGES } from '@switchyard/core';

const now = new Date('2026-12-01T00:00:00Z');
const windows = [
  { timezone: 'Europe/Berlin', start: '07:00', end: '19:30', candidates: ['a'] },
  { timezone: 'Europe/Berlin', start: '19:30', end: '07:00', candidates: ['b'] },
];
const target = {
  agent: 'x',
  model: 'm',
  execution_class: 'cloud_model',
  runtime: { command: ['x'] },
};
const catalog = {
  schema_version: 1,
  targets: { a: target, b: target },
  routes: Object.fromEntries(
    STAGES.map((s) => [s, Object.fromEntries(ROUTE_IDS.map((id) => [id, { windows }]))]),
  ),
};

const time = (fn) => {
  const t = performance.now();
  const result = fn();
  return { ms: performance.now() - t, result };
};

// Warm up luxon's zone caches once so both sides start equal.
findWindowFault(windows, now, new Date(now.getTime() + 86_400_000));

// Cold: the first route pays for the zone's offset segments; the other routes reuse them.
const oneRoute = time(() =>
  findWindowFault(windows, now, new Date(now.getTime() + 366 * 86_400_000)),
);
const full = time(() => validateCatalog(catalog, { now, checkExecutables: false }));
const plain = time(() =>
  validateCatalog(
    {
      ...catalog,
      routes: Object.fromEntries(
        STAGES.map((s) => [
          s,
          Object.fromEntries(ROUTE_IDS.map((id) => [id, { candidates: ['a', 'b'] }])),
        ]),
      ),
    },
    { now, checkExecutables: false },
  ),
);

const SLICE_DAYS = 7;
const naive = time(() => {
  let faults = 0;
  const end = now.getTime() + SLICE_DAYS * 86_400_000;
  for (let t = now.getTime(); t < end; t += 60_000) {
    const at = new Date(t);
    if (windows.filter((w) => windowMatches(w, at)).length !== 1) faults++;
  }
  return faults;
});
const naiveYearPerRoute = naive.ms * (366 / SLICE_DAYS);
const naiveCatalog = naiveYearPerRoute * 40;

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
console.log('catalog window coverage, coming year, DST included');
console.log(
  `  boundary instants, 1 route:           ${fmt(oneRoute.ms)} (fault: ${oneRoute.result ? oneRoute.result.at : 'none'})`,
);
console.log(
  `  validateCatalog, 40 windowed routes:  ${fmt(full.ms)} (${full.result.problems.length} problems)`,
);
console.log(
  `  validateCatalog, 40 candidate routes: ${fmt(plain.ms)} (schema work without windows)`,
);
console.log(
  `  naive minute scan, ${SLICE_DAYS} days, 1 route:  ${fmt(naive.ms)} (${naive.result} faulty minutes)`,
);
console.log(`  naive minute scan, scaled to 40 routes x 1 year: ${fmt(naiveCatalog)}`);
console.log(`  ratio naive / boundary (whole catalog): ${(naiveCatalog / full.ms).toFixed(0)}x`);
