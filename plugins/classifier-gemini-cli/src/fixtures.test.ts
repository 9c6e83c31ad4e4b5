import { describeCaptureFixtures } from '../../../test/agent-contract/fixture-suite.js';
import { geminiCliClassifier } from './classifier.js';

describeCaptureFixtures('gemini-cli', geminiCliClassifier());
