// Runs a validated ToolCall against the clients and turns results into what the LLM sees next turn.
import { calculate } from './calculator';
import type { TimeTool } from './time';
import type { ToolCall, ToolResult } from './types';
import type { WeatherClient } from './weather';
import type { WikipediaClient } from './wikipedia';

export interface ToolExecutorDeps {
  weather: WeatherClient;
  wikipedia: WikipediaClient;
  time: TimeTool;
  /** The user's locale, e.g. 'en-US' (units, date format, Wikipedia language). */
  locale: string;
}

export function createToolExecutor(deps: ToolExecutorDeps) {
  const lang = deps.locale.slice(0, 2).toLowerCase() || 'en';
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return async function execute(call: ToolCall, signal?: AbortSignal): Promise<ToolResult> {
    switch (call.name) {
      case 'get_weather': {
        const when = call.arguments.when;
        return deps.weather.getWeather({
          location: str(call.arguments.location),
          locale: deps.locale,
          when: when === 'today' || when === 'tomorrow' || when === 'now' ? when : undefined,
          signal,
        });
      }
      case 'wikipedia_lookup':
        return deps.wikipedia.lookup({ topic: str(call.arguments.topic), lang, signal });
      case 'calculate':
        return calculate(str(call.arguments.expression));
      case 'get_time':
        return deps.time.getTime({ location: str(call.arguments.location) || undefined, locale: deps.locale, signal });
    }
  };
}

/**
 * Content of the `{ role: 'tool' }` message after a call. Compact JSON: the spoken line plus the card's key
 * facts, so the model can rephrase without inventing. Wikipedia text is third-party data; it is labelled so.
 */
export function toolResultMessage(result: ToolResult): string {
  if (!result.ok) return JSON.stringify({ ok: false, error: result.kind, say: result.speech });
  const c = result.card;
  const facts =
    c.kind === 'weather'
      ? { place: c.place, now: c.current, days: c.daily, units: c.units }
      : c.kind === 'wikipedia'
        ? { title: c.title, description: c.description, extract_untrusted: c.extract.slice(0, 600) }
        : c.kind === 'wikipedia-choices'
          ? { ambiguous: true, options: c.options.map((o) => o.title) }
          : c.kind === 'calculation'
            ? { result: c.result, fraction: c.fraction }
            : { time: c.time, date: c.date, timeZone: c.timeZone, place: c.place };
  return JSON.stringify({ ok: true, say: result.speech, facts });
}
