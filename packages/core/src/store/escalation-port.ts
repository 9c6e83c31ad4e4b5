import type {
  FailureBundle,
  InterviewRequest,
  ResolutionAction,
} from '../escalation/escalation-schema.js';
import type { TaskId } from '../task/types.js';
import type { FencedWrite } from './fence.js';

/** A task's escalation as stored. */
export interface StoredEscalation {
  bundle: FailureBundle;
  interview?: InterviewRequest;
}

/** Where a human finds a task's escalation records (workspace-relative paths, or store URLs). */
export interface EscalationLocation {
  bundle: string;
  interview: string;
}

/**
 * Escalations of blocked tasks: a failure bundle and an interview request per task. `put`
 * stores both durably, the bundle last (a stored bundle always has its interview request);
 * `resolve` records a human's answer (`resolution`: action, time, who, their note) in both the
 * same way, durable once its promise resolved; a task without an escalation is left as it is.
 */
export interface EscalationPort {
  put(bundle: FailureBundle, interview: InterviewRequest, options?: FencedWrite): Promise<void>;
  /** The task's escalation, or undefined. Throws `SY_STATE_CORRUPT` for a damaged record. */
  get(task: TaskId): Promise<StoredEscalation | undefined>;
  /** Task ids that have an escalation, sorted. */
  tasks(): Promise<TaskId[]>;
  resolve(
    task: TaskId,
    action: ResolutionAction,
    at: Date,
    by?: string,
    note?: string,
  ): Promise<void>;
  locate(task: TaskId): EscalationLocation;
}
