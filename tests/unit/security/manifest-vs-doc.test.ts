/**
 * The manifest may not gain a permission, host or optional host that docs/security.md does not explain, and the doc
 * may not keep listing one the manifest dropped. Also pins the properties the review relies on: the CSP (no remote
 * script), no content scripts, no web-accessible resources, no externally_connectable.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import config, { HOST_PERMISSIONS, PERMISSIONS } from '../../../wxt.config';

const doc = readFileSync('docs/security.md', 'utf8');

/** The text of one `## ` section of the doc. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  expect(start, `docs/security.md has no "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const next = doc.indexOf('\n## ', start + 4);
  return doc.slice(start, next < 0 ? undefined : next);
}

/** Backticked tokens that start a table row: `| \`token\` | …`. */
function tableEntries(text: string): string[] {
  return [...text.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!);
}

const manifest = (config as { manifest: Record<string, unknown> }).manifest;

describe('docs/security.md covers the manifest', () => {
  it('the manifest really uses the exported PERMISSIONS and HOST_PERMISSIONS', () => {
    expect(manifest.permissions).toEqual(PERMISSIONS);
    expect(manifest.host_permissions).toEqual(HOST_PERMISSIONS);
  });

  it('every permission is explained, and nothing explained is missing from the manifest', () => {
    const documented = tableEntries(section('Permissions'));
    for (const p of PERMISSIONS) expect(documented, `permission "${p}" is not explained in docs/security.md`).toContain(p);
    for (const p of documented)
      expect(PERMISSIONS, `docs/security.md explains "${p}", which the manifest no longer has`).toContain(p);
  });

  it('every host permission is explained, and nothing explained is missing from the manifest', () => {
    const documented = tableEntries(section('Host permissions'));
    for (const h of HOST_PERMISSIONS) expect(documented, `host "${h}" is not explained in docs/security.md`).toContain(h);
    for (const h of documented)
      expect(HOST_PERMISSIONS, `docs/security.md explains host "${h}", which the manifest no longer has`).toContain(h);
  });

  it('optional host permissions are listed', () => {
    const optional = (manifest.optional_host_permissions ?? []) as string[];
    const text = section('Host permissions');
    for (const h of optional) expect(text, `optional host "${h}" is not in docs/security.md`).toContain(`\`${h}\``);
  });

  it('the CSP is quoted verbatim and allows no remote or inline script', () => {
    const csp = (manifest.content_security_policy as { extension_pages: string }).extension_pages;
    expect(section('Content Security Policy and code')).toContain(`\`${csp}\``);
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1]?.split(/\s+/) ?? [];
    expect(scriptSrc.sort()).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(csp).not.toMatch(/'unsafe-eval'|unsafe-inline|https?:|\*/);
  });

  it('no content scripts, web-accessible resources or external messaging (as the doc states)', () => {
    expect(manifest.content_scripts).toBeUndefined();
    expect(manifest.web_accessible_resources).toBeUndefined();
    expect(manifest.externally_connectable).toBeUndefined();
    const text = section('Permissions');
    expect(text).toMatch(/\*\*no\s+content\s+scripts\*\*/);
    expect(text).toMatch(/\*\*no\s+`web_accessible_resources`\*\*/);
    expect(text).toMatch(/\*\*no\s+`externally_connectable`\*\*/);
  });

  it('every tool API host the code contacts is a documented host permission', async () => {
    const { OPEN_METEO_FORECAST_URL, OPEN_METEO_GEOCODING_URL } = await import('../../../core/tools/weather');
    const { DEFAULT_HUB_URL } = await import('../../../core/weights/registry');
    const covered = (url: string) =>
      HOST_PERMISSIONS.some((pattern) => {
        const m = /^https:\/\/(\*\.)?([^/]+)\/\*$/.exec(pattern)!;
        const host = new URL(url).hostname;
        return m[1] ? host.endsWith(`.${m[2]}`) : host === m[2];
      });
    for (const url of [
      OPEN_METEO_FORECAST_URL,
      OPEN_METEO_GEOCODING_URL,
      DEFAULT_HUB_URL,
      'https://en.wikipedia.org/w/rest.php',
    ]) {
      expect(covered(url), url).toBe(true);
    }
  });
});
