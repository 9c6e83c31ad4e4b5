import { describeCaptureFixtures } from '../../../test/agent-contract/fixture-suite.js';
import { claudeCodeClassifier } from './classifier.js';

describeCaptureFixtures('claude-code', claudeCodeClassifier());
