import { describe, expect, it } from 'vitest';
import { PlayedAudio } from '../../../core/tts/played-audio';

describe('PlayedAudio: how much of a turn the player rendered, on its clock', () => {
  it('chunks handed over ahead of playback play back to back', () => {
    const p = new PlayedAudio();
    p.queue(10, 0.08);
    p.queue(10.01, 0.08);
    p.queue(10.02, 0.08);
    expect(p.playedMs(10)).toBe(0);
    expect(p.playedMs(10.1)).toBeCloseTo(100, 6);
    expect(p.playedMs(10.24)).toBeCloseTo(240, 6);
    expect(p.playedMs(99)).toBeCloseTo(240, 6);
  });

  it('a chunk that arrives after the player drained starts when it arrives: the silence between is not played audio', () => {
    const p = new PlayedAudio();
    p.queue(10, 0.5); // plays 10.0–10.5
    p.queue(11, 0.5); // the player waited 0.5 s in silence; plays 11.0–11.5
    expect(p.playedMs(10.75)).toBeCloseTo(500, 6);
    expect(p.playedMs(11.25)).toBeCloseTo(750, 6);
    p.reset();
    expect(p.playedMs(11.25)).toBe(0);
  });
});
