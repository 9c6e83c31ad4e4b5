import { statSync } from 'node:fs';
import type { RunnerPlugin } from '@switchyard/core';
import { createRunner, type HooksFactory } from '@switchyard/runner-text';
import { planResume } from './resume.js';
import { findSessionFile } from './session-file.js';
import { sessionIdFromEvent, sessionIdFromTextLine } from './session-id.js';

const LOOKUP_EVERY_MS = 2000;

/** Per attempt: reads the session id from the stream and, with `native_session_monitor`,
 * reports the session file's size so its growth counts as progress. */
const nativeSessionHooks: HooksFactory = (context) => {
  let sessionId = context.sessionId;
  let file: string | undefined;
  let lastLookup = Number.NEGATIVE_INFINITY;
  const monitor =
    context.nativeSession?.monitor === true ? context.nativeSession.sessionPath : undefined;
  return {
    onEvent(event) {
      sessionId ??= sessionIdFromEvent(context.agent, event);
    },
    onTextLine(line) {
      sessionId ??= sessionIdFromTextLine(context.agent, line);
    },
    sessionId: () => sessionId,
    sessionBytes() {
      if (monitor === undefined || sessionId === undefined) return undefined;
      if (file === undefined && performance.now() - lastLookup >= LOOKUP_EVERY_MS) {
        lastLookup = performance.now();
        file = findSessionFile(monitor, sessionId);
      }
      if (file === undefined) return undefined;
      try {
        return statSync(file).size;
      } catch {
        return undefined;
      }
    },
  };
};

/** The native-session runner: text or JSONL output, plus session ids, resume planning and
 * native session file progress. */
const runnerNativeSession: RunnerPlugin = {
  ...createRunner({
    name: '@switchyard/runner-native-session',
    outputFormats: ['jsonl', 'text'],
    nativeSession: true,
    hooks: nativeSessionHooks,
  }),
  planResume,
};
export default runnerNativeSession;
