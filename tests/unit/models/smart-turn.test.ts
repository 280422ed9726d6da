import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { endOfTurnWindow, TURN_WINDOW_SAMPLES } from '../../../core/turn/turn-window';
import { WhisperLogMel } from '../../../core/turn/log-mel';
import { SmartTurn } from '../../../models/turn/smart-turn';
import type { OrtLike } from '../../../models/ort-like';
import { buildSmartTurnGraph, SMART_TURN_FIXTURE } from '../../../bench/stages/smart-turn-graph';
import { SILERO_PATH } from '../../fixtures/audio/conversation-sim';
import { speech } from '../../fixtures/audio/make-audio';

const ortNode = ort as unknown as OrtLike;
const melOf = new WhisperLogMel();
const logMel = (window: Float32Array) => melOf.compute(window);

const meanVar = (x: Float32Array) => {
  let m = 0;
  for (const v of x) m += v;
  m /= x.length;
  let s = 0;
  for (const v of x) s += (v - m) ** 2;
  return [m, s / x.length] as const;
};

describe('the end-of-turn window (last 8 s, zeros in front, normalised)', () => {
  it('front-pads a short turn and brings the whole window to zero mean and unit variance', () => {
    const audio = new Float32Array(16_000).map((_, i) => 0.2 + 0.1 * Math.sin(i / 7));
    const w = endOfTurnWindow(audio);
    expect(w).toHaveLength(TURN_WINDOW_SAMPLES);
    const [mean, variance] = meanVar(w);
    expect(Math.abs(mean)).toBeLessThan(1e-4);
    expect(variance).toBeCloseTo(1, 3);
    // The padding is in front: every sample before the audio holds the same (normalised zero) value.
    const pad = w.subarray(0, TURN_WINDOW_SAMPLES - audio.length);
    expect(new Set(pad).size).toBe(1);
    expect(w[TURN_WINDOW_SAMPLES - 1]).not.toBe(pad[0]);
  });

  it('keeps the last 8 s of a longer turn, and does not depend on the level', () => {
    const long = new Float32Array(TURN_WINDOW_SAMPLES + 5000).map((_, i) => (i < 5000 ? 0.9 : 0.05 * Math.sin(i / 3)));
    const w = endOfTurnWindow(long);
    const quiet = endOfTurnWindow(long.map((v) => v * 0.1));
    expect(Math.max(...w.subarray(0, 10).map(Math.abs))).toBeLessThan(5); // the loud first 5000 samples are gone
    for (let i = 0; i < w.length; i += 997) expect(Math.abs(quiet[i]! - w[i]!)).toBeLessThan(0.01 * Math.abs(w[i]!) + 1e-3);
  });
});

describe('Smart Turn runner (onnxruntime, fixture with the real contract)', () => {
  it('log-mel is 80 × 800; a short turn reads as floor in front and sound at the end', async () => {
    const features = logMel(endOfTurnWindow(speech('Is it going to rain today?')));
    expect(features).toHaveLength(80 * 800);
    const frame = (t: number) => Array.from({ length: 80 }, (_, b) => features[b * 800 + t]!);
    // Padding in front: the same frame over and over (a constant signal); the speech at the end differs from it.
    expect(frame(100)).toEqual(frame(5));
    expect(frame(700)).not.toEqual(frame(5));
    expect(new Set(frame(700)).size).toBeGreaterThan(20);
  });

  it('answers a probability for speech, the same for a quieter copy', async () => {
    const model = await SmartTurn.create(ortNode, buildSmartTurnGraph(SMART_TURN_FIXTURE).onnx, undefined, logMel);
    const audio = speech('What is the capital of France?');
    const p = await model.completeProbability(audio);
    expect(p).toBeGreaterThan(0.5);
    expect(p).toBeLessThanOrEqual(1);
    expect(await model.completeProbability(audio.map((v) => v * 0.25))).toBeCloseTo(p, 4);
    await model.release();
  });

  it('refuses a graph with another contract, naming what it lacks', async () => {
    await expect(SmartTurn.create(ortNode, readFileSync(SILERO_PATH), undefined, logMel)).rejects.toThrow(
      /no input "input_features"/,
    );
  });
});
