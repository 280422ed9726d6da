import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { OffscreenStatus, Reply } from '../../core/protocol';
import { heardText, type SentenceAudio } from '../../core/engine/heard-text';
import type { PlayedReferenceCheck } from '../../entrypoints/offscreen/played-reference';
import { interruptedCaption, interruptedEntry } from '../../core/engine/interrupted-reply';
import { makeScriptWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { openTalkingPanel } from './talking-panel';
import { engineMarks, poll, request, screenshotColours, sendFromPage, type EngineMark, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const marks = () => engineMarks(panel);
/** Silence between the question and "And in Paris?" on the fake microphone. */
const RESUME_AFTER_S = 2;
/** The spoken turn's reply waits this long for its first token, so the second phrase lands before any reply audio. */
const SLOW_FIRST_TOKEN_MS = 4500;

/** What the side panel page records of a reply: the engine's final assistant captions and the audio channel's chunks. */
type Heard = {
  __captions: { text: string; turnId: string }[];
  __speech: { turnId: string; text: string; samples: number }[];
};
const alnum = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, '');
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
/** True when every character of `part` appears in `whole`, in order. */
function isSubsequence(part: string, whole: string): boolean {
  let i = 0;
  for (const ch of whole) if (ch === part[i]) i += 1;
  return i === part.length;
}
/** A scripted reply long enough to be stopped in the middle. */
const STORY =
  'The lighthouse keeper climbed the stairs every evening before dark. ' +
  'He wiped the great lens and lit the lamp for the boats. ' +
  'Far below, the waves broke on the rocks and the gulls went quiet. ' +
  'One night a small boat came out of the fog and asked for help.';
const marksOf = (all: EngineMark[], turnId: string) => all.filter((m) => m.turnId === turnId).map((m) => m.name);

beforeAll(async () => {
  fixtures = await startFixtureHub();
  // A question, then more words just after the endpoint (which the end-of-turn model makes ~200 ms after the last
  // word) and before the reply is heard; then a long silent tail: the fake mic loops the file, and the repeat would
  // (rightly) barge in on the reply.
  const { wav } = makeScriptWav(
    'turn-mic-resume',
    [
      ['What time is it in Tokyo right now?', RESUME_AFTER_S],
      ['And in Paris?', 20],
    ],
    1.5,
  );
  ({ session, panel } = await openTalkingPanel(fixtures, { micWav: wav }));
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('a conversation in the built extension (fixture models, real runtimes)', () => {
  it('answers a typed arithmetic question with the exact result, a card and spoken audio with lips', async () => {
    await panel.getByTestId('composer').fill('what is 12 times 12');
    await panel.getByRole('button', { name: 'Send' }).click();
    const assistant = panel.locator('.line.assistant').first();
    await poll(
      () => assistant.innerText().catch(() => ''),
      (t) => t.includes('144'),
      90_000,
    );
    await panel.getByTestId('card-calculation').waitFor({ state: 'visible' });
    expect(await panel.locator('.line.user').first().innerText()).toContain('12 times 12');
    // The audio went through the side panel's player: its playback events reached the engine and ended the reply.
    const all = await poll(marks, (m) => m.some((x) => x.name === 'done'), 60_000, 250);
    const turn = all.find((m) => m.name === 'first-speak')!.turnId;
    expect(marksOf(all, turn)).toEqual(expect.arrayContaining(['first-speak', 'first-audio', 'done']));
    expect(await screenshotColours(panel, 'conversation-typed')).toBeGreaterThan(50);
  });

  it('a typed open question goes through the local LLM: its streamed tokens reach the caption and the voice', async () => {
    // What the page hears: the engine's captions (runtime events) and every chunk on the audio channel.
    await panel.evaluate(() => {
      const w = globalThis as unknown as Heard;
      w.__captions = [];
      w.__speech = [];
      chrome.runtime.onMessage.addListener(
        (m: { type?: string; payload?: { role: string; text: string; final: boolean; turnId: string } }) => {
          if (m?.type === 'event/caption' && m.payload?.role === 'assistant' && m.payload.final) w.__captions.push(m.payload);
        },
      );
      new BroadcastChannel('sidetalk-audio').onmessage = (e: MessageEvent) => {
        const c = e.data as { kind: string; turnId: string; text?: string; samples?: Float32Array };
        if (c.kind === 'chunk') w.__speech.push({ turnId: c.turnId, text: c.text ?? '', samples: c.samples?.length ?? 0 });
      };
    });
    // The fixture LLM's tokens follow its whole prompt (the local time and the history are in it): a few questions
    // give one that answers in words rather than ending at once or with markup alone; that one is checked.
    const questions = [
      'tell me a story about the sea',
      'what do you think about rivers',
      'describe a quiet morning',
      'say something kind',
    ];
    let checked = false;
    const tooShort: { raw: string; caption: string }[] = [];
    for (const question of questions) {
      const before = (await marks()).length;
      await panel.getByTestId('composer').fill(question);
      await panel.getByRole('button', { name: 'Send' }).click();
      const all = await poll(marks, (m) => m.slice(before).some((x) => x.name === 'done'), 90_000, 250);
      const turn = all.slice(before).find((x) => x.name === 'done')!.turnId;
      const names = marksOf(all, turn);
      expect(names).toEqual(expect.arrayContaining(['llm-start', 'first-speak', 'first-audio', 'done']));
      const log = await sendFromPage<Reply<{ source: string; text: string }[]>>(panel, request('debug/llm-log', 'offscreen'));
      if (!log.ok) throw new Error(log.error.message);
      const raw = log.data.at(-1)!;
      expect(raw.source).toBe('local');
      if (names.includes('degenerate') || alnum(raw.text).length < 8) continue;

      const heard = await poll(
        () =>
          panel.evaluate(() => {
            const w = globalThis as unknown as Heard;
            return { __captions: [...w.__captions], __speech: [...w.__speech] };
          }),
        (h) => h.__captions.some((c) => c.turnId === turn),
      );
      const caption = heard.__captions.filter((c) => c.turnId === turn).at(-1)?.text ?? '';
      const spoken = heard.__speech.filter((c) => c.turnId === turn);
      // A reply whose letters were mostly control tokens or markup (dropped on the way) leaves too little to check.
      if (alnum(caption).length < 3) {
        tooShort.push({ raw: raw.text, caption });
        continue;
      }
      // The caption is the model's own characters, in order (markup and control tokens dropped on the way) ...
      expect(
        isSubsequence(alnum(caption), alnum(raw.text)),
        `caption ${JSON.stringify(caption)} from ${JSON.stringify(raw.text)}`,
      ).toBe(true);
      // ... and exactly what the voice was given to say, sentence by sentence, as real audio.
      expect(squash(spoken.map((c) => c.text).join(' '))).toBe(squash(caption));
      expect(spoken.reduce((n, c) => n + c.samples, 0)).toBeGreaterThan(0);
      expect(await panel.locator('.line.assistant').last().innerText()).toContain(caption.trim().slice(0, 20));
      checked = true;
      break;
    }
    expect(checked, `no question got an answer in words from the fixture LLM: ${JSON.stringify(tooShort)}`).toBe(true);
    expect(await panel.getByTestId('conversation-notice').count()).toBe(0);
  });

  it('Escape stops a reply mid-sentence: one interrupted end, one stop on the audio channel, no audio after it; the caption and the history keep the words played', async () => {
    type Seen = { kind: string; turnId: string; text?: string; ms: number };
    type Played = { type: string; turnId?: string; interrupted?: boolean; playedMs?: number };
    type Caption = { text: string; turnId: string };
    await panel.evaluate(() => {
      const g = globalThis as unknown as { __audioSeen: Seen[]; __played: Played[]; __stopCaptions: Caption[] };
      g.__audioSeen = [];
      g.__played = [];
      g.__stopCaptions = [];
      new BroadcastChannel('sidetalk-audio').onmessage = (e: MessageEvent) => {
        const m = e.data as { kind: string; turnId: string; text?: string; samples?: Float32Array; sampleRate?: number };
        const ms = m.samples && m.sampleRate ? (m.samples.length / m.sampleRate) * 1000 : 0;
        g.__audioSeen.push({ kind: m.kind, turnId: m.turnId, ms, ...(m.text === undefined ? {} : { text: m.text }) });
      };
      new BroadcastChannel('sidetalk-playback').onmessage = (e: MessageEvent) => {
        if ((e.data as Played).type === 'ended') g.__played.push(e.data as Played);
      };
      chrome.runtime.onMessage.addListener(
        (m: { type?: string; payload?: { role: string; text: string; final: boolean; turnId: string } }) => {
          if (m?.type === 'event/caption' && m.payload?.role === 'assistant' && m.payload.final) g.__stopCaptions.push(m.payload);
        },
      );
    });
    // A reply of several sentences (the scripted stand-in, which needs the debug panel), so the stop lands inside it.
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
    const rules = [
      { match: 'please go on', reply: 'Where was I? Ah yes.' },
      { match: 'lighthouse keeper', reply: STORY },
    ];
    expect(await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules }))).toMatchObject({ ok: true });
    const before = (await marks()).length;
    await panel.getByTestId('composer').fill('tell me a long story about a lighthouse keeper');
    await panel.getByRole('button', { name: 'Send' }).click();
    const heard = await poll(marks, (m) => m.slice(before).some((x) => x.name === 'first-audio'), 90_000, 50);
    const turn = heard.slice(before).find((x) => x.name === 'first-audio')!.turnId;
    // Let it speak for a moment, so some of it is heard and more of it is queued than played.
    await new Promise((r) => setTimeout(r, 1500));
    await panel.keyboard.press('Escape');
    const all = await poll(marks, (m) => m.some((x) => x.turnId === turn && x.name === 'interrupted'), 30_000, 100);
    expect(marksOf(all, turn)).not.toContain('done');
    await new Promise((r) => setTimeout(r, 1500)); // anything still in flight would arrive now
    const page = await panel.evaluate(() => {
      const g = globalThis as unknown as { __audioSeen: Seen[]; __played: Played[]; __stopCaptions: Caption[] };
      return { seen: g.__audioSeen, played: g.__played, captions: g.__stopCaptions };
    });
    const seen = page.seen;
    const stops = seen.flatMap((m, i) => (m.kind === 'stop' && m.turnId === turn ? [i] : []));
    expect(stops).toHaveLength(1);
    expect(seen.slice(stops[0]! + 1).filter((m) => m.turnId === turn && m.kind === 'chunk')).toEqual([]);
    expect(seen.slice(0, stops[0]).some((m) => m.turnId === turn && m.kind === 'chunk')).toBe(true);

    // The panel's player reported how much of the turn it played: more than nothing, no more than it was given.
    // A voice slower than real time drains the player between chunks: each drained run ends uninterrupted, and the
    // one interrupted end (the player's, or the bridge's when the stop found it idle) carries the turn's total.
    const ended = page.played.filter((p) => p.turnId === turn && p.interrupted);
    expect(ended, JSON.stringify(page.played)).toHaveLength(1);
    expect(page.played.filter((p) => p.turnId === turn).at(-1)).toBe(ended[0]);
    expect(ended[0]).toMatchObject({ interrupted: true, playedMs: expect.any(Number) });
    const sentences: SentenceAudio[] = [];
    for (const m of seen.slice(0, stops[0]).filter((x) => x.turnId === turn && x.kind === 'chunk')) {
      if (m.text !== undefined) sentences.push({ text: m.text, audioMs: 0, complete: true });
      sentences.at(-1)!.audioMs += m.ms;
    }
    const playedMs = ended[0]!.playedMs!;
    const givenMs = sentences.reduce((n, x) => n + x.audioMs, 0);
    console.log(`[heard] played ${Math.round(playedMs)} ms of ${Math.round(givenMs)} ms in ${sentences.length} sentences`);
    expect(playedMs).toBeGreaterThan(0);
    expect(playedMs).toBeLessThanOrEqual(givenMs + 1);
    // The final caption is the heard prefix of those sentences (the last one may still have been arriving at the stop).
    const lastIncomplete = sentences.map((x, i) => (i === sentences.length - 1 ? { ...x, complete: false } : x));
    const candidates = [heardText(sentences, playedMs), heardText(lastIncomplete, playedMs)];
    const caption = page.captions.filter((c) => c.turnId === turn).at(-1)?.text;
    console.log(`[heard] caption ${JSON.stringify(caption)}`);
    expect(candidates.map(interruptedCaption)).toContain(caption);
    const heardNow = candidates.find((c) => interruptedCaption(c) === caption)!;
    expect(STORY.startsWith(heardNow)).toBe(true);
    await poll(
      () => panel.getByTestId('engine-state').innerText(),
      (t) => !/Thinking|Speaking/.test(t),
      30_000,
    );

    // The next turn's prompt carries exactly those words with the marker.
    await panel.getByTestId('composer').fill('please go on');
    await panel.getByRole('button', { name: 'Send' }).click();
    const log = await poll(
      async () => {
        const r = await sendFromPage<Reply<{ source: string; prompt: string }[]>>(panel, request('debug/llm-log', 'offscreen'));
        return r.ok ? r.data : [];
      },
      (l) => l.at(-1)?.prompt.includes('user: please go on') ?? false,
      60_000,
      250,
    );
    expect(log.at(-1)!.prompt).toContain(`\nassistant: ${interruptedEntry(heardNow)}\nuser: please go on`);
    await poll(
      () => panel.getByTestId('engine-state').innerText(),
      (t) => !/Thinking|Speaking/.test(t),
      60_000,
    );
    expect(await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules: [] }))).toMatchObject({ ok: true });
  }, 240_000);

  it('hears a spoken turn from the fake microphone: VAD onset, endpoint, ASR, a spoken reply', async () => {
    // On the CPU backend: SwiftShader's WebGPU makes the fixture LLM's long generations slow enough on 2 shared cores
    // for the engine's stall watchdog to (correctly) step in; the WebGPU path is covered by the typed turns above.
    await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'wasm' } }));
    // On 2 busy cores the end-of-turn model can answer after the silence rules would end the turn (then, rightly,
    // they do); long silence windows make the model's answer the one that decides here.
    for (const path of ['engine.endpointCompleteMs', 'engine.endpointSilenceMs'])
      await sendFromPage(panel, request('tunables/set', 'background', { path, value: 4000 }));
    // A model slow to its first token (the scripted stand-in, which needs the debug panel): the reply cannot be heard
    // before "And in Paris?" starts, so that speech lands between the endpoint and the first reply audio.
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
    const rules = [{ match: 'spoken aloud', reply: 'It is nine in the morning there.', firstTokenDelayMs: SLOW_FIRST_TOKEN_MS }];
    expect(await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules }))).toMatchObject({ ok: true });
    const before = (await marks()).length;
    await panel.getByTestId('orb').click();
    // Until a turn other than the first endpoint's is done: the question's turn, merged or followed by "And in Paris?".
    const settled = (m: EngineMark[]) => {
      const run = m.slice(before);
      const firstEndpoint = run.find((x) => x.name === 'endpoint');
      return !!firstEndpoint && run.some((x) => x.name === 'done' && x.turnId !== firstEndpoint.turnId);
    };
    const all = await poll(marks, settled, 90_000, 250).catch(async (e) => {
      console.log('MARKS-AFTER', JSON.stringify((await marks().catch(() => [])).slice(before)));
      throw e;
    });
    const names = all.slice(before).map((m) => m.name);
    // The fixture ASR turns any speech into fixture tokens; what matters here is the whole path and its order.
    const order = ['speech-start', 'end-of-speech', 'turn-check', 'endpoint', 'transcript', 'first-speak', 'first-audio', 'done'];
    for (const name of order) expect(names).toContain(name);
    // The end-of-turn model (the fixture answers "finished") ended the turn the moment it answered.
    const turnCheck = all.slice(before).find((m) => m.name === 'turn-check')!;
    expect(all.slice(before).find((m) => m.name === 'endpoint' && m.turnId === turnCheck.turnId)?.at).toBe(turnCheck.at);
    const at = (name: string) => all.slice(before).find((m) => m.name === name)!.at;
    expect(at('speech-start')).toBeLessThan(at('end-of-speech'));
    expect(at('end-of-speech')).toBeLessThan(at('first-speak'));
    expect(at('first-speak')).toBeLessThan(at('first-audio'));

    // "And in Paris?" starts after the first endpoint and before any reply audio (the slow first token sees to that):
    // it is merged into that turn, or (after the merge window) a turn of its own; never dropped.
    const run = all.slice(before);
    const first = run.find((m) => m.name === 'endpoint')!;
    // Well before the fake microphone's loop comes round again (its 20 s of silence after "And in Paris?"): 2 s of
    // audio after the endpoint, marked up to 10 s later, since on loaded cores the engine handles frames behind real
    // time and its marks stretch (docs/benchmarks.md, "The offscreen thread under load").
    const resumed = run.find(
      (m) => m.at > first.at && m.at < first.at + 10_000 && ['merge', 'speech-start', 'barge-onset'].includes(m.name),
    );
    expect(resumed, `no sign of the speech after the endpoint: ${JSON.stringify(run.map((m) => m.name))}`).toBeDefined();
    const eos = run.find((m) => m.name === 'end-of-speech' && m.turnId === first.turnId)!;
    console.log(
      `endpoint ${Math.round(first.at - eos.at)} ms after the end of speech; then ${resumed!.name}, ${Math.round(resumed!.at - first.at)} ms later`,
    );
    expect(['merge', 'speech-start']).toContain(resumed!.name);
    expect(run.find((m) => m.name === 'first-audio' && m.turnId === first.turnId)).toBeUndefined();
    // The turn that answered it: under load the microphone's loop may come round before that reply's audio and be
    // merged into it too (its turn then ends interrupted), so the answer is the first turn after the resumption that
    // was done, the one `settled` waited for.
    expect(
      run.find((m) => m.name === 'endpoint' && m.at > resumed!.at),
      'the resumed speech never reached an endpoint',
    ).toBeDefined();
    const answered = run.find((m) => m.name === 'done' && m.turnId !== first.turnId && m.at > resumed!.at);
    expect(answered, 'no turn after the resumption was answered').toBeDefined();
    expect(marksOf(run, answered!.turnId)).toEqual(expect.arrayContaining(['endpoint', 'transcript', 'first-speak']));
    if (resumed!.name === 'merge') expect(resumed!.turnId).toBe(first.turnId);
    await poll(
      () => panel.locator('.line.user').count(),
      (n) => n >= 3,
    );
    await sendFromPage(panel, request('tunables/reset', 'background', {}));
    await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules: [] }));
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: false } }));
    await panel.getByTestId('orb').click(); // hands-free off: mic released
    await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('settings')),
      (s) => (s as { settings?: { handsFree?: boolean } }).settings?.handsFree === false,
    );
  });

  it('push-to-talk: holding Space listens, letting go ends the turn at once', async () => {
    // Hands-free from the previous test must be fully off (panel and engine) before push-to-talk applies.
    await poll(
      () => panel.getByTestId('orb').getAttribute('aria-pressed'),
      (v) => v === 'false',
    );
    await poll(
      () => sendFromPage<Reply<{ mic: { capturing: boolean } }>>(panel, request('offscreen/status', 'offscreen')),
      (r) => r.ok && !r.data.mic.capturing,
    );
    const before = (await marks()).length;
    await panel.locator('main').click({ position: { x: 5, y: 5 } }); // focus outside the text box
    await panel.keyboard.down('Space');
    await poll(marks, (m) => m.slice(before).some((x) => x.name === 'speech-start'), 60_000, 100);
    await new Promise((r) => setTimeout(r, 500)); // mid-sentence
    await panel.keyboard.up('Space');
    const all = await poll(marks, (m) => m.slice(before).some((x) => x.name === 'done'), 90_000, 250);
    const names = all.slice(before).map((m) => m.name);
    for (const name of ['speech-start', 'endpoint', 'transcript', 'done']) expect(names).toContain(name);
    const status = await sendFromPage<Reply<{ mic: { capturing: boolean } }>>(panel, request('offscreen/status', 'offscreen'));
    expect(status.ok && status.data.mic.capturing).toBe(false); // released: the mic is off again
  });

  it('Settings → Models says where the speech models run and which path the LLM decodes on, and why the plain one (docs/llm-static-kv.md)', async () => {
    // The fixture LLM has no GroupQueryAttention, so on either backend the plain path is used, with its reason.
    const reason = /^(no graph capture on WASM|graph not recognised: .*GroupQueryAttention.*)$/;
    const status = await sendFromPage<Reply<OffscreenStatus>>(panel, request('offscreen/status', 'offscreen'));
    expect(status.ok && status.data.llm).toMatchObject({ decode: 'plain', plainReason: expect.stringMatching(reason) });
    if ((await panel.getByTestId('compute-settings').count()) === 0) await panel.getByTestId('settings-button').click();
    const line = await panel.getByTestId('llm-decode').innerText();
    expect(line).toContain('standard path');
    expect(line).toContain(status.ok ? status.data.llm!.plainReason! : 'no status');
    // Where the speech models run, from the model worker itself, and the line that says so.
    const speech = status.ok ? status.data.speech : null;
    expect(speech?.loaded).toEqual(expect.arrayContaining(['asr', 'llm']));
    expect(['webgpu', 'wasm']).toContain(speech?.runtime);
    expect(await panel.getByTestId('speech-backend').innerText()).toContain(
      speech?.runtime === 'webgpu' ? 'on the GPU (WebGPU)' : 'on the CPU',
    );
  });

  it('the voice on WASM runs with chunk-sized flow-LM caches (the load-time check passed on the fixture graphs)', async () => {
    const status = await sendFromPage<Reply<OffscreenStatus>>(panel, request('offscreen/status', 'offscreen'));
    expect(status.ok && status.data.tts).toMatchObject({ backend: 'wasm', flowCache: 'chunk' });
  });

  it("the speakers' audio comes back to the engine as the echo canceller's reference: the reply's own samples, in order", async () => {
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
    const reply = 'He wiped the great lens and lit the lamp for the boats.';
    const rules = [{ match: 'the great lens', reply }];
    expect(await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules }))).toMatchObject({ ok: true });
    const before = (await marks()).length;
    await panel.getByTestId('composer').fill('what did he do with the great lens');
    await panel.getByRole('button', { name: 'Send' }).click();
    const all = await poll(marks, (m) => m.slice(before).some((x) => x.name === 'done'), 90_000, 100);
    const turnId = all.slice(before).find((x) => x.name === 'done')!.turnId;
    await new Promise((r) => setTimeout(r, 500)); // the last blocks the panel tapped
    const r = await sendFromPage<Reply<PlayedReferenceCheck>>(panel, request('debug/played-reference', 'offscreen', { turnId }));
    if (!r.ok) throw new Error(r.error.message);
    console.log(`[reference] ${JSON.stringify(r.data)}`);
    // What the panel's speakers got is the reply as the offscreen document sent it: the same samples (correlation near
    // 1 at the lag GCC-PHAT finds), none of them dropped as implausibly timed, and about as long as the sent audio.
    expect(r.data.dropped).toBe(0);
    expect(r.data.taken).toBeGreaterThan(10);
    expect(r.data.correlation).toBeGreaterThan(0.9);
    expect(Math.abs(r.data.atMs!)).toBeLessThan(50);
    expect(r.data.spanMs).toBeGreaterThanOrEqual(r.data.heardMs - 1);
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
