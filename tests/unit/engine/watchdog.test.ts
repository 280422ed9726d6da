/**
 * The turn watchdog (core/engine/duplex-engine.ts): a turn that makes no progress for `stallMs` is aborted, so a hung
 * model never leaves the assistant deaf. Audible playback is progress: TTS can finish long before a long reply's
 * audio does, and the reply must play to its end. Real Silero VAD, the long-story scenario.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';
import { loadSilero } from '../../fixtures/audio/conversation-sim';
import { story } from '../../fixtures/audio/story';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

describe('the turn watchdog', () => {
  it('lets a reply whose audio outlasts stallMs after its last sentence was synthesised play to its end', async () => {
    expect(setTunable('engine.stallMs', 4000)).toEqual({ ok: true });
    const { r } = await story(vad, { tailMs: 16000 });
    const lastSpeak = r.speaks.at(-1)!.at;
    const done = r.first('done');
    // The story's audio runs on for well over stallMs after TTS had all of it.
    expect(done - lastSpeak).toBeGreaterThan(2 * T.stallMs);
    expect(r.marks('watchdog')).toEqual([]);
    expect(r.marks('interrupted')).toEqual([]);
  });

  it('aborts a turn whose model never answers', async () => {
    expect(setTunable('engine.stallMs', 4000)).toEqual({ ok: true });
    const { r } = await story(vad, { latency: { llmFirstTokenMs: 60_000 }, tailMs: 8000 });
    const stalled = r.marks('watchdog');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]!.stalledMs).toBeGreaterThan(T.stallMs);
    expect(r.marks('interrupted').map((m) => m.reason)).toEqual(['watchdog']);
    expect(r.speaks).toEqual([]);
  });
});
