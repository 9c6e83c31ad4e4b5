import { closeSync, type FSWatcher, fstatSync, openSync, readSync, watch } from 'node:fs';

/** Bytes of an existing file sent when a tail starts. */
const INITIAL_BYTES = 64 * 1024;

/**
 * Follows a growing text file (an attempt's normalized output): calls `onText` with its last
 * 64 KiB, then with every appended chunk (fs.watch, with a poll as fallback). A file that
 * does not exist yet is waited for. Returns a stop function.
 */
export function tailFile(path: string, onText: (text: string) => void, pollMs = 500): () => void {
  let offset = -1;
  let stopped = false;
  let watcher: FSWatcher | undefined;
  const pump = () => {
    if (stopped) return;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      if (offset < 0) offset = Math.max(0, size - INITIAL_BYTES);
      if (size < offset) offset = 0; // replaced or truncated
      if (size > offset) {
        const buf = Buffer.alloc(size - offset);
        const read = readSync(fd, buf, 0, buf.length, offset);
        offset += read;
        onText(buf.subarray(0, read).toString('utf8'));
      }
    } finally {
      closeSync(fd);
    }
    if (!watcher) {
      try {
        watcher = watch(path, { persistent: false }, pump);
        watcher.on('error', () => undefined);
      } catch {
        // the poll covers it
      }
    }
  };
  pump();
  const timer = setInterval(pump, pollMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    watcher?.close();
  };
}
