import { describeCaptureFixtures } from '../../../test/agent-contract/fixture-suite.js';
import { qwenCodeClassifier } from './classifier.js';

describeCaptureFixtures('qwen-code', qwenCodeClassifier());
