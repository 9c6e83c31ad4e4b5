import { describeCaptureFixtures } from '../../../test/agent-contract/fixture-suite.js';
import { codexClassifier } from './classifier.js';

describeCaptureFixtures('codex', codexClassifier());
