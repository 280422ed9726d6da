// The GPU priority rule with a fake clock: vision yields to every speech stage, waits out the grace period, never runs
// two detections at once, and drops frames that went stale.
import { beforeEach, describe, expect, it } from 'vitest';
import { visionTunables } from '../../../core/tunables';
import { VisionScheduler, type SpeechStage } from '../../../core/vision/scheduler';

let now = 0;
let s: VisionScheduler;
const advance = (ms: number) => {
  now += ms;
};

beforeEach(() => {
  now = 10_000;
  s = new VisionScheduler(() => now);
});

describe('VisionScheduler', () => {
  it('does nothing while vision is off', () => {
    expect(s.wantFrame()).toBe(false);
    expect(s.admit(now)).toEqual({ run: false, reason: 'off' });
    expect(s.nextCheckAt()).toBe(Number.POSITIVE_INFINITY);
  });

  it('runs at once when idle, then at the search cadence, then the slower one once a person is established', () => {
    s.enable();
    expect(s.wantFrame()).toBe(true);
    expect(s.admit(now)).toEqual({ run: true });
    expect(s.wantFrame()).toBe(false); // one detection at a time
    advance(100);
    s.finished(false);
    expect(s.nextCheckAt()).toBe(now + visionTunables.searchIntervalMs);
    advance(visionTunables.searchIntervalMs - 1);
    expect(s.wantFrame()).toBe(false);
    advance(1);
    expect(s.wantFrame()).toBe(true);
    s.admit(now);
    s.finished(true);
    expect(s.nextCheckAt()).toBe(now + visionTunables.establishedIntervalMs);
  });

  it.each<SpeechStage>(['utterance', 'asr', 'llm', 'tts', 'playback'])(
    'yields to the %s stage and resumes after the grace period',
    (stage) => {
      s.enable();
      s.setStage(stage, true);
      expect(s.wantFrame()).toBe(false);
      expect(s.admit(now)).toEqual({ run: false, reason: 'speech' });
      advance(60_000); // however long the stage lasts
      expect(s.wantFrame()).toBe(false);
      s.setStage(stage, false);
      expect(s.wantFrame()).toBe(false);
      expect(s.nextCheckAt()).toBe(now + visionTunables.resumeAfterSpeechMs);
      advance(visionTunables.resumeAfterSpeechMs);
      expect(s.wantFrame()).toBe(true);
    },
  );

  it('stays off the GPU until every overlapping stage has ended', () => {
    s.enable();
    s.setStage('llm', true);
    s.setStage('tts', true);
    s.setStage('llm', false);
    advance(5_000);
    expect(s.speechHoldsGpu()).toBe(true);
    s.setStage('tts', false);
    advance(visionTunables.resumeAfterSpeechMs);
    expect(s.speechHoldsGpu()).toBe(false);
  });

  it('drops a frame grabbed before speech started, even after speech ended again', () => {
    s.enable();
    const grabbedAt = now;
    advance(10);
    s.setStage('utterance', true);
    advance(300);
    s.setStage('utterance', false);
    advance(visionTunables.resumeAfterSpeechMs);
    expect(s.admit(grabbedAt)).toEqual({ run: false, reason: 'stale' });
    expect(s.stats().droppedStale).toBe(1);
    expect(s.nextCheckAt()).toBe(now + visionTunables.retryAfterSkipMs);
    expect(s.admit(now)).toEqual({ run: true });
  });

  it('drops a frame older than maxFrameAgeMs', () => {
    s.enable();
    const grabbedAt = now;
    advance(visionTunables.maxFrameAgeMs + 1);
    expect(s.admit(grabbedAt)).toEqual({ run: false, reason: 'stale' });
    expect(s.admit(now - visionTunables.maxFrameAgeMs)).toEqual({ run: true });
  });

  it('refuses a second frame while one is in flight and forgets it on disable', () => {
    s.enable();
    expect(s.admit(now).run).toBe(true);
    expect(s.admit(now)).toEqual({ run: false, reason: 'busy' });
    s.disable();
    s.enable();
    expect(s.admit(now).run).toBe(true);
  });

  it('a speech stage starting mid-detection does not start another one afterwards until speech is over', () => {
    s.enable();
    s.admit(now);
    s.setStage('asr', true);
    advance(50);
    s.finished(true);
    advance(visionTunables.establishedIntervalMs);
    expect(s.wantFrame()).toBe(false);
    s.setStage('asr', false);
    advance(visionTunables.resumeAfterSpeechMs);
    expect(s.wantFrame()).toBe(true);
  });
});
