export {
  buildCorrectionPacket,
  type CorrectionPacketInput,
  citedRule,
  type FailingOutput,
} from './correction-packet.js';
export {
  acceptedNotes,
  findingsToFix,
  type ReviewDisposition,
  reviewDisposition,
} from './disposition.js';
export * from './evaluate-review.js';
export { failingLines, MAX_FAILING_LINES } from './failing-lines.js';
export * from './parse-review.js';
