// Preloaded (node --import) into the dispatcher of the dispatch benchmark's breakdown run: counts
// the file-system calls the process makes, by kind, and the time they take. A synchronous call
// blocks the event loop for its whole duration (main thread); an asynchronous one runs on
// libuv's thread pool, from the call to its callback (overlapping other work). At exit it
// writes { kinds: { [kind]: { count, syncMs, asyncMs } } } to $SWITCHYARD_BENCH_FSOPS_FILE.
// Counts do not depend on the machine's load; times do. Plain Node, no dependencies.
// It also lists every new file (the temp file of an atomic replacement) by the file it
// replaces (task and attempt names folded) and by the call site that asked for it (the first
// frames of the stack outside utils' file helpers), as { replacements: { [file]: { [site]: n } } }.
import fs, { writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const file = process.env.SWITCHYARD_BENCH_FSOPS_FILE;
const kinds = {};
const note = (kind, key, ms) => {
  const k = kinds[kind] ?? { count: 0, syncMs: 0, asyncMs: 0 };
  kinds[kind] = k;
  k.count++;
  k[key] += ms;
};
const now = () => Number(process.hrtime.bigint()) / 1e6;

const replacements = {};
const TEMP_SUFFIX = /\.\d+\.\d+\.tmp$/;
/** The replaced file with its task and attempt names folded, from under agent-task/. */
function recordOf(path) {
  // utils' replaceFile: <file>.<pid>.<n>.tmp; writeOwnedFile: .<name>.<pid>.tmp beside it
  const file = String(path)
    .replace(TEMP_SUFFIX, '')
    .replace(/(^|\/)\.([^/]+)\.\d+\.tmp$/, '$1$2');
  const at = file.indexOf('/agent-task/');
  return (at >= 0 ? file.slice(at + 1) : file)
    .replace(/\/t\d+(?=[./]|$)/g, '/<task>')
    .replace(/\/attempts\/[^/]+/, '/attempts/<attempt>')
    .replace(/\/runs\/[^/]+/, '/runs/<run>')
    .replace(/\/sessions\/[^/]+/, '/sessions/<session>');
}
/** The first frames of the stack in switchyard's own code, outside utils' file helpers. */
function siteOf() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter(
      (line) =>
        /\/packages\/[^/]+\/dist\//.test(line) &&
        !/^at (async )?(writeTemp|openTemp|run|replaceNow|replaceFile|openOwnedFile) .*\/utils\/dist\//.test(
          line,
        ) &&
        !line.includes('fs-ops-preload'),
    )
    .map((line) =>
      line
        .replace(/^at /, '')
        .replace(/\(?file:\/\/.*\/packages\/([^/]+)\/dist\/([^:]+):(\d+):\d+\)?/, '$1/$2:$3'),
    );
  return frames.slice(0, 5).join(' < ') || '(no switchyard frame)';
}
function noteReplacement(path) {
  const record = recordOf(path);
  const sites = replacements[record] ?? {};
  replacements[record] = sites;
  const site = siteOf();
  sites[site] = (sites[site] ?? 0) + 1;
}
const { O_CREAT, O_EXCL, O_RDWR, O_WRONLY } = fs.constants;

/** The kind of an open: /proc reads, new files (O_EXCL: the temp file of an atomic
 * replacement, or an exclusive create), opens that may create (append, truncate), opens for
 * writing an existing file, reads. */
function openKind(path, flags) {
  if (String(path).startsWith('/proc/')) return '/proc reads (process scans, liveness)';
  const bits =
    typeof flags === 'number'
      ? flags
      : typeof flags === 'string'
        ? (/[wa]/.test(flags) ? O_CREAT : 0) | (flags.includes('x') ? O_EXCL : 0)
        : 0;
  if (bits & O_EXCL) {
    noteReplacement(path);
    return 'new files (O_EXCL: temp files of atomic replacements, exclusive creates)';
  }
  if (bits & O_CREAT) return 'opens that create when missing (append, truncate)';
  if (typeof flags === 'number' && flags & (O_WRONLY | O_RDWR))
    return 'opens for writing without creating';
  return 'opens for reading';
}

const KIND_OF = {
  rename: 'renames (the commit of an atomic replacement)',
  fsync: 'fsyncs',
  fdatasync: 'fsyncs',
  mkdir: 'mkdir (recursive calls count once)',
  unlink: 'unlinks and removals',
  rm: 'unlinks and removals',
  rmdir: 'unlinks and removals',
  readdir: 'folder listings',
  lstat: 'stats',
  stat: 'stats',
  fstat: 'stats',
  writeFile: 'whole-file writes (writeFile, appendFile)',
  appendFile: 'whole-file writes (writeFile, appendFile)',
  readFile: 'whole-file reads',
};

function wrapSync(name, kindOf) {
  const original = fs[name];
  if (typeof original !== 'function') return;
  fs[name] = function (...args) {
    const started = now();
    try {
      return original.apply(this, args);
    } finally {
      note(kindOf(args), 'syncMs', now() - started);
    }
  };
}

function wrapCallback(name, kindOf) {
  const original = fs[name];
  if (typeof original !== 'function') return;
  fs[name] = function (...args) {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback !== 'function') return original.apply(this, args);
    const started = now();
    const kind = kindOf(args);
    args[last] = function (...results) {
      note(kind, 'asyncMs', now() - started);
      return callback.apply(this, results);
    };
    return original.apply(this, args);
  };
}

function wrapPromise(target, name, kindOf) {
  const original = target[name];
  if (typeof original !== 'function') return;
  target[name] = async function (...args) {
    const started = now();
    const kind = kindOf(args);
    try {
      return await original.apply(this, args);
    } finally {
      note(kind, 'asyncMs', now() - started);
    }
  };
}

if (file) {
  for (const name of Object.keys(KIND_OF)) {
    const kindOf = () => KIND_OF[name];
    wrapSync(`${name}Sync`, kindOf);
    wrapCallback(name, kindOf);
    wrapPromise(fsp, name, kindOf);
  }
  const openKindOf = (args) => openKind(args[0], args[1]);
  wrapSync('openSync', openKindOf);
  wrapCallback('open', openKindOf);
  const open = fsp.open;
  let handlePatched = false;
  fsp.open = async function (...args) {
    const started = now();
    const kind = openKindOf(args);
    const handle = await open.apply(this, args);
    note(kind, 'asyncMs', now() - started);
    if (!handlePatched) {
      handlePatched = true;
      const proto = Object.getPrototypeOf(handle);
      for (const name of ['sync', 'datasync']) wrapPromise(proto, name, () => 'fsyncs');
    }
    return handle;
  };
  syncBuiltinESMExports();
  process.on('exit', () => writeFileSync(file, JSON.stringify({ kinds, replacements })));
}
