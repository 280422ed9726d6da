// AsrRuntime (transformers.js ASR pipeline) over the fixture Moonshine and Whisper repos, served over HTTP. The
// fixture decoders see the audio only through the cross-attention cache, so a tone and silence must transcribe
// differently, and each transcript must equal the JS reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoFeatureExtractor, type Tensor } from '@huggingface/transformers';
import { AsrRuntime } from '../../../models/asr/asr-runtime';
import { MOONSHINE, WHISPER } from '../../fixtures/models/generate';
import { asrReferenceTokens, type AsrSpec } from '../../fixtures/models/reference';
import { clip, expectRequestsInManifest, startFixtureHub, type HubEnv } from './hub-env';
import { ASR_BUNDLES, ASR_MODELS } from '../../../models/registry';

let hub: HubEnv;
let moonshine: AsrRuntime;
let whisper: AsrRuntime;

const LETTERS = ' abcdefghijklmnopqrstuvwxyz';

function referenceText(spec: AsrSpec, prompt: number[], summary: number): string {
  const ids = asrReferenceTokens(spec, prompt, summary);
  expect(ids.at(-1)).toBe(spec.eos);
  return ids
    .slice(0, -1)
    .map((id) => LETTERS[id - spec.textLo])
    .join('')
    .trim();
}

/** Every fixture step's logits are one-hot (10 vs 0), so each token's log-prob is −ln(1 + (V−1)·e^−10). */
function expectedLogProb(vocab: number): number {
  return -Math.log(1 + (vocab - 1) * Math.exp(-10));
}

function meanAbs(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += Math.abs(v);
  return s / x.length;
}

async function whisperFeatureMean(audio: Float32Array): Promise<number> {
  const processor = await AutoFeatureExtractor.from_pretrained(hub.repos.whisper, { revision: ASR_MODELS.whisper.revision });
  const { input_features } = (await processor(audio)) as { input_features: Tensor };
  const data = input_features.data as Float32Array;
  let s = 0;
  for (const v of data) s += v;
  return s / data.length;
}

beforeAll(async () => {
  hub = await startFixtureHub();
  moonshine = await AsrRuntime.load({ family: 'moonshine', device: 'cpu' });
  whisper = await AsrRuntime.load({ family: 'whisper', device: 'cpu' });
});

afterAll(async () => {
  await moonshine?.dispose();
  await whisper?.dispose();
  await hub?.close();
});

describe('AsrRuntime — Moonshine (fixture, over HTTP)', () => {
  it('requested the pinned fp32 encoder and merged decoder, and nothing the manifest does not list (Moonshine and Whisper)', () => {
    const files = expectRequestsInManifest(hub.hub.log, ASR_BUNDLES.moonshine);
    expect(files).toContain('onnx/encoder_model.onnx');
    expect(files).toContain('onnx/decoder_model_merged.onnx');
    expect(expectRequestsInManifest(hub.hub.log, ASR_BUNDLES.whisper)).toContain('onnx/decoder_model_merged.onnx');
  });

  it('transcribes a tone and silence like the reference, differently, with a measured confidence', async () => {
    const tone = clip(1.5, 440);
    const silence = clip(1.5, null);
    const a = await moonshine.transcribe(tone);
    const b = await moonshine.transcribe(silence);
    expect(a.text).toBe(referenceText(MOONSHINE, [MOONSHINE.bos], meanAbs(tone)));
    expect(b.text).toBe(referenceText(MOONSHINE, [MOONSHINE.bos], 0));
    expect(a.text).not.toBe(b.text);
    expect(a.text).not.toContain('<ERR>');
    expect(a.tokens).toBe(6); // 5 text tokens + EOS
    expect(a.meanLogProb!).toBeCloseTo(expectedLogProb(MOONSHINE.vocab), 5);
    expect(a.confidence!).toBeCloseTo(Math.exp(expectedLogProb(MOONSHINE.vocab)), 5);
  });

  it('still decodes a clip shorter than one second (the pipeline default would allow 0 tokens)', async () => {
    const short = clip(0.6, 440);
    const result = await moonshine.transcribe(short);
    expect(result.text).toBe(referenceText(MOONSHINE, [MOONSHINE.bos], meanAbs(short)));
    expect(result.tokens).toBe(6);
  });

  it('returns nothing for an already-aborted request', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await moonshine.transcribe(clip(1, 440), { signal: controller.signal })).toEqual({
      text: '',
      confidence: null,
      meanLogProb: null,
      tokens: 0,
      ids: [],
      draftAccepted: 0,
    });
  });
});

