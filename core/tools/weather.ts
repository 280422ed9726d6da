// Open-Meteo weather: geocode a place name, then fetch current conditions and a short daily forecast.
// Lessons built in: never geocode bare function words ("the" once geocoded to a city in Brazil) and back off
// trailing tokens ("Paris this weekend" → "Paris this" → "Paris") until a place is found.
import { z } from 'zod';
import { toolTunables } from '../tunables';
import { getJson, type HttpDeps } from './http';
import { failureSpeech, type Clock, type FetchLike, type ToolResult, type WeatherCard } from './types';

export const OPEN_METEO_GEOCODING_URL = 'https://geocoding-api.open-meteo.com/v1/search';
export const OPEN_METEO_FORECAST_URL = 'https://api.open-meteo.com/v1/forecast';

const geocodeSchema = z.object({
  results: z
    .array(
      z.object({
        name: z.string(),
        latitude: z.number(),
        longitude: z.number(),
        timezone: z.string().optional(),
        country: z.string().optional(),
        country_code: z.string().optional(),
        admin1: z.string().optional(),
      }),
    )
    .optional(),
});

const forecastSchema = z.object({
  timezone: z.string(),
  current: z.object({
    temperature_2m: z.number(),
    apparent_temperature: z.number(),
    relative_humidity_2m: z.number(),
    weather_code: z.number(),
    wind_speed_10m: z.number(),
    precipitation: z.number(),
  }),
  daily: z.object({
    time: z.array(z.string()),
    temperature_2m_max: z.array(z.number()),
    temperature_2m_min: z.array(z.number()),
    precipitation_probability_max: z.array(z.number().nullable()),
    weather_code: z.array(z.number()),
  }),
});

export interface GeocodedPlace {
  name: string;
  label: string;
  latitude: number;
  longitude: number;
  timezone: string | null;
}

/** Words that are never a place on their own; a candidate made only of these is not geocoded. */
const NON_PLACE_WORDS = new Set(
  (
    'the a an in at for of on to and or is it its this that these those here there me my our your please like ' +
    'now today tonight tomorrow week weekend weather forecast outside right current currently be will what how ' +
    "going next later morning afternoon evening day days rain snow sun hot cold temperature there's it's"
  ).split(/\s+/),
);

