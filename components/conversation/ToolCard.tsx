import { PageSourcesCard } from './PageSources';
import { PdfPickCard } from './PdfPick';

/**
 * Cards for tool results. The card arrives as untyped data from another context, so each field is checked before it
 * is shown; anything unexpected renders nothing rather than breaking the panel.
 */
const str = (v: unknown): string | null => (typeof v === 'string' && v.length < 5000 ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const safeUrl = (v: unknown): string | null => {
  const s = str(v);
  if (!s) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
};

export function ToolCard({ card }: { card: Record<string, unknown> }) {
  const kind = str(card.kind);
  if (kind === 'page-sources') return <PageSourcesCard card={card} />;
  if (kind === 'pdf-pick') return <PdfPickCard card={card} />;
  if (kind === 'weather') {
    const current = (card.current ?? {}) as Record<string, unknown>;
    const units = (card.units ?? {}) as Record<string, unknown>;
    const t = num(current.temperature);
    return (
      <article class="card" data-testid="card-weather" aria-label="Weather">
        <h3>{str(card.place)}</h3>
        <p class="big">
          {t !== null ? Math.round(t) : '–'}
          {str(units.temperature)} · {str(current.description)}
        </p>
        <p class="muted small">{str(card.attribution) ?? 'Weather data by Open-Meteo.com'}</p>
      </article>
    );
  }
  if (kind === 'wikipedia') {
    const url = safeUrl(card.url);
    const image = safeUrl(card.imageUrl);
    return (
      <article class="card" data-testid="card-wikipedia" aria-label="Wikipedia">
        {image && <img src={image} alt="" loading="lazy" referrerpolicy="no-referrer" crossorigin="anonymous" />}
        <h3>{str(card.title)}</h3>
        <p>{str(card.extract)?.slice(0, 400)}</p>
        {url && (
          <a href={url} target="_blank" rel="noreferrer noopener">
            Read on Wikipedia
          </a>
        )}
      </article>
    );
  }
  if (kind === 'calculation') {
    return (
      <article class="card" data-testid="card-calculation" aria-label="Calculation">
        <p class="muted">{str(card.expression)}</p>
        <p class="big">= {str(card.result)}</p>
      </article>
    );
  }
  if (kind === 'time') {
    return (
      <article class="card" data-testid="card-time" aria-label="Time">
        <p class="big">{str(card.time)}</p>
        <p class="muted">
          {str(card.date)} · {str(card.place) ?? str(card.timeZone)}
        </p>
      </article>
    );
  }
  return null;
}