describe('AsrRuntime — Moonshine with a draft (an earlier transcript of the clip as the decoder prompt)', () => {
  /** Counts the decoder passes of the next transcriptions (each generate() step is one forward). */
  function countPasses(): { passes: number; stop(): void } {
    const model = (moonshine as unknown as { asr: { model: { forward: (x: unknown) => Promise<unknown> } } }).asr.model;
    const forward = model.forward;
    const counter = { passes: 0, stop: () => (model.forward = forward) };
    model.forward = (x) => {
      counter.passes += 1;
      return forward(x);
    };
    return counter;
  }

  it('a draft the decoder agrees with is checked in one pass: same transcript and confidence, fewer passes', async () => {
    const tone = clip(1.5, 440);
    const plain = await moonshine.transcribe(tone);
    expect(plain.ids).toHaveLength(5);
    const counter = countPasses();
    const drafted = await moonshine.transcribe(tone, { draft: plain.ids.slice(0, 4) });
    counter.stop();
    expect(drafted.text).toBe(plain.text);
    expect(drafted.ids).toEqual(plain.ids);
    expect(drafted.draftAccepted).toBe(4);
    expect(drafted.tokens).toBe(plain.tokens);
    expect(drafted.meanLogProb!).toBeCloseTo(plain.meanLogProb!, 6);
    // One pass over the prompt (which also yields the fifth token), one for EOS: 2 instead of 6.
    expect(counter.passes).toBe(2);
  });

  it('a draft that goes astray is kept up to where it disagrees and decoded from there: the same transcript', async () => {
    const tone = clip(1.5, 440);
    const plain = await moonshine.transcribe(tone);
    const wrong = plain.ids[2] === MOONSHINE.textLo ? MOONSHINE.textLo + 1 : MOONSHINE.textLo;
    const counter = countPasses();
    const drafted = await moonshine.transcribe(tone, { draft: [plain.ids[0]!, plain.ids[1]!, wrong, plain.ids[3]!] });
    counter.stop();
    expect(drafted.text).toBe(plain.text);
    expect(drafted.ids).toEqual(plain.ids);
    expect(drafted.draftAccepted).toBe(2);
    expect(drafted.meanLogProb!).toBeCloseTo(plain.meanLogProb!, 6);
    // The checked pass (stopped after its first step), then the agreed prefix plus the correction: tokens 4, 5, EOS.
    expect(counter.passes).toBe(1 + 3);
  });

  it("another clip's transcript as the draft changes nothing in the result", async () => {
    const tone = clip(1.5, 440);
    const silence = clip(1.5, null);
    const [a, b] = [await moonshine.transcribe(tone), await moonshine.transcribe(silence)];
    expect(a.ids).not.toEqual(b.ids);
    const drafted = await moonshine.transcribe(silence, { draft: a.ids });
    expect(drafted.text).toBe(b.text);
    expect(drafted.ids).toEqual(b.ids);
  });
});

describe('AsrRuntime — Whisper base (fixture, over HTTP)', () => {
  const prompt = (lang: 'en' | 'de') => [WHISPER.sot, WHISPER.lang[lang]!, WHISPER.transcribe, WHISPER.noTimestamps];

  it('transcribes a tone and silence like the reference, differently', async () => {
    const tone = clip(1, 440);
    const silence = clip(1, null);
    const a = await whisper.transcribe(tone, { language: 'en' });
    const b = await whisper.transcribe(silence, { language: 'en' });
    expect(a.text).toBe(referenceText(WHISPER, prompt('en'), await whisperFeatureMean(tone)));
    expect(b.text).toBe(referenceText(WHISPER, prompt('en'), await whisperFeatureMean(silence)));
    expect(a.text).not.toBe(b.text);
    expect(a.meanLogProb!).toBeCloseTo(expectedLogProb(WHISPER.vocab), 5);
  });

  it('puts the requested language into the decoder prompt', async () => {
    const tone = clip(1, 440);
    const de = await whisper.transcribe(tone, { language: 'de' });
    expect(de.text).toBe(referenceText(WHISPER, prompt('de'), await whisperFeatureMean(tone)));
  });
});
