import { privacyChecks } from './privacy-checks';
import { EXTENSION_DIR } from './harness';

privacyChecks('test', EXTENSION_DIR);
