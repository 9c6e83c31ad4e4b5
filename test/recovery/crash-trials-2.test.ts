import { describeCrashTrials } from './crash-trials.js';

// Part 2 of the crash trials (see crash-trials.ts): the workers share the parts out.
describeCrashTrials(2, 4);
