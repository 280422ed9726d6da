// The e2e tests need Debian's Chromium (Playwright's own browser download is not used). Fail loudly, never skip.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const chromium = process.env.SIDETALK_CHROMIUM ?? '/usr/bin/chromium';
const missing = [];
if (!existsSync(chromium)) missing.push(`chromium (${chromium})`);
for (const tool of ['espeak-ng', 'sox']) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    missing.push(tool);
  }
}
if (missing.length) {
  console.error(`End-to-end tests need: ${missing.join(', ')}.`);
  console.error('Install them with: sudo apt-get install -y --no-install-recommends chromium espeak-ng sox');
  process.exit(1);
}
