/**
 * The manifest may not gain a permission, host or optional host that docs/security.md does not explain, and the doc
 * may not keep listing one the manifest dropped. Also pins the properties the review relies on: the CSP (no remote
 * script), no content scripts, no web-accessible resources, no externally_connectable.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import config, { HOST_PERMISSIONS, OPTIONAL_HOST_PERMISSIONS, PERMISSIONS } from '../../../wxt.config';
import { LOOPBACK_HOSTS } from '../../../core/remote-llm/config';

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

/** First-column backticked entries of the table whose header row starts with `| header |`. */
function table(text: string, header: string): string[] {
  return tableEntries(tableRows(text, header).join('\n'));
}

/** The body rows of the table whose header row starts with `| header |`. */
function tableRows(text: string, header: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${header} |`));
  expect(start, `no table headed "${header}" in docs/security.md`).toBeGreaterThanOrEqual(0);
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows;
}

const manifest = (config as { manifest: Record<string, unknown> }).manifest;

describe('docs/security.md covers the manifest', () => {
  it('the manifest really uses the exported PERMISSIONS, HOST_PERMISSIONS and OPTIONAL_HOST_PERMISSIONS', () => {
    expect(manifest.permissions).toEqual(PERMISSIONS);
    expect(manifest.host_permissions).toEqual(HOST_PERMISSIONS);
    expect(manifest.optional_host_permissions).toEqual(OPTIONAL_HOST_PERMISSIONS);
  });

  it('every permission is explained, and nothing explained is missing from the manifest', () => {
    const documented = tableEntries(section('Permissions'));
    for (const p of PERMISSIONS) expect(documented, `permission "${p}" is not explained in docs/security.md`).toContain(p);
    for (const p of documented)
      expect(PERMISSIONS, `docs/security.md explains "${p}", which the manifest no longer has`).toContain(p);
  });

  it('every host permission is explained, and nothing explained is missing from the manifest', () => {
    const documented = table(section('Host permissions'), 'host pattern');
    for (const h of HOST_PERMISSIONS) expect(documented, `host "${h}" is not explained in docs/security.md`).toContain(h);
    for (const h of documented)
      expect(HOST_PERMISSIONS, `docs/security.md explains host "${h}", which the manifest no longer has`).toContain(h);
  });

  it('every optional host permission is explained, and nothing explained is missing from the manifest', () => {
    const documented = table(section('Host permissions'), 'optional host pattern');
    for (const h of OPTIONAL_HOST_PERMISSIONS)
      expect(documented, `optional host "${h}" is not explained in docs/security.md`).toContain(h);
    for (const h of documented)
      expect(OPTIONAL_HOST_PERMISSIONS, `docs/security.md explains "${h}", which the manifest does not have`).toContain(h);
  });

  it('optional hosts are https origins and this computer only, exactly the loopback hosts the form accepts', () => {
    const http = OPTIONAL_HOST_PERMISSIONS.filter((h) => h !== 'https://*/*');
    expect(OPTIONAL_HOST_PERMISSIONS).toContain('https://*/*');
    for (const h of http)
      expect(h, `"${h}" is neither https nor loopback`).toMatch(/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])\/\*$/);
    expect(http.map((h) => /^http:\/\/(.+)\/\*$/.exec(h)![1]).sort()).toEqual([...LOOPBACK_HOSTS].sort());
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

  it('the hub is covered by a host permission; the tool APIs are not, and are named with their CORS evidence', async () => {
    const { OPEN_METEO_FORECAST_URL, OPEN_METEO_GEOCODING_URL } = await import('../../../core/tools/weather');
    const { WIKIMEDIA_IMAGE_HOST } = await import('../../../core/tools/wikipedia');
    const { DEFAULT_HUB_URL } = await import('../../../core/weights/registry');
    const covered = (url: string) =>
      HOST_PERMISSIONS.some((pattern) => {
        const m = /^https:\/\/(\*\.)?([^/]+)\/\*$/.exec(pattern)!;
        const host = new URL(url).hostname;
        return m[1] ? host.endsWith(`.${m[2]}`) : host === m[2];
      });
    expect(covered(DEFAULT_HUB_URL), DEFAULT_HUB_URL).toBe(true);
    const cors = tableRows(section('Host permissions'), 'host')
      .map((row) => row.split('|')[1]!)
      .join(' ');
    for (const url of [
      OPEN_METEO_FORECAST_URL,
      OPEN_METEO_GEOCODING_URL,
      'https://en.wikipedia.org/w/rest.php',
      `https://${WIKIMEDIA_IMAGE_HOST}/x.png`,
    ]) {
      expect(covered(url), `${url} must reach its API through CORS, with no host permission`).toBe(false);
      const host = new URL(url).hostname.replace(/^en\./, '{lang}.');
      expect(cors, `${host} is not in the CORS table of docs/security.md`).toContain(host);
    }
  });
});
