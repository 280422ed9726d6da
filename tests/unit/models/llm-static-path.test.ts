// The product runtime's decode-path selection (models/llm/static-path.ts, docs/llm-static-kv.md) with the real
// transformers.js + onnxruntime-node: a graph the static-KV rewrite does not recognise decodes on the plain path and
// says why; the tiny graphs in both exporters' structures decode through the static graph (capture off on the CPU)
// with the plain path's tokens and streamed pieces, across a prefix-cache reuse and an abort.
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@huggingface/transformers';
import { LlmRuntime, type ChatMessage } from '../../../models/llm/llm-runtime';
import type { OrtClasses } from '../../../models/llm/static-kv/static-decoder';
import { llmTunables, setTunable } from '../../../core/tunables';
import { LFM2_EXPORTER_STYLES } from '../../../bench/stages/lfm2-exporter-graphs';
import { LFM2_TINY } from '../../../bench/stages/llm-graph';
import { serveExporterLlm, startFixtureHub } from './hub-env';
import { hostWithEvents } from '../helpers/model-host';

const ORT = ort as unknown as OrtClasses;
const SYSTEM: ChatMessage = { role: 'system', content: 'You are Sidetalk.' };

/** Counts the plain graph's runs (transformers.js's session): one per token on the plain path, one per turn else. */
function countPlainRuns(llm: LlmRuntime): number[] {
  const lengths: number[] = [];
  const session = (llm.model as unknown as { sessions: Record<string, { run: (f: Record<string, Tensor>) => Promise<unknown> }> })
    .sessions.model!;
  const run = session.run.bind(session);
  session.run = (feeds) => {
    lengths.push(feeds.input_ids!.dims[1]!);
    return run(feeds);
  };
  return lengths;
}

describe('decode path: a graph the rewrite does not recognise', () => {
  let close: () => Promise<void>;
  beforeAll(async () => {
    close = (await startFixtureHub()).close;
  });
  afterAll(() => close());

  it('decodes on the plain path and the status carries the reason', async () => {
    const llm = await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'static', ort: ORT });
    try {
      expect(llm.decodeStatus.decode).toBe('plain');
      expect(llm.decodeStatus.plainReason).toMatch(/^graph not recognised: .*GroupQueryAttention/);
      const runs = countPlainRuns(llm);
      const result = await llm.generate([SYSTEM, { role: 'user', content: 'Question number 1?' }], { maxNewTokens: 5 });
      expect(result.stats.newTokens).toBeGreaterThan(0);
      expect(runs.slice(1).every((n) => n === 1)).toBe(true); // every decode step on the plain graph
      expect(runs).toHaveLength(result.stats.newTokens);
    } finally {
      await llm.dispose();
    }
  });

  it('in the product mode on the CPU, says there is no graph capture there', async () => {
    const llm = await LlmRuntime.load({ device: 'cpu', warmUp: false, ort: ORT });
    // The fixture's logits come from scripted arithmetic, not an LM head: the last-position rewrite says why it left them.
    expect(llm.decodeStatus).toEqual({
      decode: 'plain',
      plainReason: 'no graph capture on the CPU',
      allLogits: '"logits" comes from Expand, not the LM head',
    });
    await llm.dispose();
  });
});

