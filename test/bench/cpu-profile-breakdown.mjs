// Where a process's CPU went, from a V8 CPU profile (node --cpu-prof): every sample goes to
// the innermost frame of its stack that one of the CATEGORIES names (so an fsync inside a
// store write counts as fsync, the rest of that write as the store). Idle samples are left
// out. Plain Node, no dependencies; used by dispatch.mjs.
import { readFileSync } from 'node:fs';

const fn = (re) => (f) => re.test(f.functionName);
const file = (re) => (f) => re.test(f.url);
const both = (a, b) => (f) => a(f) && b(f);
const native = (f) => f.url === '' || f.url.startsWith('node:');

/** [name, test of one call frame]; a frame is tested against them in this order. */
export const CATEGORIES = [
  ['fsync', both(fn(/^f(data)?sync(Sync)?$/), native)],
  ['garbage collection', fn(/^\(garbage collector\)$/)],
  [
    'process scan after an agent exits (/proc)',
    (f) =>
      /^(terminateAttempt|survivors|findProcessesWithMarkers?|findProcessesWithMarkersInTurns|markerScan|lookAtProcEntry|procEntryOlderThan|hasEnvironmentMarker|readEnviron|groupMembers)$/.test(
        f.functionName,
      ) ||
      (/runner-text/.test(f.url) && (f.functionName === 'scan' || f.functionName === 'scanFor')),
  ],
  [
    'spawn (agent start, spawn helper IPC)',
    (f) =>
      /runner-text/.test(f.url) &&
      /^(spawnAgent|spawnDirect|spawn|startAttempt)$/.test(f.functionName),
  ],
  [
    'shared write-set check (workspace snapshots, change rounds)',
    fn(
      /^(takeSnapshot|snapshotOf|walk\d*|seenBefore\d*|namesOf\d*|changedPaths|contentHash|gitignoreOf|readRound|writeRound|removeRound|readBaseline|writeBaseline|openSharedRound|inspectSharedRound|recordChangeBaseline|heldByOthers|writeSetIndexOf|builtFromPlansOf)$/,
    ),
  ],
  [
    'claims (file mutex, claims.json)',
    fn(/^(acquireFileMutex|createExclusive|tryClaim|releaseClaims?|holderOf)$/),
  ],
  [
    'plan / review reloads and parsing',
    (f) =>
      /^(loadWorkspace|readPlan\w*|parsePlan|parseReview|takeReturnedPlan|readmitPlan|readTaskFolder|scanWorkspace)$/.test(
        f.functionName,
      ) || /node_modules\/(micromark|mdast|markdown-it|yaml)/.test(f.url),
  ],
  [
    'store (state writes and reads)',
    (f) =>
      /store-fs\/dist/.test(f.url) ||
      /^(writeDurably|replaceFile|replaceNow|writeOwnedFileBelow|ensureOwnedDir|writeLocator|createLocator|finalizeLocator|recordLocatorExit|persist)$/.test(
        f.functionName,
      ),
  ],
  [
    'event fan-out (bus, live renderer, work log)',
    (f) =>
      (f.functionName === 'emit' && /core\/dist/.test(f.url)) ||
      /cli\/dist\/live-run/.test(f.url) ||
      /^(feedWorkLogFromBus|formatWorkLogRow|redactDeep)$/.test(f.functionName),
  ],
  [
    'classification (the verdict of an attempt from its output)',
    fn(
      /^(classifyEvidence|classifyCapture|recordClassification|fallbackClassification|\w+Classifier)$/,
    ),
  ],
  [
    'prompts and review judging (prompt, correction packet, review verdict)',
    fn(
      /^(buildPrompt|fillPromptTemplate|promptContext|deliverPrompt|planPromptDelivery|buildCorrectionPacket|writeCorrectionPacket|judgeReviewFiles|judgeReviewAttempt|evaluateReview)$/,
    ),
  ],
  [
    'attempt watch (stream tail, heartbeat, evidence)',
    (f) =>
      /runner-text/.test(f.url) ||
      /^(capAttemptEvidence|EvidenceCollector.*)$/.test(f.functionName),
  ],
  [
    'scheduling and admission',
    fn(
      /^(schedule|admitAndStart|admit|admitPass|admissionPass|decideTask|reindex|stuckOf|stuckTasks|sameIds|sameItems|mergeSorted|liveAdmissionState|admissionViewOf|coolingTasks|announceWaits|countsOf|releaseBlockedClaims|claimFor|isRunnable)$/,
    ),
  ],
  ['start-up (module loading)', file(/^node:internal\/modules\//)],
];

/**
 * Reads a .cpuprofile and returns { totalMs, idleMs, attempts, rows: [{ name, ms }],
 * otherTop: [{ name, ms }] } (rows in CATEGORIES order plus `other`).
 */
export function profileBreakdown(path) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categoryOf = new Map(); // node id -> category name (memoized walk to the root)
  const leafName = (n) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*\/(packages|plugins|node_modules)\//, '')}`;
  // The nearest frame of switchyard's own code (packages/, plugins/), else the leaf.
  const ownFrameOf = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at))
      if (/\/(packages|plugins)\//.test(nodes.get(at).callFrame.url)) return nodes.get(at);
    return nodes.get(id);
  };
  const categorize = (id) => {
    if (categoryOf.has(id)) return categoryOf.get(id);
    const frame = nodes.get(id).callFrame;
    const hit = CATEGORIES.find(([, test]) => test(frame));
    const up = parent.get(id);
    const category = hit ? hit[0] : up === undefined ? 'other' : categorize(up);
    categoryOf.set(id, category);
    return category;
  };
  const ms = new Map([...CATEGORIES.map(([name]) => [name, 0]), ['other', 0]]);
  const other = new Map();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = nodes.get(id);
    if (node.callFrame.functionName === '(idle)') {
      idleMs += dt;
      return;
    }
    totalMs += dt;
    const category = categorize(id);
    ms.set(category, ms.get(category) + dt);
    if (category === 'other') {
      const name = leafName(ownFrameOf(id));
      other.set(name, (other.get(name) ?? 0) + dt);
    }
  });
  const byMs = (a, b) => b.ms - a.ms;
  return {
    totalMs,
    idleMs,
    rows: [...ms].map(([name, v]) => ({ name, ms: v })),
    otherTop: [...other]
      .map(([name, v]) => ({ name, ms: v }))
      .sort(byMs)
      .slice(0, 6),
  };
}
