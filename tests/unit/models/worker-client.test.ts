/** The one worker client (models/workers/worker-client.ts): every reply finds its request, and nothing waits forever. */
import { describe, expect, it } from 'vitest';
import { WorkerClient } from '../../../models/workers/worker-client';
import { FakeWorker } from '../helpers/fake-worker';

type Req =
  { type: 'job'; requestId?: string; n: number } | { type: 'stats'; requestId?: string } | { type: 'cancel'; requestId: string };
type Ev =
  | { type: 'part'; requestId: string; text: string }
  | { type: 'done'; requestId: string; n: number }
  | { type: 'stats'; requestId: string; buffers: number }
  | { type: 'status'; busy: boolean }
  | { type: 'error'; requestId?: string; message: string };

function setup() {
  FakeWorker.made = [];
  const client = new WorkerClient<Req, Ev>(() => new FakeWorker<Ev>(), {
    name: 'test worker',
    errorOf: (e) => (e.type === 'error' ? new Error(e.message) : null),
  });
  const worker = () => FakeWorker.made.at(-1) as FakeWorker<Ev>;
  return { client, worker };
}

describe('WorkerClient', () => {
  it('gives every request its own id and routes each reply to it, in any order (a second request does not replace the first)', async () => {
    const { client, worker } = setup();
    const a = client.request({ type: 'stats' }, ['stats']);
    const b = client.request({ type: 'stats' }, ['stats']);
    expect(a.requestId).not.toBe(b.requestId);
    expect(worker().sent.map((m) => m.requestId)).toEqual([a.requestId, b.requestId]);
    worker().answer({ type: 'stats', requestId: b.requestId, buffers: 2 });
    worker().answer({ type: 'stats', requestId: a.requestId, buffers: 1 });
    expect((await a.reply).buffers).toBe(1);
    expect((await b.reply).buffers).toBe(2);
    expect(client.inFlight).toBe(0);
  });

  it('streams the events before the final one to the request, and tells the listener about every event', async () => {
    const { client, worker } = setup();
    const parts: string[] = [];
    const seen: string[] = [];
    client.onEvent = (e) => seen.push(e.type);
    const job = client.request({ type: 'job', n: 1 }, ['done'], { onEvent: (e) => e.type === 'part' && parts.push(e.text) });
    worker().answer({ type: 'status', busy: true });
    worker().answer({ type: 'part', requestId: job.requestId, text: 'a' });
    worker().answer({ type: 'part', requestId: job.requestId, text: 'b' });
    worker().answer({ type: 'done', requestId: job.requestId, n: 1 });
    expect((await job.reply).n).toBe(1);
    expect(parts).toEqual(['a', 'b']);
    expect(seen).toEqual(['status', 'part', 'part', 'done']);
  });

  it('rejects exactly the request an error names; others go on', async () => {
    const { client, worker } = setup();
    const bad = client.request({ type: 'job', n: 1 }, ['done']);
    const good = client.request({ type: 'job', n: 2 }, ['done']);
    worker().answer({ type: 'error', requestId: bad.requestId, message: 'no model' });
    await expect(bad.reply).rejects.toThrow('no model');
    worker().answer({ type: 'done', requestId: good.requestId, n: 2 });
    expect((await good.reply).n).toBe(2);
  });

  it('fails every pending request when the worker crashes, the stats request included', async () => {
    const { client, worker } = setup();
    const job = client.request({ type: 'job', n: 1 }, ['done']);
    const stats = client.request({ type: 'stats' }, ['stats']);
    worker().crash('out of memory');
    await expect(job.reply).rejects.toThrow('the test worker crashed: out of memory');
    await expect(stats.reply).rejects.toThrow(/crashed/);
    expect(client.inFlight).toBe(0);
  });

  it('replace() starts a new worker, fails what the old one held, and ignores its late replies', async () => {
    const { client, worker } = setup();
    const old = worker();
    const job = client.request({ type: 'job', n: 1 }, ['done']);
    client.replace(new Error('restarting'));
    expect(old.terminated).toBe(true);
    await expect(job.reply).rejects.toThrow('restarting');
    const next = client.request({ type: 'job', n: 2 }, ['done']);
    old.answer({ type: 'done', requestId: next.requestId, n: 99 }); // the old worker cannot answer the new one's request
    old.crash('late');
    worker().answer({ type: 'done', requestId: next.requestId, n: 2 });
    expect((await next.reply).n).toBe(2);
  });

  it('forget() drops a request its caller gave up on; a late reply is ignored', async () => {
    const { client, worker } = setup();
    const job = client.request({ type: 'job', n: 1 }, ['done']);
    client.post({ type: 'cancel', requestId: job.requestId });
    client.forget(job.requestId);
    expect(client.inFlight).toBe(0);
    worker().answer({ type: 'done', requestId: job.requestId, n: 1 });
    expect(worker().sent.at(-1)).toEqual({ type: 'cancel', requestId: job.requestId });
  });
});
