/**
 * Where a page answer came from (docs/tools.md, "Answers that show where"): one button per quoted section; a click
 * asks the background to scroll the tab there and highlight it, or to open a PDF at the page ("p. 12") or seek a
 * video to the time ("at 12:34"). The card arrives as untyped data from another context, so every field is checked,
 * and headings are shown as text (never as HTML).
 */
import { useState } from 'preact/hooks';
import { placeLabel, type Place } from '../../core/page/places';
import { request } from '../ui/runtime';

interface Source {
  heading: string;
  path: string[];
  snippet: string;
  place: Place | null;
}

const count = (v: unknown, max: number): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= max ? v : null;

function placeOf(raw: unknown): Place | null {
  const p = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const page = count(p.page, 1_000_000);
  if (page !== null && Number.isInteger(page) && page >= 1) return { page };
  const seconds = count(p.seconds, 1_000_000);
  return seconds !== null ? { seconds } : null;
}

const str = (v: unknown, max = 1_000): string | null => (typeof v === 'string' && v.length <= max ? v : null);

function sourcesOf(card: Record<string, unknown>): Source[] {
  if (!Array.isArray(card.sources)) return [];
  return card.sources.slice(0, 12).flatMap((raw: unknown) => {
    const s = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const heading = str(s.heading);
    const snippet = str(s.snippet);
    const path = Array.isArray(s.path) ? s.path.filter((p): p is string => typeof p === 'string').slice(0, 8) : [];
    return heading !== null && snippet !== null ? [{ heading, path, snippet, place: placeOf(s.place) }] : [];
  });
}

export function PageSourcesCard({ card }: { card: Record<string, unknown> }) {
  const url = str(card.url, 4_000);
  const sources = sourcesOf(card);
  const [message, setMessage] = useState<string | null>(null);
  if (!url || !sources.length) return null;
  const show = async (s: Source) => {
    setMessage(null);
    try {
      const r = await request('page/show-section', { url, heading: s.heading, snippet: s.snippet, ...(s.place ?? {}) });
      if (!r.ok) setMessage(r.message ?? "I couldn't show that part of the page.");
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <article class="card page-sources" data-testid="card-page-sources" aria-label="Where this answer came from">
      <p class="muted small">{sources.some((s) => s.place && 'seconds' in s.place) ? 'From the video:' : 'From the page:'}</p>
      <ul>
        {sources.map((s, i) => (
          <li key={i}>
            <button type="button" class="link" data-testid="page-source" title={s.snippet} onClick={() => void show(s)}>
              {s.place ? placeLabel(s.place) : s.heading || 'The opening'}
            </button>
          </li>
        ))}
      </ul>
      {message && (
        <p class="muted small" role="status">
          {message}
        </p>
      )}
    </article>
  );
}
