// Clock, date and time zones with Intl and an injected clock. Places resolve through a small built-in table of
// well-known cities, then (optionally) through the geocoder, whose results carry an IANA time zone.
import { failureSpeech, type Clock, type TimeCard, type ToolResult } from './types';

const ZONES: Record<string, string> = {
  london: 'Europe/London',
  paris: 'Europe/Paris',
  berlin: 'Europe/Berlin',
  madrid: 'Europe/Madrid',
  rome: 'Europe/Rome',
  amsterdam: 'Europe/Amsterdam',
  moscow: 'Europe/Moscow',
  istanbul: 'Europe/Istanbul',
  dubai: 'Asia/Dubai',
  mumbai: 'Asia/Kolkata',
  delhi: 'Asia/Kolkata',
  'new delhi': 'Asia/Kolkata',
  india: 'Asia/Kolkata',
  beijing: 'Asia/Shanghai',
  shanghai: 'Asia/Shanghai',
  china: 'Asia/Shanghai',
  'hong kong': 'Asia/Hong_Kong',
  singapore: 'Asia/Singapore',
  tokyo: 'Asia/Tokyo',
  japan: 'Asia/Tokyo',
  seoul: 'Asia/Seoul',
  sydney: 'Australia/Sydney',
  melbourne: 'Australia/Melbourne',
  auckland: 'Pacific/Auckland',
  'new york': 'America/New_York',
  'new york city': 'America/New_York',
  boston: 'America/New_York',
  washington: 'America/New_York',
  chicago: 'America/Chicago',
  denver: 'America/Denver',
  'los angeles': 'America/Los_Angeles',
  'san francisco': 'America/Los_Angeles',
  seattle: 'America/Los_Angeles',
  toronto: 'America/Toronto',
  vancouver: 'America/Vancouver',
  'mexico city': 'America/Mexico_City',
  'sao paulo': 'America/Sao_Paulo',
  'são paulo': 'America/Sao_Paulo',
  'buenos aires': 'America/Argentina/Buenos_Aires',
  cairo: 'Africa/Cairo',
  lagos: 'Africa/Lagos',
  nairobi: 'Africa/Nairobi',
  johannesburg: 'Africa/Johannesburg',
  utc: 'UTC',
  gmt: 'UTC',
};

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface TimeToolOptions {
  clock: Clock;
  /** The user's own IANA zone (from the browser), used when no place is named. */
  defaultTimeZone: string;
  /** Optional geocoder fallback (the weather client's `geocode`) for places not in the table. */
  geocode?: (
    place: string,
    locale: string,
    signal?: AbortSignal,
  ) => Promise<{ ok: true; place: { name: string; timezone: string | null } } | { ok: false; kind: string }>;
}

export interface TimeRequest {
  location?: string;
  locale: string;
  signal?: AbortSignal;
}

export function createTimeTool(opts: TimeToolOptions) {
  async function resolve(location: string, locale: string, signal?: AbortSignal) {
    const key = location
      .toLowerCase()
      .replace(/[?.!]/g, '')
      .replace(/^the\s+/, '')
      .trim();
    if (ZONES[key]) return { zone: ZONES[key], name: location.trim() };
    if (key.includes('/') && isValidTimeZone(location.trim())) return { zone: location.trim(), name: location.trim() };
    if (!opts.geocode) return null;
    const g = await opts.geocode(location, locale, signal);
    if (g.ok && g.place.timezone && isValidTimeZone(g.place.timezone)) {
      return { zone: g.place.timezone, name: g.place.name };
    }
    return g.ok ? null : { error: g.kind };
  }

  async function getTime(req: TimeRequest): Promise<ToolResult<TimeCard>> {
    let zone = opts.defaultTimeZone;
    let place: string | null = null;
    if (req.location && req.location.trim()) {
      const r = await resolve(req.location, req.locale, req.signal);
      if (!r) {
        return {
          ok: false,
          tool: 'get_time',
          kind: 'not_found',
          speech: `I don't know the time zone for ${req.location.trim()}.`,
        };
      }
      if ('error' in r) {
        const kind =
          (['offline', 'timeout', 'rate_limited', 'server_error', 'malformed', 'cancelled', 'not_found'] as const).find(
            (k) => k === r.error,
          ) ?? 'server_error';
        return { ok: false, tool: 'get_time', kind, speech: failureSpeech(kind, 'the place lookup') };
      }
      zone = r.zone;
      place = r.name;
    }
    const now = new Date(opts.clock.now());
    const time = new Intl.DateTimeFormat(req.locale, { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(now);
    const date = new Intl.DateTimeFormat(req.locale, {
      timeZone: zone,
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    }).format(now);
    const card: TimeCard = { kind: 'time', place, timeZone: zone, time, date, iso: now.toISOString() };
    const speech = place ? `It's ${time} in ${place}, ${date}.` : `It's ${time}, ${date}.`;
    return { ok: true, tool: 'get_time', card, speech };
  }

  return { getTime };
}

export type TimeTool = ReturnType<typeof createTimeTool>;
