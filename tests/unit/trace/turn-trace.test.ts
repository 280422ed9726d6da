import { describe, expect, it } from 'vitest';
import { ClockSync, estimateFromPong } from '../../../core/trace/clock-sync';
import { TraceLog } from '../../../core/trace/trace-log';
import { turnWaterfall, waterfalls } from '../../../core/trace/turn-hops';
import { traceSchemas, type TraceStamp } from '../../../core/protocol/trace';

describe('clock sync by ping/pong', () => {
  it('estimates remote = local + offset from the middle of the round trip', () => {
    expect(estimateFromPong(100, 47_105, 110)).toEqual({ offsetMs: 47_000, rttMs: 10 });
  });

  it('keeps the estimate of the smallest round trip, whatever order the pongs come in', () => {
    const sync = new ClockSync();
    const slow = sync.ping(0);
    const fast = sync.ping(1000);
    const slower = sync.ping(2000);
    // True offset 5000; asymmetric slow legs skew the estimate, the fast ping is nearly exact.
    expect(sync.pong(slow.id, 5000 + 300, 320)).toBe(true);
    expect(sync.pong(fast.id, 6000 + 2, 1004)).toBe(true);
    expect(sync.pong(slower.id, 7000 + 10, 2500)).toBe(false);
    expect(sync.best).toEqual({ offsetMs: 5000, rttMs: 4 });
    // A pong it never sent (or one answered twice) changes nothing.
    expect(sync.pong(fast.id, 0, 1005)).toBe(false);
    expect(sync.pong(99, 0, 0)).toBe(false);
    expect(sync.best).toEqual({ offsetMs: 5000, rttMs: 4 });
  });
});

describe('the trace log', () => {
  it('maps panel stamps onto the offscreen clock with the best offset, and leaves out panels with none', () => {
    const log = new TraceLog();
    log.stamp('tts-first-frame', 't1', 1000, 0, { workerMs: 40 });
    log.panelStamp({ panelId: 'a', name: 'panel-chunk', turnId: 't1', at: 50_010, index: 0 });
    log.panelStamp({ panelId: 'b', name: 'panel-chunk', turnId: 't1', at: 7 });
    log.clock('a', { offsetMs: -48_000, rttMs: 30 });
    log.clock('a', { offsetMs: -49_000, rttMs: 2 });
    log.clock('a', { offsetMs: -40_000, rttMs: 9 });
    const out = traceSchemas().TurnTraceExportSchema.parse(log.export([{ name: 'first-speak', at: 990, turnId: 't1' }]));
    expect(out.clocks).toEqual([{ panelId: 'a', offsetMs: -49_000, rttMs: 2 }]);
    expect(out.stamps.map((s) => [s.name, s.at, s.context])).toEqual([
      ['first-speak', 990, 'offscreen'],
      ['tts-first-frame', 1000, 'offscreen'],
      ['panel-chunk', 1010, 'panel'],
    ]);
  });

  it('keeps only the newest stamps beyond its capacity', () => {
    const log = new TraceLog(3);
    for (let i = 0; i < 5; i++) log.stamp('tts-call', `t${i}`, i);
    expect(log.export([]).stamps.map((s) => s.turnId)).toEqual(['t2', 't3', 't4']);
  });
});

const stamp = (name: string, at: number, extra: Partial<TraceStamp> = {}): TraceStamp => ({
  name,
  turnId: 't1',
  at,
  context: name.startsWith('panel-') ? 'panel' : 'offscreen',
  ...extra,
});

describe('the waterfall of one turn', () => {
  const turn: TraceStamp[] = [
    stamp('end-of-speech', 0),
    stamp('transcript', 150), // speculation: the transcript was ready before the endpoint
    stamp('endpoint', 200),
    stamp('first-token', 260),
    stamp('first-speak', 300),
    stamp('tts-call', 301, { index: 0 }),
    stamp('tts-first-frame', 600, { index: 0, info: { workerMs: 250, queuedMs: 0 } }),
    stamp('panel-chunk', 700, { index: 0 }),
    stamp('panel-queued', 1300, { index: 0, info: { streamStarted: 1 } }),
    stamp('panel-started', 1550),
    stamp('panel-audible', 1580),
    stamp('first-audio', 1700),
    stamp('tts-call', 900, { index: 1 }),
    stamp('tts-first-frame', 1000, { index: 1 }),
    stamp('panel-chunk', 1030, { index: 1 }),
  ];

  it('splits end of speech → first audible into hops that add up to it', () => {
    const w = turnWaterfall('t1', turn);
    expect(w.hops).toEqual({
      endpoint: 200,
      transcript: 0,
      'first-token': 60,
      'first-speak': 40,
      'tts-call': 1,
      'tts-first-frame': 299,
      'panel-chunk': 100,
      'panel-queued': 600,
      'panel-audible': 280,
    });
    const sum = Object.values(w.hops).reduce((a, b) => a + b, 0);
    expect(sum).toBe(w.endOfSpeechToAudible);
    expect(w).toMatchObject({
      speakToAudible: 1280,
      speakToFirstAudio: 1400,
      endpointToAudible: 1380,
      queuedToStarted: 250,
      startedToEngine: 150,
      ttsWorkerMs: 250,
      streamStarted: 1,
      modelMs: 0 + 60 + 250,
      chunkHops: [100, 30],
    });
  });

  it('lists only turns whose audio reached the panel', () => {
    const other = [stamp('end-of-speech', 5000, { turnId: 't2' }), stamp('endpoint', 5200, { turnId: 't2' })];
    expect(waterfalls([...turn, ...other]).map((w) => w.turnId)).toEqual(['t1']);
  });
});