for (const style of LFM2_EXPORTER_STYLES) {
  describe(`decode path: the ${style} structure, static graph vs plain graph`, () => {
    let close: () => Promise<void>;
    let plain: LlmRuntime;
    let stat: LlmRuntime;
    const savedBudget = llmTunables.contextTokenBudget;

    beforeAll(async () => {
      // The tiny graph's rotary table has 512 positions: the static cache's capacity (the token budget) must fit it.
      expect(setTunable('llm.contextTokenBudget', LFM2_TINY.maxPositions)).toEqual({ ok: true });
      const served = await serveExporterLlm(style);
      close = served.close;
      plain = await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'plain', ort: ORT });
      stat = await LlmRuntime.load({ device: 'cpu', warmUp: true, staticKv: 'static', ort: ORT });
    });
    afterAll(async () => {
      await plain?.dispose();
      await stat?.dispose();
      await close?.();
      setTunable('llm.contextTokenBudget', savedBudget);
    });

    async function both(messages: ChatMessage[], maxNewTokens: number, abortAfterPieces?: number) {
      const out = [];
      for (const llm of [plain, stat]) {
        const runs = countPlainRuns(llm);
        const pieces: string[] = [];
        const controller = new AbortController();
        const result = await llm.generate(messages, {
          maxNewTokens,
          signal: controller.signal,
          onDelta: (p) => {
            pieces.push(p);
            if (abortAfterPieces !== undefined && pieces.length >= abortAfterPieces) controller.abort();
          },
        });
        out.push({ ...result, pieces, runs: [...runs] });
      }
      return out as [(typeof out)[0], (typeof out)[0]];
    }

    it('loads the static path; the load-time check saw the same logits', () => {
      expect(plain.decodeStatus).toEqual({ decode: 'plain', plainReason: 'static-KV decode is turned off' });
      expect(stat.decodeStatus).toEqual({ decode: 'static' });
      expect(stat.staticCheck).toMatchObject({ maxAbsDiff: 0, relDiff: 0 });
    });

    it('streams the same pieces and tokens, with one plain run (the prefill) per turn', async () => {
      await Promise.all([plain.resetCache(), stat.resetCache()]);
      const [a, b] = await both([SYSTEM, { role: 'user', content: 'Tell me a story.' }], 40);
      expect(a.stats.newTokens).toBeGreaterThan(8);
      expect(a.pieces.length).toBeGreaterThan(4);
      expect(new Set(a.pieces).size).toBeGreaterThan(3); // an answer that moves
      expect(b.pieces).toEqual(a.pieces);
      expect(b.text).toBe(a.text);
      expect(b.stats).toEqual(a.stats);
      expect(a.runs).toEqual([a.stats.promptTokens, ...Array(a.stats.newTokens - 1).fill(1)]);
      expect(b.runs).toEqual([b.stats.promptTokens]);
    });

    it('with a strong repetition penalty the static steps apply it as generate() does', async () => {
      const saved = llmTunables.repetitionPenalty;
      const prompt: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Say it again and again.' }];
      try {
        expect(setTunable('llm.repetitionPenalty', 1)).toEqual({ ok: true });
        await Promise.all([plain.resetCache(), stat.resetCache()]);
        const [unpenalised] = await both(prompt, 200);
        expect(setTunable('llm.repetitionPenalty', 2)).toEqual({ ok: true });
        await Promise.all([plain.resetCache(), stat.resetCache()]);
        const [a, b] = await both(prompt, 200);
        expect(a.text).not.toBe(unpenalised.text); // the penalty decides tokens here
        expect(b.pieces).toEqual(a.pieces);
        expect(b.stats).toEqual(a.stats);
      } finally {
        setTunable('llm.repetitionPenalty', saved);
      }
    });

    it('after a static turn, the prefix cache serves the next turn with the same answer', async () => {
      await Promise.all([plain.resetCache(), stat.resetCache()]);
      const first: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Name a colour.' }];
      const [a1, b1] = await both(first, 12);
      expect(b1.text).toBe(a1.text);
      const next: ChatMessage[] = [...first, { role: 'assistant', content: a1.text }, { role: 'user', content: 'And then?' }];
      const [a2, b2] = await both(next, 24);
      expect(a2.stats.cachedTokens).toBeGreaterThan(0);
      expect(a2.stats.newTokens).toBeGreaterThan(2);
      expect(b2.stats).toEqual(a2.stats);
      expect(b2.pieces).toEqual(a2.pieces);
      expect(b2.runs).toEqual([b2.stats.prefillTokens]);
    });

    it('an abort mid-answer stops both paths at the same token, and the next turn still matches', async () => {
      await Promise.all([plain.resetCache(), stat.resetCache()]);
      const first: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Count slowly.' }];
      const [a1, b1] = await both(first, 60, 5);
      expect(a1.stats.aborted).toBe(true);
      expect(a1.stats.newTokens).toBeGreaterThanOrEqual(5); // aborted at the 5th piece (a token may stream none)
      expect(a1.stats.newTokens).toBeLessThan(60);
      expect(b1.stats).toEqual(a1.stats);
      expect(b1.pieces).toEqual(a1.pieces);
      const next: ChatMessage[] = [...first, { role: 'assistant', content: a1.text }, { role: 'user', content: 'Go on.' }];
      const [a2, b2] = await both(next, 20);
      expect(a2.stats.cachedTokens).toBeGreaterThan(0);
      expect(b2.stats).toEqual(a2.stats);
      expect(b2.text).toBe(a2.text);
      console.info(
        `[static path] ${style}: turn 1 ${a1.stats.newTokens} tokens (aborted), turn 2 ${a2.stats.newTokens} tokens, ${a2.stats.cachedTokens} cached`,
      );
    });

    /**
     * Devices where one session computes wrong logits. Seen in Chromium on a real GPU (the H100's OpenGL ES adapter):
     * every logit the plain session handed back made the greedy pick token 0, prefill and steps alike, while the
     * static session's step picked what Node + Vulkan picked. Made here by rewriting the logits of one session's runs
     * (the static session's past is capacity-long; the plain one's is not): zeroed (degenerate), or negated (wrong
     * but not degenerate, which only a full recompute can tell). `restore` ends the fault.
     */
    type Fault = 'plain-zero' | 'plain-steps-negated' | 'static-zero';
    async function loadWithFault(fault: Fault): Promise<{ llm: LlmRuntime; restore: () => void }> {
      const proto = (ort.InferenceSession as unknown as { prototype: unknown }).prototype as {
        run: (...a: unknown[]) => Promise<Record<string, ort.Tensor>>;
      };
      const run = proto.run;
      proto.run = async function (this: unknown, ...args: unknown[]) {
        const feeds = args[0] as Record<string, ort.Tensor>;
        const out = await run.apply(this, args);
        const past = Object.entries(feeds).find(([k]) => k.startsWith('past_key_values.'))?.[1];
        const isStatic = past?.dims[2] === llmTunables.contextTokenBudget;
        const single = feeds.input_ids?.dims[1] === 1;
        if (!out.logits) return out;
        const data = out.logits.data as Float32Array;
        if ((fault === 'plain-zero' && !isStatic) || (fault === 'static-zero' && isStatic))
          return { ...out, logits: new ort.Tensor('float32', new Float32Array(data.length), out.logits.dims) };
        if (fault === 'plain-steps-negated' && !isStatic && single)
          return {
            ...out,
            logits: new ort.Tensor(
              'float32',
              data.map((v) => -v),
              out.logits.dims,
            ),
          };
        return out;
      };
      const restore = () => void (proto.run = run);
      try {
        return { llm: await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'static', ort: ORT }), restore };
      } catch (e) {
        restore();
        throw e;
      }
    }

    /** Two turns (the second over the prefix cache) on `llm`, beside the healthy static runtime. */
    async function twoTurnsLikeHealthy(llm: LlmRuntime) {
      await stat.resetCache();
      const q1 = [SYSTEM, { role: 'user' as const, content: 'Question number 2?' }];
      const [want1, got1] = [await stat.generate(q1, { maxNewTokens: 12 }), await llm.generate(q1, { maxNewTokens: 12 })];
      expect(got1.text).toBe(want1.text);
      expect(got1.stats).toEqual(want1.stats);
      const q2 = [...q1, { role: 'assistant' as const, content: want1.text }, { role: 'user' as const, content: 'And then?' }];
      const [want2, got2] = [await stat.generate(q2, { maxNewTokens: 12 }), await llm.generate(q2, { maxNewTokens: 12 })];
      expect(want2.stats.cachedTokens).toBeGreaterThan(0);
      expect(got2.text).toBe(want2.text);
      expect(got2.stats).toEqual(want2.stats);
    }

    it('plain logits degenerate on this device (prefill too): static path, first token from a static step, answers as healthy', async () => {
      const { llm, restore } = await loadWithFault('plain-zero');
      try {
        expect(llm.decodeStatus).toEqual({
          decode: 'static',
          plainFault: 'its logits were all equal or not finite at load-time check step 1',
        });
        await twoTurnsLikeHealthy(llm); // the fault stays on: every plain logit is still zero
      } finally {
        restore();
        await llm.dispose();
      }
    });

    it('plain decode steps wrong but not degenerate: a full recompute sides with the static path, which answers as healthy', async () => {
      const { llm, restore } = await loadWithFault('plain-steps-negated');
      try {
        expect(llm.decodeStatus.decode).toBe('static');
        expect(llm.decodeStatus.plainFault).toMatch(/^load-time check step 1: plain token \d+, recomputed \d+$/);
        await twoTurnsLikeHealthy(llm);
      } finally {
        restore();
        await llm.dispose();
      }
    });

    it('static logits degenerate: the product keeps the plain path, saying why', async () => {
      const { llm, restore } = await loadWithFault('static-zero');
      restore();
      try {
        expect(llm.decodeStatus.decode).toBe('plain');
        expect(llm.decodeStatus.plainFault).toBeUndefined();
        expect(llm.decodeStatus.plainReason).toMatch(
          /^the load-time check differed \(step 1: token 0, plain \d+; the static logits were all equal or not finite\)$/,
        );
      } finally {
        await llm.dispose();
      }
    });

    it('a static step that fails: that turn fails, the worker posts the plain path and why, later turns decode plain', async () => {
      const broken = await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'static', ort: ORT });
      try {
        expect(broken.decodeStatus).toEqual({ decode: 'static' });
        // A GPU lost mid-answer: the decoder's next step rejects.
        const decoder = (broken as unknown as { decoder: { step: () => Promise<Float32Array> } }).decoder;
        decoder.step = () => Promise.reject(new Error('device lost'));
        const { host, events } = hostWithEvents();
        (host as unknown as { llm: LlmRuntime }).llm = broken;
        const messages = [SYSTEM, { role: 'user' as const, content: 'Tell me a story.' }];
        await host.handle({ type: 'llm', requestId: 'r1', messages, maxNewTokens: 12 });
        const plain = { decode: 'plain', plainReason: 'a static decode step failed: device lost' };
        expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['error', 'llm-decode']));
        expect(events.find((e) => e.type === 'llm-decode')).toEqual({ type: 'llm-decode', status: plain });
        expect(broken.decodeStatus).toEqual(plain);
        events.length = 0;
        const runs = countPlainRuns(broken);
        await host.handle({ type: 'llm', requestId: 'r2', messages, maxNewTokens: 12 });
        const done = events.find((e) => e.type === 'llm-done');
        expect(done).toMatchObject({ requestId: 'r2', aborted: false });
        expect(events.some((e) => e.type === 'llm-decode')).toBe(false); // unchanged: nothing to post
        expect(runs.length).toBeGreaterThan(1); // a plain-graph run per token again
        expect(runs.slice(1).every((n) => n === 1)).toBe(true);
      } finally {
        await broken.dispose();
      }
    });
  });
}
