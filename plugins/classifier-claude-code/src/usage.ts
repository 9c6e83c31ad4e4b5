import { streamJsonResultUsage } from '@switchyard/classifier-generic';

/** Tokens and cost from Claude Code's final stream-json `result` event; text output reports none. */
export const claudeCodeUsage = streamJsonResultUsage;
