import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 0xff);
let hub: HubServer | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe('hub fixture server', () => {
  it('serves files in the hub layout for any revision, with CORS, ETag and Range', async () => {
    const model = bytes(1000);
    hub = await startHubServer({ files: { 'org/m/onnx/model.onnx': model, 'org/m/config.json': '{"a":1}' } });
    for (const rev of ['main', 'r1']) {
      const r = await fetch(`${hub.url}/org/m/resolve/${rev}/config.json`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(r.headers.get('access-control-expose-headers')).toContain('X-Linked-Etag');
      expect(r.headers.get('etag')).toMatch(/^".+"$/);
      expect(await r.text()).toBe('{"a":1}');
    }
    const url = `${hub.url}/org/m/resolve/main/onnx/model.onnx`;
    const full = await fetch(url);
    expect(full.headers.get('content-length')).toBe('1000');
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const sha = createHash('sha256').update(model).digest('hex');
    expect(full.headers.get('x-linked-etag')).toBe(`"${sha}"`);
    expect(full.headers.get('x-linked-size')).toBe('1000');
    expect(new Uint8Array(await full.arrayBuffer())).toEqual(model);

    const cases: Array<[string, number, number]> = [
      ['bytes=10-19', 10, 19],
      ['bytes=990-', 990, 999],
      ['bytes=-5', 995, 999],
      ['bytes=0-0', 0, 0],
    ];
    for (const [range, a, b] of cases) {
      const r = await fetch(url, { headers: { Range: range } });
      expect(r.status).toBe(206);
      expect(r.headers.get('content-range')).toBe(`bytes ${a}-${b}/1000`);
      expect(new Uint8Array(await r.arrayBuffer())).toEqual(model.subarray(a, b + 1));
    }
    const past = await fetch(url, { headers: { Range: 'bytes=1000-' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */1000');
    expect((await fetch(`${hub.url}/org/m/resolve/main/missing.json`)).status).toBe(404);
    const opt = await fetch(url, { method: 'OPTIONS' });
    expect(opt.status).toBe(204);
    expect(opt.headers.get('access-control-allow-headers')).toContain('Range');
    expect(hub.log.map((e) => e.status)).toEqual([200, 200, 200, 206, 206, 206, 206, 416, 404, 204]);
    expect(hub.log[3]).toMatchObject({ method: 'GET', range: 'bytes=10-19', status: 206, bytes: 10 });
  });

  it('redirects LFS files to a CDN on another origin with the hub headers, and serves a root dir and static mounts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hub-'));
    await mkdir(join(dir, 'org/m/onnx'), { recursive: true });
    const model = bytes(300);
    await writeFile(join(dir, 'org/m/onnx/model.onnx'), model);
    await mkdir(join(dir, 'page'));
    await writeFile(join(dir, 'page/index.html'), '<p>hi</p>');
    hub = await startHubServer({
      root: dir,
      redirectLfs: true,
      static: [{ prefix: '/static/', dir: join(dir, 'page'), headers: { 'Cross-Origin-Opener-Policy': 'same-origin' } }],
    });
    const url = `${hub.url}/org/m/resolve/main/onnx/model.onnx`;
    const manual = await fetch(url, { redirect: 'manual' });
    const sha = createHash('sha256').update(model).digest('hex');
    expect(manual.status).toBe(302);
    const location = new URL(manual.headers.get('location') ?? '');
    expect(location.origin).toBe(hub.cdnUrl);
    expect(location.origin).not.toBe(new URL(hub.url).origin);
    expect(location.pathname).toBe(`/xet-bridge/${sha}`);
    expect(manual.headers.get('x-linked-etag')).toBe(`"${sha}"`);
    expect(manual.headers.get('x-linked-size')).toBe('300');
    expect(manual.headers.get('x-repo-commit')).toBe('main');
    // A CDN URL for other bytes than its hash says is refused, as a signed URL that does not match would be.
    expect((await fetch(`${hub.cdnUrl}/xet-bridge/${'0'.repeat(64)}?key=org/m/onnx/model.onnx`)).status).toBe(403);
    const followed = await fetch(url, { headers: { Range: 'bytes=100-' } });
    expect(followed.status).toBe(206);
    expect(followed.headers.get('etag')).toBe(`"${sha}"`);
    expect(new Uint8Array(await followed.arrayBuffer())).toEqual(model.subarray(100));
    const page = await fetch(`${hub.url}/static/index.html`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(await page.text()).toBe('<p>hi</p>');
    expect((await fetch(`${hub.url}/static/../org/m/onnx/model.onnx`)).status).toBe(404);
  });

  it('applies faults: drop, 500, html, corrupt, ignoreRange, slow, with a use count', async () => {
    const model = bytes(5000);
    const key = 'org/m/model.bin';
    hub = await startHubServer({ files: { [key]: model } });
    const url = `${hub.url}/org/m/resolve/main/model.bin`;

    hub.setFault(key, { kind: 'drop', afterBytes: 1234, times: 1 });
    const dropped = await fetch(url);
    await expect(dropped.arrayBuffer()).rejects.toThrow();
    expect(hub.log.at(-1)).toMatchObject({ status: 200, bytes: 1234, fault: 'drop' });
    expect(new Uint8Array(await (await fetch(url)).arrayBuffer())).toEqual(model); // times: 1 used up

    hub.setFault(key, { kind: 'status', status: 500 });
    expect((await fetch(url)).status).toBe(500);
    expect((await fetch(url)).status).toBe(500);
    hub.setFault(key, { kind: 'html' });
    const html = await fetch(url);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    await html.text();
    hub.setFault(key, { kind: 'corrupt', times: 1 });
    const bad = new Uint8Array(await (await fetch(url)).arrayBuffer());
    expect(bad.byteLength).toBe(5000);
    expect(bad).not.toEqual(model);
    hub.setFault(key, { kind: 'ignoreRange', times: 1 });
    const ignored = await fetch(url, { headers: { Range: 'bytes=10-' } });
    expect(ignored.status).toBe(200);
    expect((await ignored.arrayBuffer()).byteLength).toBe(5000);
    hub.setFault(key, { kind: 'slow', delayMs: 1, chunkBytes: 1000, times: 1 });
    expect(new Uint8Array(await (await fetch(url)).arrayBuffer())).toEqual(model);
    expect(hub.log.at(-1)).toMatchObject({ fault: 'slow', bytes: 5000 });
    hub.setFault(key, null);
    expect((await fetch(url)).status).toBe(200);
  });
});
