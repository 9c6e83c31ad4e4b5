import { constants } from 'node:fs';

/**
 * Flags for the evidence files of an attempt: append, create owner-only, never through a
 * symlink planted at the name (O_NOFOLLOW), never blocking on a planted FIFO (O_NONBLOCK).
 */
export const EVIDENCE_APPEND =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  constants.O_NOFOLLOW |
  constants.O_NONBLOCK;

/** Mode of evidence files: they quote agent output. */
export const EVIDENCE_MODE = 0o600;
