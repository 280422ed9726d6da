/**
 * Where a page answer came from (docs/tools.md, "Answers that show where"): one button per quoted section; a click
 * asks the background to scroll the tab there and highlight it. The card arrives as untyped data from another
 * context, so every field is checked, and headings are shown as text (never as HTML).
 */
import { useState } from 'preact/hooks';
import { request } from '../ui/runtime';

interface Source {
  heading: string;
  path: string[];
  snippet: string;
}

const str = (v: unknown, max = 1_000): string | null => (typeof v === 'string' && v.length <= max ? v : null);

function sourcesOf(card: Record<string, unknown>): Source[] {
  if (!Array.isArray(card.sources)) return [];
  return card.sources.slice(0, 12).flatMap((raw: unknown) => {
    const s = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const heading = str(s.heading);
    const snippet = str(s.snippet);
    const path = Array.isArray(s.path) ? s.path.filter((p): p is string => typeof p === 'string').slice(0, 8) : [];
    return heading !== null && snippet !== null ? [{ heading, path, snippet }] : [];
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
      const r = await request('page/show-section', { url, heading: s.heading, snippet: s.snippet });
      if (!r.ok) setMessage(r.message ?? "I couldn't show that part of the page.");
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <article class="card page-sources" data-testid="card-page-sources" aria-label="Where this answer came from">
      <p class="muted small">From the page:</p>
      <ul>
        {sources.map((s, i) => (
          <li key={i}>
            <button type="button" class="link" data-testid="page-source" title={s.snippet} onClick={() => void show(s)}>
              {s.heading || 'The opening'}
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
