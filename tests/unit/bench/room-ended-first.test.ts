/**
 * The room sweep's count of interruptions that came after the reply had ended (bench/room/report.ts): on sweep 06i's
 * rows, where one talked-over reply's speakers went quiet 190 ms before the voice (its last sentence was over) and one
 * voice was held and then let go.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { summarise, type RoomRow } from '../../../bench/room/report';

const rows = (JSON.parse(readFileSync('bench/results/2026-12-06i-ci-box-room.json', 'utf8')) as { rows: RoomRow[] }).rows;

describe('a reply that ended before the voice', () => {
  it('is counted as ended, not missed, when its speakers were quiet before the voice', () => {
    const s = summarise(rows);
    expect(s.interruptions).toBe(18);
    expect(s.preempted).toBe(1);
    expect(s.missedBargeIns).toBe(1);
  });

  it('without the speakers recorded (older results) it counts as missed, as before', () => {
    const older = rows.map((r) => {
      const { speakersSilentAfterVoiceMs: _, ...interrupted } = r.over.interrupted!;
      return { ...r, over: { ...r.over, interrupted } };
    });
    const s = summarise(older);
    expect(s.preempted).toBe(0);
    expect(s.missedBargeIns).toBe(2);
  });
});
