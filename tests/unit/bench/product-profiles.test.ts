/**
 * The budget's product profiles (bench/budget/product-profiles.ts) must charge the pause in the order the engine runs
 * it: with the default tunables the transcription leads the end-of-turn question by 64 ms where drafts run, so the
 * probe's ASR-first timing applies; with no lead, the "together" timing; a lead the probe never measured is refused.
 * Runs on the committed H200 results, no GPU.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { productProfiles } from '../../../bench/budget/product-profiles';
import { profiles } from '../../../bench/budget/stage-profiles';
import type { StagesDoc } from '../../../bench/stages/report';
import { resetTunables, setTunable } from '../../../core/tunables';

const R = 'bench/results/';
const stages = JSON.parse(readFileSync(`${R}2026-12-02b-h200.json`, 'utf8')) as StagesDoc;
const base = profiles(stages).find((p) => p.asrDrafts)!;
const withLead = [`${R}2026-12-02c-h200-product-loops.json`, `${R}2026-12-03d-h200-asr-first-llm-dtype.json`];
const pause = (JSON.parse(readFileSync(withLead[1]!, 'utf8')) as { results: { pause?: Record<string, number> }[] }).results.find(
  (r) => r.pause,
)!.pause!;

afterEach(() => resetTunables('engine'));

describe('product budget profiles: the pause in the engine’s order', () => {
  it('transcription first (the defaults where drafts run): the probe’s ASR-first timing', () => {
    const [wasmTts] = productProfiles(base, withLead, 2);
    expect(wasmTts!.endOfTurnMs!.p50).toBe(Math.round(pause.turnAfterAsrMs!));
    expect(wasmTts!.p50.asrDraftedMs).toBeGreaterThanOrEqual(Math.round(pause.asrLeadingMs!));
  });

  it('question and transcription in the same frame: the "together" timing', () => {
    setTunable('engine.earlyTentativeEndpointMs', 160);
    const [wasmTts] = productProfiles(base, withLead, 2);
    expect(wasmTts!.endOfTurnMs!.p50).toBe(Math.round(pause.turnWithAsrMs!));
    expect(wasmTts!.p50.asrDraftedMs).toBeGreaterThanOrEqual(Math.round(pause.asrWithTurnMs!));
  });

  it('a lead the probe did not measure is refused, not guessed', () => {
    setTunable('engine.earlyTentativeEndpointMs', 128);
    expect(() => productProfiles(base, withLead, 2)).toThrow(/32 ms before the question/);
    // Results from before the ASR-first timing cannot price the default order either.
    resetTunables('engine');
    const old = [`${R}2026-12-02c-h200-product-loops.json`, `${R}2026-12-03c-h200-asr-pause.json`];
    expect(() => productProfiles(base, old, 2)).toThrow(/measured no lead/);
  });
});
