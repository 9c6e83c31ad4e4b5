import { realpathSync } from 'node:fs';
import type { ResumePlan, ResumeRequest } from '@switchyard/core';
import { fillTemplate } from '@switchyard/runner-kit';
import { findSessionFile } from './session-file.js';
import { sessionBelongsToWorkspace } from './session-workspace.js';

export type { ResumePlan } from '@switchyard/core';

/**
 * Plans a native resume of `sessionId`: fills `{session_id}`/`{resume_session}` (and the
 * other values) into the target's `resume_command`. When the target declares a
 * `session_path`, the session file must exist there and belong to this workspace.
 */
export function planResume(input: ResumeRequest): ResumePlan {
  if (!input.resumeCommand || input.resumeCommand.length === 0)
    return { reason: 'the target has no resume_command' };
  if (!input.sessionId)
    return { reason: 'no native session id was recorded for the previous attempt' };
  let sessionFile: string | undefined;
  if (input.sessionPath !== undefined) {
    sessionFile = findSessionFile(input.sessionPath, input.sessionId);
    if (!sessionFile)
      return { reason: `no session file for ${input.sessionId} under ${input.sessionPath}` };
    if (!sessionBelongsToWorkspace(sessionFile, realpathSync(input.workspace))) {
      return { reason: `session ${input.sessionId} (${sessionFile}) belongs to another workspace` };
    }
  }
  const argv = fillTemplate(input.resumeCommand, {
    ...input.values,
    session_id: input.sessionId,
    resume_session: input.sessionId,
  });
  return sessionFile ? { argv, sessionFile } : { argv };
}
