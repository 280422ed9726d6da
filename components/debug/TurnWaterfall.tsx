import { useState } from 'preact/hooks';
import type { TurnTraceExport } from '../../core/protocol/trace';
import { waterfalls } from '../../core/trace/turn-hops';
import { request } from '../ui/runtime';
import { waterfallRows, type WaterfallRow } from './waterfall-rows';

/**
 * The turn trace as a waterfall (test builds with the debug panel on): one row per recent turn, one bar per hop from
 * the end of speech to the first audible sample, and the whole trace as JSON (docs/benchmarks.md, "What the user
 * hears").
 */
export function TurnWaterfall() {
  const [trace, setTrace] = useState<TurnTraceExport | null>(null);
  const [rows, setRows] = useState<WaterfallRow[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    request('debug/turn-trace', {}).then(
      (t) => {
        setTrace(t);
        setRows(waterfallRows(waterfalls(t.stamps)));
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  const exportJson = () => {
    if (!trace) return;
    const body = JSON.stringify({ ...trace, turns: waterfalls(trace.stamps) }, null, 1);
    const url = URL.createObjectURL(new Blob([body], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `sidetalk-turn-trace-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <section class="waterfall" aria-labelledby="waterfall-heading" data-testid="turn-waterfall">
      <h2 id="waterfall-heading">Turn timing</h2>
      <p class="muted small">End of speech → first audible sample, hop by hop, on one clock across the contexts.</p>
      <div class="waterfall-actions">
        <button type="button" class="button" onClick={() => void load()} data-testid="waterfall-refresh">
          Refresh
        </button>
        <button type="button" class="button" onClick={exportJson} disabled={!trace} data-testid="waterfall-export">
          Export JSON
        </button>
      </div>
      {error && (
        <p class="notice" role="alert">
          {error}
        </p>
      )}
      {trace && rows.length === 0 && <p class="muted small">No spoken reply traced yet.</p>}
      <ol class="waterfall-rows">
        {rows.map((r) => (
          <li key={r.turnId} data-testid="waterfall-row" data-turn={r.turnId} data-total={r.totalMs ?? ''}>
            <span class="waterfall-turn">
              {r.turnId} · {r.totalMs === null ? 'not heard' : `${r.totalMs} ms`}
            </span>
            <span class="waterfall-track" role="img" aria-label={r.bars.map((b) => `${b.label} ${b.ms} ms`).join('; ')}>
              {r.bars.map((b) => (
                <span
                  key={b.hop}
                  class={`waterfall-bar hop-${b.hop}`}
                  style={{ left: `${b.left}%`, width: `${Math.max(0.5, b.width)}%` }}
                  title={`${b.label}: ${b.ms} ms`}
                  data-hop={b.hop}
                  data-ms={b.ms}
                />
              ))}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
