// Shared result types for every tool. A tool never throws for expected failures: it returns a typed failure
// with an honest, short line the avatar can speak, so the conversation engine has one shape to handle.

export type ToolName = 'get_weather' | 'wikipedia_lookup' | 'calculate' | 'get_time';

export type FailureKind =
  'offline' | 'rate_limited' | 'server_error' | 'timeout' | 'not_found' | 'malformed' | 'invalid_input' | 'cancelled';

export interface WeatherDay {
  date: string;
  maxTemp: number;
  minTemp: number;
  precipitationProbability: number | null;
  weatherCode: number;
  description: string;
}

export interface WeatherCard {
  kind: 'weather';
  place: string;
  latitude: number;
  longitude: number;
  timezone: string;
  units: { temperature: '°C' | '°F'; windSpeed: 'km/h' | 'mph' };
  current: {
    temperature: number;
    apparentTemperature: number;
    humidity: number;
    windSpeed: number;
    precipitation: number;
    weatherCode: number;
    description: string;
  };
  daily: WeatherDay[];
  attribution: string;
}

export interface WikipediaCard {
  kind: 'wikipedia';
  title: string;
  description: string | null;
  extract: string;
  url: string;
  imageUrl: string | null;
  lang: string;
}

export interface WikipediaChoicesCard {
  kind: 'wikipedia-choices';
  query: string;
  options: { title: string; description: string | null; url: string }[];
  lang: string;
}

export interface CalculationCard {
  kind: 'calculation';
  expression: string;
  result: string;
  exact: boolean;
  fraction: string | null;
}

export interface TimeCard {
  kind: 'time';
  place: string | null;
  timeZone: string;
  time: string;
  date: string;
  iso: string;
}

/** Where a page answer came from (docs/tools.md, "Answers that show where"); a click takes the tab there. */
export interface PageSourcesCard {
  kind: 'page-sources';
  /** The page's address without query or fragment, as read. */
  url: string;
  sources: { heading: string; path: string[]; snippet: string }[];
}

/**
 * A PDF stored on this computer, which Chrome lets no extension read (docs/tools.md, "PDFs"): the panel offers to open
 * the file itself, then asks the question again.
 */
export interface PdfPickCard {
  kind: 'pdf-pick';
  /** The user's words, asked again once the file is read. */
  question: string;
}

export type ToolCard = WeatherCard | WikipediaCard | WikipediaChoicesCard | CalculationCard | TimeCard;

export interface ToolSuccess<C extends ToolCard = ToolCard> {
  ok: true;
  tool: ToolName;
  /** One or two short sentences for TTS. */
  speech: string;
  card: C;
}

export interface ToolFailure {
  ok: false;
  tool: ToolName;
  kind: FailureKind;
  speech: string;
  /** Developer detail (never user speech content). */
  detail?: string;
}

export type ToolResult<C extends ToolCard = ToolCard> = ToolSuccess<C> | ToolFailure;

/** A validated call, whoever produced it (deterministic router or an LLM). */
export interface ToolCall {
  name: ToolName;
  arguments: Record<string, unknown>;
}

/** Injected time source; core code never reads timers directly. */
export interface Clock {
  now(): number;
  /** Resolves after ms, or rejects with an AbortError when signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Honest short lines per failure kind; tool-specific wording is passed as `what` ("the weather"). */
export function failureSpeech(kind: FailureKind, what: string): string {
  switch (kind) {
    case 'offline':
      return `I can't reach ${what} right now. It looks like we're offline.`;
    case 'rate_limited':
      return `${capitalize(what)} is asking me to slow down. Please try again in a minute.`;
    case 'server_error':
      return `${capitalize(what)} service had a problem. Please try again later.`;
    case 'timeout':
      return `${capitalize(what)} took too long to answer.`;
    case 'not_found':
      return `I couldn't find that in ${what}.`;
    case 'malformed':
      return `I got an answer from ${what} that I couldn't read.`;
    case 'invalid_input':
      return `I didn't understand what to look up.`;
    case 'cancelled':
      return `Okay, I stopped.`;
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
