// The privacy checks on the build users install (`npm run build`, .output/chrome-mv3): tests/e2e/privacy-checks.ts.
import { privacyChecks } from './privacy-checks';
import { RELEASE_EXTENSION_DIR } from './harness';

privacyChecks('release', RELEASE_EXTENSION_DIR);