/** Candidate names to try, longest first, with leading/trailing function words removed. */
export function placeCandidates(raw: string): string[] {
  const tokens = raw
    .replace(/[?!.;:"“”]+/g, ' ')
    .split(/\s+/)
    .map((t) => t.replace(/^[,']+|[,']+$/g, ''))
    .filter((t) => t.length > 0);
  while (tokens.length && NON_PLACE_WORDS.has(tokens[0]!.toLowerCase())) tokens.shift();
  const out: string[] = [];
  for (let n = tokens.length; n >= 1; n--) {
    const slice = tokens.slice(0, n);
    while (slice.length && NON_PLACE_WORDS.has(slice[slice.length - 1]!.toLowerCase())) slice.pop();
    if (!slice.length || slice.every((t) => NON_PLACE_WORDS.has(t.toLowerCase()))) continue;
    const name = slice.join(' ');
    if (name.replace(/[^\p{L}]/gu, '').length < 2) continue;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

export type UnitSystem = { temperature: 'celsius' | 'fahrenheit'; windSpeed: 'kmh' | 'mph' };

/** Fahrenheit for the US and the few places that use it; mph wind also in the UK. Default metric. */
export function unitsForLocale(locale: string): UnitSystem {
  const region = /[-_]([A-Za-z]{2})(?:$|[-_])/.exec(locale)?.[1]?.toUpperCase() ?? '';
  const fahrenheit = ['US', 'LR', 'MM', 'BS', 'BZ', 'KY', 'PW', 'FM', 'MH'].includes(region);
  return {
    temperature: fahrenheit ? 'fahrenheit' : 'celsius',
    windSpeed: fahrenheit || region === 'GB' ? 'mph' : 'kmh',
  };
}

const WMO: Record<number, string> = {
  0: 'clear sky',
  1: 'mainly clear',
  2: 'partly cloudy',
  3: 'overcast',
  45: 'fog',
  48: 'freezing fog',
  51: 'light drizzle',
  53: 'drizzle',
  55: 'heavy drizzle',
  56: 'freezing drizzle',
  57: 'freezing drizzle',
  61: 'light rain',
  63: 'rain',
  65: 'heavy rain',
  66: 'freezing rain',
  67: 'freezing rain',
  71: 'light snow',
  73: 'snow',
  75: 'heavy snow',
  77: 'snow grains',
  80: 'light showers',
  81: 'showers',
  82: 'heavy showers',
  85: 'snow showers',
  86: 'heavy snow showers',
  95: 'thunderstorms',
  96: 'thunderstorms with hail',
  99: 'thunderstorms with hail',
};

export function describeWeatherCode(code: number): string {
  return WMO[code] ?? 'unknown conditions';
}

export interface WeatherClientOptions {
  fetch: FetchLike;
  clock: Clock;
  geocodingUrl?: string;
  forecastUrl?: string;
  timeoutMs?: number;
}

export interface WeatherRequest {
  location: string;
  /** BCP 47 locale of the user, e.g. 'en-US'; picks units. */
  locale: string;
  when?: 'now' | 'today' | 'tomorrow';
  signal?: AbortSignal;
}

export function createWeatherClient(opts: WeatherClientOptions) {
  const deps: HttpDeps = { fetch: opts.fetch, clock: opts.clock };
  const geoUrl = opts.geocodingUrl ?? OPEN_METEO_GEOCODING_URL;
  const fcUrl = opts.forecastUrl ?? OPEN_METEO_FORECAST_URL;
  const lang = (locale: string): string => locale.slice(0, 2).toLowerCase() || 'en';

  /** Tries each candidate name in turn; returns the first hit or the first hard failure. */
  async function geocode(location: string, locale: string, signal?: AbortSignal) {
    const candidates = placeCandidates(location);
    if (!candidates.length) return { ok: false as const, kind: 'invalid_input' as const, detail: 'no place name' };
    for (const name of candidates) {
      const url = `${geoUrl}?name=${encodeURIComponent(name)}&count=1&language=${lang(locale)}&format=json`;
      const out = await getJson(deps, { url, signal, timeoutMs: opts.timeoutMs });
      if (!out.ok) return out;
      const parsed = geocodeSchema.safeParse(out.body);
      if (!parsed.success) return { ok: false as const, kind: 'malformed' as const, detail: 'geocoding shape' };
      const hit = parsed.data.results?.[0];
      if (!hit) continue;
      const place: GeocodedPlace = {
        name: hit.name,
        label: [hit.name, hit.admin1 && hit.admin1 !== hit.name ? hit.admin1 : null, hit.country].filter(Boolean).join(', '),
        latitude: hit.latitude,
        longitude: hit.longitude,
        timezone: hit.timezone ?? null,
      };
      return { ok: true as const, place };
    }
    return { ok: false as const, kind: 'not_found' as const, detail: 'no geocoding match' };
  }

  async function getWeather(req: WeatherRequest): Promise<ToolResult<WeatherCard>> {
    const fail = (kind: Parameters<typeof failureSpeech>[0], detail: string, speech?: string): ToolResult<WeatherCard> => ({
      ok: false,
      tool: 'get_weather',
      kind,
      detail,
      speech: speech ?? failureSpeech(kind, 'the weather service'),
    });
    const geo = await geocode(req.location, req.locale, req.signal);
    if (!geo.ok) {
      if (geo.kind === 'invalid_input') return fail(geo.kind, geo.detail, 'Which city should I check the weather for?');
      if (geo.kind === 'not_found') return fail(geo.kind, geo.detail, "I couldn't find that place.");
      return fail(geo.kind, geo.detail);
    }
    const units = unitsForLocale(req.locale);
    const params = new URLSearchParams({
      latitude: String(geo.place.latitude),
      longitude: String(geo.place.longitude),
      current: 'temperature_2m,apparent_temperature,relative_humidity_2m,weather_code,wind_speed_10m,precipitation',
      daily: 'temperature_2m_max,temperature_2m_min,precipitation_probability_max,weather_code',
      timezone: 'auto',
      forecast_days: String(toolTunables.forecastDays),
      temperature_unit: units.temperature,
      wind_speed_unit: units.windSpeed,
    });
    const out = await getJson(deps, { url: `${fcUrl}?${params.toString()}`, signal: req.signal, timeoutMs: opts.timeoutMs });
    if (!out.ok) return fail(out.kind, out.detail);
    const parsed = forecastSchema.safeParse(out.body);
    if (!parsed.success) return fail('malformed', 'forecast shape');
    const f = parsed.data;
    const card: WeatherCard = {
      kind: 'weather',
      place: geo.place.label,
      latitude: geo.place.latitude,
      longitude: geo.place.longitude,
      timezone: f.timezone,
      units: {
        temperature: units.temperature === 'fahrenheit' ? '°F' : '°C',
        windSpeed: units.windSpeed === 'mph' ? 'mph' : 'km/h',
      },
      current: {
        temperature: f.current.temperature_2m,
        apparentTemperature: f.current.apparent_temperature,
        humidity: f.current.relative_humidity_2m,
        windSpeed: f.current.wind_speed_10m,
        precipitation: f.current.precipitation,
        weatherCode: f.current.weather_code,
        description: describeWeatherCode(f.current.weather_code),
      },
      daily: f.daily.time.map((date, i) => ({
        date,
        maxTemp: f.daily.temperature_2m_max[i] ?? NaN,
        minTemp: f.daily.temperature_2m_min[i] ?? NaN,
        precipitationProbability: f.daily.precipitation_probability_max[i] ?? null,
        weatherCode: f.daily.weather_code[i] ?? -1,
        description: describeWeatherCode(f.daily.weather_code[i] ?? -1),
      })),
      attribution: 'Weather data by Open-Meteo.com',
    };
    return { ok: true, tool: 'get_weather', card, speech: weatherSpeech(card, req.when ?? 'now', geo.place.name) };
  }

  return { getWeather, geocode };
}

export type WeatherClient = ReturnType<typeof createWeatherClient>;

function weatherSpeech(card: WeatherCard, when: 'now' | 'today' | 'tomorrow', name: string): string {
  const r = (n: number): number => Math.round(n);
  const day = when === 'tomorrow' ? card.daily[1] : card.daily[0];
  if (when === 'tomorrow' && day) {
    const rain = day.precipitationProbability !== null ? `, ${r(day.precipitationProbability)} percent chance of rain` : '';
    return `Tomorrow in ${name}: ${day.description}, high ${r(day.maxTemp)}, low ${r(day.minTemp)}${rain}.`;
  }
  const now = `In ${name} it's ${r(card.current.temperature)} degrees and ${card.current.description}.`;
  return day ? `${now} Today's high is ${r(day.maxTemp)}, low ${r(day.minTemp)}.` : now;
}
