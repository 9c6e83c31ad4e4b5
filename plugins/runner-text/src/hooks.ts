import type { NativeSessionSpec } from '@switchyard/core';

/** Per-attempt extensions of the shared runner (the native-session runner supplies them). */
export interface AttemptHooks {
  /** Sees every parsed JSONL event of stdout, in order. */
  onEvent?(event: Record<string, unknown>): void;
  /** Sees every output line that is not a JSONL event (text mode, or a CLI's stderr footer). */
  onTextLine?(line: string, stream: 'stdout' | 'stderr'): void;
  /** The native session id, once known. */
  sessionId?(): string | undefined;
  /** Current size of the native session file (its growth counts as progress). */
  sessionBytes?(): number | undefined;
}

/** What a hooks factory learns about the attempt. */
export interface HookContext {
  agent: string;
  cwd: string;
  startedAt: Date;
  nativeSession?: NativeSessionSpec;
  /** A session id already known (resume, or recorded in the locator before a reattach). */
  sessionId?: string;
}

export type HooksFactory = (context: HookContext) => AttemptHooks;
