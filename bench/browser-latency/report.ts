/** Per-hop percentiles of the turn trace's waterfalls, as JSON rows and a markdown table (browser-latency bench). */
import { HOP_LABELS, type TurnWaterfall } from '../../core/trace/turn-hops';

export interface Row {
  measure: string;
  n: number;
  p50: number | null;
  p90: number | null;
  min: number | null;
  max: number | null;
}

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function row(measure: string, values: readonly (number | undefined)[]): Row {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  const r = (x: number | null) => (x === null ? null : Math.round(x));
  return {
    measure,
    n: v.length,
    p50: r(percentile(v, 50)),
    p90: r(percentile(v, 90)),
    min: r(v[0] ?? null),
    max: r(v.at(-1) ?? null),
  };
}

export function summarise(turns: readonly TurnWaterfall[]): { hops: Row[]; totals: Row[]; nonModelShare: Row } {
  const points = Object.keys(HOP_LABELS) as (keyof typeof HOP_LABELS)[];
  const hops = points.map((p) =>
    row(
      HOP_LABELS[p],
      turns.map((t) => t.hops[p]),
    ),
  );
  const fresh = turns.filter((t) => t.streamStarted === 1);
  const open = turns.filter((t) => t.streamStarted === 0);
  const totals = [
    row(
      'speak → first audible (panel analyser)',
      turns.map((t) => t.speakToAudible),
    ),
    row(
      "speak → engine's first-audio (started event, after its hop back)",
      turns.map((t) => t.speakToFirstAudio),
    ),
    row(
      'end of speech → first audible',
      turns.map((t) => t.endOfSpeechToAudible),
    ),
    row(
      'endpoint → first audible',
      turns.map((t) => t.endpointToAudible),
    ),
    row(
      'TTS worker: own time to first frame (inside the worker)',
      turns.map((t) => t.ttsWorkerMs),
    ),
    row(
      'TTS: speak request → voice worker (message hop)',
      turns.map((t) => t.ttsRequestHopMs),
    ),
    row(
      'TTS: first frame → offscreen document (message hop)',
      turns.map((t) => t.ttsFrameHopMs),
    ),
    row(
      'hop offscreen → panel, every sentence (TTS first frame → chunk received)',
      turns.flatMap((t) => t.chunkHops),
    ),
    row(
      'panel: chunk → player when the stream had to start',
      fresh.map((t) => t.hops['panel-queued']),
    ),
    row(
      'panel: chunk → player with the stream open',
      open.map((t) => t.hops['panel-queued']),
    ),
    row(
      "player: queued → TalkingHead's started callback",
      turns.map((t) => t.queuedToStarted),
    ),
    row(
      'hop panel → offscreen (started → engine first-audio)',
      turns.map((t) => t.startedToEngine),
    ),
    row(
      'model compute on the path (ASR + LLM hops, TTS worker time)',
      turns.map((t) => t.modelMs),
    ),
  ];
  // Of the time after the endpoint is decided, how much is not model compute.
  const share = turns.map((t) =>
    t.endpointToAudible !== undefined && t.endpointToAudible > 0 && t.modelMs !== undefined
      ? (100 * (t.endpointToAudible - t.modelMs)) / t.endpointToAudible
      : undefined,
  );
  return { hops, totals, nonModelShare: row('share of endpoint → first audible that is not model compute (%)', share) };
}

/** The side panel's long tasks over the run: how many, how long, and the share of the run they blocked the thread. */
export function longTaskSummary(tasks: readonly [number, number][], wallMs: number): { rows: Row[]; blockedShare: number } {
  const total = tasks.reduce((a, [, d]) => a + d, 0);
  return {
    rows: [
      row(
        'side panel long task (≥ 50 ms) duration',
        tasks.map(([, d]) => d),
      ),
    ],
    blockedShare: wallMs > 0 ? Math.round((1000 * total) / wallMs) / 1000 : 0,
  };
}

type Summary = ReturnType<typeof summarise> & { panelLongTasks?: ReturnType<typeof longTaskSummary> };

export function markdown(s: Summary, meta: Record<string, unknown>): string {
  const fmt = (x: number | null) => (x === null ? '–' : String(x));
  const table = (rows: Row[]) => [
    '| measure | n | p50 ms | p90 ms | min | max |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.measure} | ${r.n} | ${fmt(r.p50)} | ${fmt(r.p90)} | ${fmt(r.min)} | ${fmt(r.max)} |`),
  ];
  return [
    '# Browser latency: what the user hears (built extension, headless Chromium, fixture models)',
    '',
    ...Object.entries(meta).map(([k, v]) => `- ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
    '',
    '## Critical path, hop by hop (each hop: from the latest earlier point to its own)',
    '',
    ...table(s.hops),
    '',
    '## Totals and side measures',
    '',
    ...table([...s.totals, s.nonModelShare]),
    '',
    ...(s.panelLongTasks
      ? [
          '## Side panel main thread',
          '',
          ...table(s.panelLongTasks.rows),
          '',
          `Share of the run the panel's main thread spent in long tasks: ${(100 * s.panelLongTasks.blockedShare).toFixed(1)} %.`,
          '',
        ]
      : []),
  ].join('\n');
}
