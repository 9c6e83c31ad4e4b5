#!/usr/bin/env node
// Benchmark: normalize + classify a generated 1 GB JSONL agent stream (line framing,
// JSONL parsing, terminal-event detection, the Claude Code transcript formatter, the classifier
// chain), compared with `cat FILE | cat > /dev/null` piping the same file in the same run.
// Goals: throughput >= 0.5 x the cat pipe, peak RSS < 150 MB.
// Run after `npx -y pnpm@10.34.9 build`:  node_modules/.bin/node test/bench/classify.mjs [--gb 1]
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { values } = parseArgs({
  options: { gb: { type: 'string', default: '1' }, keep: { type: 'boolean' } },
});
const bytesWanted = Number(values.gb) * 1024 ** 3;
const outDir = join(here, '.out');
mkdirSync(outDir, { recursive: true });
const file = join(outDir, 'classify-stream.jsonl');

// --- the measured pipeline, run as a child reading stdin -------------------------------
const PIPELINE = `
import { readSync } from 'node:fs';
import { EvidenceCollector, classifyEvidence } from ${JSON.stringify(join(root, 'packages/runner-kit/dist/index.js'))};
import claude from ${JSON.stringify(join(root, 'plugins/classifier-claude-code/dist/index.js'))};
import generic from ${JSON.stringify(join(root, 'plugins/classifier-generic/dist/index.js'))};
const plugins = [...claude(), ...generic()];
const classifiers = plugins.filter((p) => p.kind === 'classifier');
const transcript = plugins.find((p) => p.kind === 'transcript');
let transcriptBytes = 0;
const collector = new EvidenceCollector({
  agent: 'claude-code',
  outputFormat: 'jsonl',
  isRetryLine: (l) => classifiers.some((c) => c.isRetryLine?.(l)),
  onLine: (line) => {
    const out = line.event ? transcript.formatEvent(line.event) : line.text;
    if (out !== undefined) transcriptBytes += out.length + 1;
  },
});
// read stdin synchronously in 1 MiB chunks: the per-chunk async overhead of a 64 KiB pipe read
// loop would otherwise dominate
const buf = Buffer.allocUnsafe(1 << 20);
for (let n; (n = readSync(0, buf, 0, buf.length, null)) > 0; ) collector.write('stdout', buf.subarray(0, n));
const evidence = collector.finish({ exitCode: 1, signal: null });
const verdict = await classifyEvidence(evidence, classifiers, { endedAt: new Date(), timeZone: 'UTC' });
process.stdout.write(JSON.stringify({ class: verdict.class, evidence: verdict.evidence[0]?.slice(0, 80), transcriptBytes, maxRssKb: process.resourceUsage().maxRSS }));
`;

async function generate() {
  const lines = [
    '{"type":"system","subtype":"init","session_id":"s-1","model":"m","tools":["Bash","Edit","Read"]}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"I will look at the failing test first, then fix the rate limit handling in the client."}]},"session_id":"s-1"}',
    '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test -- --run src/client.test.ts"}}]},"session_id":"s-1"}',
    `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"${'PASS src/client.test.ts > retries on 429 quota errors '.repeat(8)}"}]},"session_id":"s-1"}`,
    'progress: 42% (noise line that is not JSON)',
    '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":529,"error":"overloaded"}',
  ];
  const block = Buffer.from(`${lines.join('\n')}\r\n`.repeat(2000));
  const huge = Buffer.from(
    `{"type":"user","message":{"content":[{"type":"tool_result","content":"${'x'.repeat(8 * 1024 * 1024)}"}]}}\n`,
  );
  const out = createWriteStream(file);
  let written = 0;
  let n = 0;
  while (written < bytesWanted) {
    const buf = ++n % 400 === 0 ? huge : block; // a few 8 MB lines
    if (!out.write(buf)) await once(out, 'drain');
    written += buf.length;
  }
  out.write(
    '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"API Error: Request rejected (429) · Rate limit reached. Please try again in 30s."}\n',
  );
  out.end();
  await once(out, 'finish');
}

function time(cmd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('sh', ['-c', cmd], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return { s, stdout: r.stdout };
}

console.log(`generating ${values.gb} GB JSONL at ${file} …`);
await generate();
const size = statSync(file).size;
const mb = size / 1024 ** 2;
const node = process.execPath;
const script = join(outDir, 'classify-pipeline.mjs');
const { writeFileSync } = await import('node:fs');
writeFileSync(script, PIPELINE);
time(`cat '${file}' > /dev/null`); // warm the page cache for both runs
const base = time(`cat '${file}' | cat > /dev/null`);
const ours = time(`cat '${file}' | '${node}' '${script}'`);
const startup = time(`'${node}' '${script}' < /dev/null`); // node + module imports, no input
const result = JSON.parse(ours.stdout);
const ratio = base.s / ours.s;
const rssMb = result.maxRssKb / 1024;
console.log(`file           ${mb.toFixed(0)} MB`);
console.log(`cat | cat      ${base.s.toFixed(2)} s  ${(mb / base.s).toFixed(0)} MB/s`);
console.log(
  `classify       ${ours.s.toFixed(2)} s  ${(mb / ours.s).toFixed(0)} MB/s  (class ${result.class}, transcript ${(result.transcriptBytes / 1024 ** 2).toFixed(0)} MB)`,
);
console.log(
  `ratio          ${ratio.toFixed(2)} of cat piping (goal >= 0.5) ${ratio >= 0.5 ? 'OK' : 'BELOW GOAL'}`,
);
console.log(
  `peak RSS       ${rssMb.toFixed(0)} MB (goal < 150 MB) ${rssMb < 150 ? 'OK' : 'ABOVE GOAL'}`,
);
const streaming = ours.s - startup.s;
console.log(
  `breakdown      startup ${startup.s.toFixed(2)} s (node + imports, empty input); streaming ${streaming.toFixed(2)} s = ${(mb / streaming).toFixed(0)} MB/s`,
);
// Where the time goes: the same file in this process, framing only and framing + JSON.parse.
const kit = await import(join(root, 'packages/runner-kit/dist/index.js'));
const { openSync, readSync, closeSync } = await import('node:fs');
function inProcess(onLine) {
  const framer = new kit.LineFramer(onLine);
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  const t0 = process.hrtime.bigint();
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    framer.push(buf.subarray(0, n));
  }
  framer.end();
  closeSync(fd);
  return mb / (Number(process.hrtime.bigint() - t0) / 1e9);
}
let _sink = 0; // read below so the per-line work is not optimised away
const framing = inProcess((l) => {
  _sink += l.totalBytes;
});
const decoding = inProcess((l) => {
  _sink += l.bytes.toString().length;
});
const parsing = inProcess((l) => {
  if (kit.parseJsonObjectLine(l.bytes.toString('utf8'))) _sink++;
});
const claude = (await import(join(root, 'plugins/classifier-claude-code/dist/index.js'))).default;
const formatter = claude().find((p) => p.kind === 'transcript');
const formatting = inProcess((l) => {
  const event = kit.parseJsonObjectLine(l.bytes.toString());
  if (event && formatter.formatEvent(event) !== undefined) _sink++;
});
console.log(
  `reference      framing only ${framing.toFixed(0)} MB/s, + utf8 decode ${decoding.toFixed(0)} MB/s, + JSON.parse ${parsing.toFixed(0)} MB/s, + formatEvent ${formatting.toFixed(0)} MB/s (in process, per-line floors)`,
);
if (!values.keep) rmSync(file);
