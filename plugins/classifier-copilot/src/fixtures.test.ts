import { describeCaptureFixtures } from '../../../test/agent-contract/fixture-suite.js';
import { copilotClassifier } from './classifier.js';

describeCaptureFixtures('copilot', copilotClassifier());
